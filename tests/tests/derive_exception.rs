//! `#[thrift(exception)]` structs are Rust errors: `Display`, `std::error::Error`, boxable
//! as `dyn Error`, and still Thrift structs on the wire.

use std::error::Error;

use thrift_core::{Binary, Compact, Idl, ThriftStruct};

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception)]
struct NotFound {
    #[thrift(id = 1)]
    message: String,
    #[thrift(id = 2)]
    key: i64,
}

/// An exception with a lifetime: still an `Error`, just not `'static`.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(exception, name = "Rejected")]
struct Rejected<'a> {
    #[thrift(id = 1, required)]
    reason: &'a str,
}

fn lookup(key: i64) -> Result<String, Box<dyn Error + Send + Sync>> {
    if key == 0 {
        return Ok("zero".into());
    }
    // `?` converts the exception into the boxed error.
    Err(NotFound { message: "no such key".into(), key })?
}

#[test]
fn an_exception_is_a_boxable_error() {
    let err = lookup(7).unwrap_err();
    assert_eq!(err.downcast_ref::<NotFound>(), Some(&NotFound { message: "no such key".into(), key: 7 }));
    assert!(err.source().is_none());
    assert_eq!(lookup(0).unwrap(), "zero");
}

#[test]
fn an_exception_displays_its_fields() {
    let err = NotFound { message: "no such key".into(), key: 7 };
    let shown = err.to_string();
    assert!(shown.contains("NotFound") && shown.contains("no such key") && shown.contains('7'), "{shown}");
    let borrowed: &dyn Error = &Rejected { reason: "too big" };
    assert!(borrowed.to_string().contains("too big"));
}

#[test]
fn an_exception_is_a_struct_on_the_wire() {
    let err = NotFound { message: "m".into(), key: -1 };
    let binary = thrift_core::to_vec::<Binary, _>(&err);
    assert_eq!(thrift_core::from_slice::<Binary, NotFound>(&binary).unwrap(), err);
    let compact = thrift_core::to_vec::<Compact, _>(&err);
    assert_eq!(thrift_core::from_slice::<Compact, NotFound>(&compact).unwrap(), err);
    // Field 1: string "m"; field 2: i64 -1 (zigzag 1); stop.
    assert_eq!(compact, [0x18, 0x01, b'm', 0x16, 0x01, 0x00]);
    let rejected = thrift_core::to_vec::<Compact, _>(&Rejected { reason: "r" });
    assert_eq!(thrift_core::from_slice::<Compact, Rejected<'_>>(&rejected).unwrap().reason, "r");
}

#[test]
fn an_exception_is_an_exception_in_the_idl() {
    assert_eq!(
        Idl::new().add::<NotFound>().add::<Rejected<'_>>().render(),
        "exception NotFound {\n  1: string message\n  2: i64 key\n}\n\n\
         /**\n * An exception with a lifetime: still an `Error`, just not `'static`.\n */\n\
         exception Rejected {\n  1: required string reason\n}\n"
    );
}
