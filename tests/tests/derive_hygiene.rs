//! The derives' generated code depends on nothing but the runtime path it is given: it works
//! with the runtime under another name (`#[thrift(crate = "...")]`), inside a module with
//! `#![no_implicit_prelude]`, and on types written by a `macro_rules!` macro. So does
//! `ThriftArbitrary`'s, which reaches proptest through the runtime's re-export.

// Simulates a renamed dependency (`thrift_renamed = { package = "thrift-core" }`). Cargo
// refuses one package under two names in one manifest, so the rename is done here instead,
// and `::thrift_core` is pointed at `core`: generated code that still spelled
// `::thrift_core::...` would fail to compile rather than silently use the real crate.
extern crate core as thrift_core;
extern crate thrift_core as thrift_renamed;

use std::collections::BTreeMap;

use thrift_renamed::{Binary, Compact, Idl, Protocol, ThriftArbitrary, ThriftEnum, ThriftStruct, ThriftUnion};

#[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[thrift(crate = "thrift_renamed")]
#[repr(i32)] // Rust requires a repr for explicit discriminants beside a data variant.
enum Level {
    #[default]
    Low = 1,
    High = 2,
    #[thrift(unknown)]
    Other(i32),
}

#[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(closed)]
#[thrift(crate = "thrift_renamed")]
enum Value {
    #[thrift(id = 1)]
    Number(i64),
    #[thrift(id = 2)]
    Text(String),
}

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
#[thrift(crate = "thrift_renamed")]
// `T: Default` because a field of default requiredness takes `T::default()` when absent.
struct Wrapper<T: Default> {
    #[thrift(id = 1)]
    inner: T,
}

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(crate = "thrift_renamed", name = "Renamed")]
struct Record<'a> {
    #[thrift(id = 1, required)]
    name: &'a str,
    #[thrift(id = 2)]
    level: Level,
    #[thrift(id = 3)]
    value: Option<Value>,
    #[thrift(id = 4, default = 5)]
    retries: i32,
    #[thrift(id = 5)]
    wrapped: Wrapper<Vec<i32>>,
    #[thrift(id = 6)]
    attrs: BTreeMap<String, Wrapper<bool>>,
}

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
#[thrift(crate = "thrift_renamed", exception)]
struct Failure {
    #[thrift(id = 1)]
    message: String,
}

mod no_prelude {
    #![no_implicit_prelude]

    // Only what is imported here is in scope: no `Option`, `String`, `Vec`, `Result`,
    // `Default`, `Some`, `Ok`, `Box`, `Into`, `ToString`...
    use ::core::clone::Clone;
    use ::core::cmp::PartialEq;
    use ::core::default::Default;
    use ::core::fmt::Debug;
    use ::core::marker::Copy;
    use ::core::option::Option;
    use ::std::boxed::Box;
    use ::std::string::String;
    use ::std::vec::Vec;
    use ::thrift_renamed::{ThriftArbitrary, ThriftEnum, ThriftStruct, ThriftUnion};

    #[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Default)]
    #[thrift(closed)]
    #[thrift(crate = "::thrift_renamed")]
    pub enum Kind {
        #[default]
        Leaf = 0,
        Node = 1,
    }

    #[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Default)]
    #[thrift(crate = "::thrift_renamed")]
    #[repr(i32)]
    pub enum Open {
        #[default]
        Known = 1,
        #[thrift(unknown)]
        Other(i32),
    }

    #[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
    #[thrift(closed)]
    #[thrift(crate = "::thrift_renamed")]
    pub enum Label {
        #[thrift(id = 1)]
        Name(String),
        #[thrift(id = 2)]
        Id(i64),
    }

    #[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
    #[thrift(crate = "::thrift_renamed")]
    pub struct Node<'a, T: Default> {
        #[thrift(id = 1, required)]
        pub kind: Kind,
        #[thrift(id = 2)]
        pub label: Option<Label>,
        #[thrift(id = 3)]
        pub children: Vec<Node<'a, T>>,
        #[thrift(id = 4)]
        pub next: Option<Box<Node<'a, T>>>,
        #[thrift(id = 5, default = 9)]
        pub weight: i32,
        #[thrift(id = 6)]
        pub text: &'a str,
        #[thrift(id = 7)]
        pub payload: T,
        #[thrift(id = 8)]
        pub open: Open,
    }

    #[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
    #[thrift(crate = "::thrift_renamed", exception)]
    pub struct Oops {
        #[thrift(id = 1)]
        pub code: i32,
    }
}

/// A type written by a declarative macro: its field types come from the macro's caller,
/// the derive attribute from the macro's body, so spans of both hygiene contexts meet.
macro_rules! thrift_struct {
    ($name:ident { $($id:literal => $field:ident: $ty:ty),* $(,)? }) => {
        #[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
        #[thrift(crate = "thrift_renamed")]
        struct $name {
            $(#[thrift(id = $id)] $field: $ty,)*
        }
    };
}

thrift_struct!(Generated { 1 => count: i32, 2 => names: Vec<String>, 3 => maybe: Option<bool> });

/// Encodes at the exact length and decodes back to an equal value.
fn roundtrip<'a, P: Protocol, T>(value: &T, buf: &'a mut Vec<u8>) -> T
where
    T: thrift_renamed::Encode + thrift_renamed::Decode<'a> + PartialEq + std::fmt::Debug,
{
    value.encode::<P, _>(buf);
    assert_eq!(buf.len(), value.encoded_len::<P>());
    let back: T = thrift_renamed::from_slice::<P, T>(buf).unwrap();
    assert_eq!(&back, value);
    back
}

fn record() -> Record<'static> {
    Record {
        name: "n",
        level: Level::Other(77),
        value: Some(Value::Text("t".into())),
        retries: 0,
        wrapped: Wrapper { inner: vec![1, 2] },
        attrs: [("a".to_string(), Wrapper { inner: true })].into(),
    }
}

#[test]
fn derives_work_with_a_renamed_runtime() {
    roundtrip::<Binary, _>(&record(), &mut Vec::new());
    roundtrip::<Compact, _>(&record(), &mut Vec::new());
    roundtrip::<Compact, _>(&Value::Number(-1), &mut Vec::new());
    roundtrip::<Binary, _>(&Failure { message: "m".into() }, &mut Vec::new());
    let error: Box<dyn std::error::Error> = Box::new(Failure::default());
    assert!(!error.to_string().is_empty());
    let idl = Idl::new().add::<Record<'_>>().render();
    assert!(idl.contains("struct Renamed {"), "{idl}");
}

#[test]
fn derives_work_without_the_prelude() {
    use no_prelude::{Kind, Label, Node, Oops, Open};
    let leaf = Node { kind: Kind::Leaf, text: "leaf", payload: 1i64, ..Node::default() };
    let node = Node {
        kind: Kind::Node,
        label: Some(Label::Name("root".into())),
        children: vec![leaf.clone(), Node { label: Some(Label::Id(3)), ..leaf.clone() }],
        next: Some(Box::new(leaf)),
        weight: -1,
        text: "root",
        payload: 2,
        open: Open::Other(12),
    };
    roundtrip::<Binary, _>(&node, &mut Vec::new());
    roundtrip::<Compact, _>(&node, &mut Vec::new());
    roundtrip::<Compact, _>(&Oops { code: 4 }, &mut Vec::new());
    // The `default = 9` expression applies when the field is absent.
    let empty_with_kind = thrift_renamed::to_vec::<Binary, _>(&Wrapper { inner: 0i32 });
    let decoded: Node<'_, i64> = thrift_renamed::from_slice::<Binary, _>(&empty_with_kind).unwrap();
    assert_eq!((decoded.kind, decoded.weight), (Kind::Leaf, 9));
    let error: Box<dyn std::error::Error + Send + Sync> = Box::new(Oops { code: 1 });
    assert!(error.to_string().contains('1'));
}

#[test]
fn arbitrary_values_roundtrip_with_a_renamed_runtime_without_the_prelude() {
    thrift_renamed::testing::check_roundtrips_borrowed::<Record<'static>>();
    thrift_renamed::testing::check_roundtrips_borrowed::<no_prelude::Node<'static, i64>>();
    thrift_renamed::testing::check_roundtrips::<Generated>();
}

#[test]
fn derives_work_on_types_from_a_declarative_macro() {
    let x = Generated { count: 3, names: vec!["a".into()], maybe: Some(false) };
    roundtrip::<Binary, _>(&x, &mut Vec::new());
    roundtrip::<Compact, _>(&x, &mut Vec::new());
}
