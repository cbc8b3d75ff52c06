//! An enum must say what a newer peer's values become.
use thrift_core::ThriftEnum;

#[derive(ThriftEnum, Clone, Copy)]
enum Color {
    Red = 1,
    Green = 2,
}

fn main() {}
