use thrift_core::ThriftUnion;

#[derive(ThriftUnion)]
#[thrift(closed)]
enum Shape {
    #[thrift(id = 1)]
    Circle(f64),
    Square(f64),
}

fn main() {}
