use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
#[thrift(rename_all = "kebab-case")]
struct Request {
    #[thrift(id = 1)]
    user_name: String,
}

fn main() {}
