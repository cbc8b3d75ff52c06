use thrift_core::ThriftEnum;

#[derive(ThriftEnum, Clone, Copy)]
#[repr(i32)]
enum Color {
    Red = 1,
    #[thrift(unknown)]
    Other(i64),
}

fn main() {}
