use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    count: i32,
}

fn main() {}
