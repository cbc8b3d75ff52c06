use thrift_core::ThriftUnion;

#[derive(ThriftUnion)]
enum Shape {
    #[thrift(id = 1)]
    Circle(f64),
    // Holds the field id, an i16, and takes no id of its own.
    #[thrift(id = 2, unknown)]
    Unknown(i32),
}

fn main() {}
