//! A union must say what a newer peer's members become.
use thrift_core::ThriftUnion;

#[derive(ThriftUnion)]
enum Shape {
    #[thrift(id = 1)]
    Circle(f64),
}

fn main() {}
