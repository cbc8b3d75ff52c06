//! A literal default must convert into the field's type.
use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1, default = "three")]
    count: i32,
    #[thrift(id = 2, default = [1, 2])]
    name: String,
}

fn main() {}
