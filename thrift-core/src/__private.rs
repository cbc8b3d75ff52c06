//! What only generated code calls: the derives' and the service macro's runtime. Not part
//! of the documented API; it changes with the macros, without notice.

pub use crate::__if_idl as if_idl;
pub use crate::__if_proptest as if_proptest;
#[cfg(feature = "idl")]
pub use crate::idl::{
    doc_comment, enum_definition, service_definition, struct_definition, struct_literal, with_idl_type,
    CompositeLiteral, IdlField, IdlMethod, IdlThrows, LiteralOf, NoIdlLiteral, ViaComposite, ViaIdlLiteral,
};
pub use crate::service::{Exceptions, MethodResult, ReturnField, Returns, Void};
#[cfg(feature = "proptest")]
pub use crate::testing::Lazy;
#[cfg(feature = "proptest")]
pub use proptest;

use crate::error::{Error, ErrorKind};
use crate::json::Shape;
use crate::reader::Reader;
use crate::ThriftType;

/// A field type, for the derives' `json_shape`: `(&ShapeOf::<T>(PhantomData)).json_shape()`
/// is `T::json_shape()` when `T` is a Thrift type and `Shape::Plain` otherwise, so a field
/// of a type that is not one is reported once, by `Encode`, not again by the shape.
pub struct ShapeOf<T: ?Sized>(pub core::marker::PhantomData<T>);

/// [`ShapeOf`] of a Thrift type.
pub trait ShapeOfThrift {
    /// The type's shape.
    fn json_shape(&self) -> Shape;
}

impl<T: ThriftType + ?Sized> ShapeOfThrift for ShapeOf<T> {
    #[inline]
    fn json_shape(&self) -> Shape {
        T::json_shape()
    }
}

/// [`ShapeOf`] of any other type (one autoref further, so taken only when `T` is not a
/// Thrift type).
pub trait ShapeOfOther {
    /// `Shape::Plain`.
    fn json_shape(&self) -> Shape;
}

impl<T: ?Sized> ShapeOfOther for &ShapeOf<T> {
    #[inline]
    fn json_shape(&self) -> Shape {
        Shape::Plain
    }
}

/// The IDL name of one instantiation of a generic type: `Page` with `[Item]` is `Page_Item`,
/// with `[list<string>]` `Page_list_string`. IDL has no generics, so each instantiation is
/// its own definition.
///
/// ```
/// use thrift_core::__private::instantiation_name;
/// assert_eq!(instantiation_name("Page", &["map<string, i64>".into()]), "Page_map_string_i64");
/// ```
#[cfg(feature = "idl")]
pub fn instantiation_name(name: &str, params: &[String]) -> String {
    let mut out = String::from(name);
    for param in params {
        out.push('_');
        let mut last_was_sep = false;
        for c in param.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                out.push(c);
                last_was_sep = false;
            } else if !last_was_sep {
                out.push('_');
                last_was_sep = true;
            }
        }
        while out.ends_with('_') {
            out.pop();
        }
    }
    out
}

/// The error for a required field absent from the input.
#[cold]
pub fn missing_field(container: &'static str, name: &'static str, id: i16) -> Error {
    Error::missing_field(container, name, id)
}

/// A `with` field's wire slot: `None`, typed as the value `encode` returns and `decode`
/// takes. Taking both functions makes them agree on that type at compile time, so what one
/// peer writes the other reads.
#[inline]
pub fn with_slot<'a, T: 'a, W, E: std::fmt::Display>(
    _encode: fn(&'a T) -> W,
    _decode: fn(W) -> Result<T, E>,
) -> Option<W> {
    None
}

/// The result of a `with` field's `decode`, its error an
/// [`ErrorKind::InvalidData`] at the reader's position.
#[cold]
pub fn with_error<E: std::fmt::Display>(error: E, r: &Reader<'_>) -> Error {
    r.error(ErrorKind::InvalidData(error.to_string()))
}

/// The strategy of a `with` field: generated wire values its `decode` accepts.
#[cfg(feature = "proptest")]
pub fn with_strategy<W, T, E>(
    sizes: crate::testing::Sizes,
    decode: fn(W) -> Result<T, E>,
) -> proptest::strategy::BoxedStrategy<T>
where
    W: crate::testing::ThriftArbitrary,
    T: std::fmt::Debug + 'static,
    E: 'static,
{
    use proptest::strategy::Strategy;
    W::arbitrary_with(sizes).prop_filter_map(WITH_REFUSED, move |w| decode(w).ok()).boxed()
}

/// [`with_strategy`] for an optional field: sometimes `None`.
#[cfg(feature = "proptest")]
pub fn with_optional_strategy<W, T, E>(
    sizes: crate::testing::Sizes,
    decode: fn(W) -> Result<T, E>,
) -> proptest::strategy::BoxedStrategy<Option<T>>
where
    W: crate::testing::ThriftArbitrary,
    T: std::fmt::Debug + 'static,
    E: 'static,
{
    use proptest::strategy::Strategy;
    crate::testing::optional::<W>(sizes)
        .prop_filter_map(WITH_REFUSED, move |w| match w {
            None => Some(None),
            Some(w) => decode(w).ok().map(Some),
        })
        .boxed()
}

#[cfg(feature = "proptest")]
const WITH_REFUSED: &str = "the field's `decode` refused the generated wire value";
