use thrift_core::ThriftStruct;

// `display = false` is for exceptions.
#[derive(ThriftStruct)]
#[thrift(display = false)]
struct Request {
    #[thrift(id = 1)]
    name: String,
}

// An exception that asks for no derived Display must write one.
#[derive(ThriftStruct, Debug)]
#[thrift(exception, display = false)]
struct NotFound {
    #[thrift(id = 1)]
    key: String,
}

fn main() {}
