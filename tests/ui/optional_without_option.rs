use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1, optional)]
    name: String,
}

fn main() {}
