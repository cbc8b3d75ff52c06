use thrift_core::ThriftEnum;

#[derive(ThriftEnum, Clone, Copy)]
#[thrift(closed)]
enum Color {
    Red = 1,
    Green,
    Blue = 3,
}

fn main() {}
