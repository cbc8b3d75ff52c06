//! Derive a struct, encode it in both protocols, print the bytes, decode them back.
//!
//! Run with `cargo run -p thrift-core --example quickstart`.

use std::collections::BTreeMap;

use bytes::Bytes;
use thrift_core::{Binary, Compact, Idl, Protocol, ThriftEnum, ThriftStruct, ThriftUnion};

#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[thrift(closed)]
enum Mood {
    #[default]
    Calm = 1,
    Cheerful = 2,
}

#[derive(ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum Greeting {
    #[thrift(id = 1)]
    Text(String),
    #[thrift(id = 2)]
    Wave(i32),
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "HelloRequest")]
struct HelloRequest<'a> {
    /// Borrowed from the input: no copy.
    #[thrift(id = 1, required)]
    name: &'a str,
    #[thrift(id = 2)]
    message: Option<String>,
    /// A refcounted slice of the input buffer: no copy.
    #[thrift(id = 3)]
    trace: Bytes,
    #[thrift(id = 4)]
    mood: Mood,
    #[thrift(id = 5)]
    greeting: Option<Greeting>,
    #[thrift(id = 6)]
    tags: BTreeMap<String, i64>,
    #[thrift(id = 7)]
    urgent: bool,
}

fn show<P: Protocol>(request: &HelloRequest<'_>) {
    let bytes = Bytes::from(thrift_core::to_vec::<P, _>(request));
    println!("{:>7} ({:>3} bytes): {}", P::NAME, bytes.len(), hex(&bytes));
    let back: HelloRequest<'_> = thrift_core::from_bytes::<P, _>(&bytes).expect("decodes what it encoded");
    assert_eq!(&back, request);
    // Zero-copy: the decoded `trace` points into the encoded buffer.
    assert!(bytes.as_ptr_range().contains(&back.trace.as_ptr()));
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

fn main() {
    let request = HelloRequest {
        name: "world",
        message: Some("hi there".into()),
        trace: Bytes::from_static(b"\x01\x02\x03"),
        mood: Mood::Cheerful,
        greeting: Some(Greeting::Wave(3)),
        tags: [("answer".to_string(), 42)].into(),
        urgent: true,
    };
    println!("{request:?}\n");
    show::<Binary>(&request);
    show::<Compact>(&request);
    println!("\nThe same types as Thrift IDL:\n");
    print!("{}", Idl::new().add::<HelloRequest<'_>>().render());
}
