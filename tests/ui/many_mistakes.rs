//! Every mistake in one type is reported in the same compile.
use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    count: i32,
    #[thrift(id = 1)]
    label: String,
    #[thrift(id = 3)]
    size: u64,
    #[thrift(id = 4, required)]
    nickname: Option<String>,
}

fn main() {}
