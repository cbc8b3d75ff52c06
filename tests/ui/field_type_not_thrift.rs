use thrift_core::ThriftStruct;

/// A user type with no derive: it implements none of the traits.
#[derive(Default)]
struct Plain {
    value: i32,
}

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    #[thrift(id = 2)]
    plain: Plain,
}

fn main() {}
