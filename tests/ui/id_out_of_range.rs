use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    #[thrift(id = 40000)]
    count: i32,
    #[thrift(id = -32769)]
    label: String,
}

fn main() {}
