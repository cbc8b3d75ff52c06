use thrift_core::ThriftEnum;

#[derive(ThriftEnum, Clone, Copy)]
enum Color {
    Red = 1,
    Green,
    Blue = 3,
}

fn main() {}
