use thrift_core::ThriftStruct;

// `throws(...)` names the field an exception is thrown as.
#[derive(ThriftStruct)]
#[thrift(throws(id = 2, name = "nf"))]
struct Request {
    #[thrift(id = 1)]
    name: String,
}

#[derive(ThriftStruct, Debug)]
#[thrift(exception, throws(name = "list", code = 3))]
struct NotFound {
    #[thrift(id = 1)]
    key: String,
}

#[derive(ThriftStruct, Debug)]
#[thrift(exception, throws(name = "list"))]
struct Gone {
    #[thrift(id = 1)]
    key: String,
}

fn main() {}
