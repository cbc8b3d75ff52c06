use thrift_core::{ThriftStruct, ThriftUnion};

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    // Not on the wire, so no id.
    #[thrift(id = 2, skip)]
    cache: Vec<u8>,
}

#[derive(ThriftUnion)]
#[thrift(closed)]
enum Shape {
    #[thrift(id = 1, skip)]
    Circle(f64),
}

fn main() {}
