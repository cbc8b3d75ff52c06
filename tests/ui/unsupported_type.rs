use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    #[thrift(id = 2)]
    count: u32,
}

fn main() {}
