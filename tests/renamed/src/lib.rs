//! Derived types whose runtime crate is renamed in Cargo.toml (`thrift_renamed`): the
//! generated code must reach it only through the `crate` attribute.

use thrift_renamed::{ThriftEnum, ThriftStruct, ThriftUnion};

/// A colour.
#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[thrift(closed)]
#[thrift(crate = "thrift_renamed")]
pub enum Color {
    /// Red.
    #[default]
    Red = 1,
    /// Blue.
    Blue = 2,
}

/// A shape.
#[derive(ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
#[thrift(crate = "thrift_renamed")]
pub enum Shape {
    /// A circle of this radius.
    #[thrift(id = 1)]
    Circle(f64),
}

/// Something drawn.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(crate = "thrift_renamed")]
pub struct Drawing<'a> {
    /// Its title, borrowed.
    #[thrift(id = 1, required)]
    pub title: &'a str,
    /// Its colour.
    #[thrift(id = 2)]
    pub color: Color,
    /// Its shape, if any.
    #[thrift(id = 3)]
    pub shape: Option<Shape>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use thrift_renamed::{Binary, Compact, Idl};

    #[test]
    fn derives_work_through_a_renamed_runtime() {
        let drawing = Drawing { title: "sun", color: Color::Blue, shape: Some(Shape::Circle(2.5)) };
        let binary = thrift_renamed::to_vec::<Binary, _>(&drawing);
        assert_eq!(thrift_renamed::from_slice::<Binary, Drawing<'_>>(&binary).unwrap(), drawing);
        let compact = thrift_renamed::to_vec::<Compact, _>(&drawing);
        assert_eq!(thrift_renamed::from_slice::<Compact, Drawing<'_>>(&compact).unwrap(), drawing);
        assert!(Idl::new().add::<Drawing<'_>>().render().contains("struct Drawing {"));
    }
}
