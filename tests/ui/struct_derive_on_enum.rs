use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
enum Color {
    Red = 1,
}

fn main() {}
