use thrift_core::{ThriftEnum, ThriftUnion};

#[derive(ThriftEnum, Clone, Copy)]
#[thrift(closed)]
#[repr(i32)]
enum Color {
    Red = 1,
    #[thrift(unknown)]
    Other(i32),
}

#[derive(ThriftUnion)]
#[thrift(closed)]
enum Shape {
    #[thrift(id = 1)]
    Circle(f64),
    #[thrift(unknown)]
    Unknown(i16),
}

fn main() {}
