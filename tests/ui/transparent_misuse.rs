use thrift_core::{ThriftEnum, ThriftStruct};

#[derive(ThriftStruct)]
#[thrift(transparent)]
struct Pair(i64, i64);

#[derive(ThriftStruct)]
#[thrift(transparent)]
struct UserId {
    #[thrift(id = 1)]
    id: i64,
}

#[derive(ThriftEnum, Clone, Copy)]
#[thrift(transparent, closed)]
enum Color {
    Red = 1,
}

fn main() {}
