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

/// A method's error type: one exception per variant.
#[derive(thrift_core::ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum LookupError {
    #[thrift(id = 1)]
    NotFound(NotFound),
    #[thrift(id = 2, name = "gone")]
    Deleted(NotFound),
    #[thrift(id = 5)]
    AccessDenied(NotFound),
}

/// Named fields in another case.
#[derive(thrift_core::ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed, rename_all = "camelCase")]
enum CamelError {
    #[thrift(id = 1)]
    NotFound(NotFound),
}

/// An exception struct thrown on its own, at its own id and name.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception, throws(id = 3, name = "unavailable"))]
struct Unavailable {
    #[thrift(id = 1)]
    retry_ms: i32,
}

fn thrown<E: thrift_core::__private::IdlThrows>() -> Vec<(i16, &'static str, String)> {
    let mut idl = Idl::new();
    E::idl_throws(&mut idl).into_iter().map(|f| (f.id, f.name, f.ty)).collect()
}

#[test]
fn thrown_exceptions_have_idl_field_names_and_their_ids() {
    // A variant is thrown under its name in snake_case, as IDL fields are spelled, unless
    // it has a `name` (which also names the union's member) or the union a `rename_all`.
    assert_eq!(
        thrown::<LookupError>(),
        [
            (1, "not_found", "NotFound".to_owned()),
            (2, "gone", "NotFound".into()),
            (5, "access_denied", "NotFound".into())
        ]
    );
    assert_eq!(thrown::<CamelError>(), [(1, "notFound", "NotFound".to_owned())]);
    assert_eq!(thrown::<Unavailable>(), [(3, "unavailable", "Unavailable".to_owned())]);
    assert_eq!(thrown::<NotFound>(), [(1, "err", "NotFound".to_owned())]);
    // As a union the variants keep their member names.
    let idl = Idl::new().add::<LookupError>().render();
    assert!(idl.contains("  1: NotFound NotFound\n  2: NotFound gone\n  5: NotFound AccessDenied\n"), "{idl}");
}
