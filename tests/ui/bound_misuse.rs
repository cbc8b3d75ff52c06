use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
#[thrift(bound = "T Default")]
struct Page<T> {
    #[thrift(id = 1)]
    items: Vec<T>,
}

// Without `bound`, a generic field of default requiredness needs `T: Default`.
#[derive(ThriftStruct)]
struct Holder<T> {
    #[thrift(id = 1)]
    item: T,
}

fn main() {}
