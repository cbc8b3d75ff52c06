use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1, default = 5)]
    retries: Option<i32>,
}

fn main() {}
