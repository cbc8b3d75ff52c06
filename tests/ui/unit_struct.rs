use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Nothing;

fn main() {}
