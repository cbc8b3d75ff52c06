use thrift_core::ThriftUnion;

#[derive(ThriftUnion)]
#[thrift(closed)]
enum Shape {
    #[thrift(id = 1)]
    Circle(f64),
    #[thrift(id = 2)]
    Empty,
    #[thrift(id = 3)]
    Pair(i32, i32),
    #[thrift(id = 4)]
    Named { name: String },
}

fn main() {}
