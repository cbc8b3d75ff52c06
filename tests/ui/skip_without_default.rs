//! A skipped field is built with `Default::default()`, which its type must have.
use thrift_core::ThriftStruct;

struct Handle;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    #[thrift(skip)]
    handle: Handle,
}

fn main() {}
