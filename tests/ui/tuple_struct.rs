use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Meters(i32);

fn main() {}
