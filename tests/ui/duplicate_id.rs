use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    #[thrift(id = 2)]
    count: i32,
    #[thrift(id = 1)]
    label: String,
}

fn main() {}
