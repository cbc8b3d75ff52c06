//! The wire shape of RPC results: `success` at field 0 and each declared exception at its
//! own id, as Apache's generated `method_result` structs have it.
//!
//! The service macro builds each method's result type from these parts:
//! `MethodResult<Returns<T>, E>` for a method returning `T`, and
//! `MethodResult<Void, E>` for a `void` one, where `E` is the method's error type:
//! an `exception` struct, a `ThriftUnion` of exceptions, [`ApplicationException`] (no
//! declared exceptions; the error goes back as a `TApplicationException`), or
//! [`NoException`].

use bytes::BufMut;

use crate::app_exception::ApplicationException;
use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::{FieldHeader, Protocol};
use crate::reader::Reader;
use crate::structs::{StructDecoder, StructEncoder, StructSizer};
use crate::wire::TType;

/// The declared exceptions of a method: written as fields of its result struct.
///
/// Implemented by the derives for `#[thrift(exception)]` structs (one field, id 1, named
/// `err`) and for `ThriftUnion` enums (one field per variant, at the variant's id).
pub trait Exceptions: Sized {
    /// Writes this exception as its field of a result struct.
    fn write_fields<P: Protocol, B: BufMut + ?Sized>(&self, s: &mut StructEncoder<'_, P, B>);
    /// Counts what [`Exceptions::write_fields`] writes.
    fn size_fields<P: Protocol>(&self, s: &mut StructSizer<P>);
    /// Reads `field` if it is one of the declared exceptions (`Ok(None)` if its id is not).
    fn read_field<'de, P: Protocol>(
        s: &mut StructDecoder<P>,
        r: &mut Reader<'de>,
        field: FieldHeader,
    ) -> Result<Option<Self>>;
    /// `Some` when this error is not a declared exception but must be sent as a
    /// `TApplicationException` message instead.
    fn as_application_exception(&self) -> Option<&ApplicationException> {
        None
    }
    /// The JSON shape of result-struct field `id` if it is one of these exceptions (see
    /// [`ThriftType::json_shape`]).
    #[doc(hidden)]
    fn json_field_shape(_id: i16) -> crate::json::Shape {
        crate::json::Shape::Plain
    }
}

/// The error type of a method that declares no exceptions and cannot fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoException {}

impl std::fmt::Display for NoException {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {}
    }
}

impl std::error::Error for NoException {}

impl Exceptions for NoException {
    fn write_fields<P: Protocol, B: BufMut + ?Sized>(&self, _: &mut StructEncoder<'_, P, B>) {
        match *self {}
    }
    fn size_fields<P: Protocol>(&self, _: &mut StructSizer<P>) {
        match *self {}
    }
    fn read_field<'de, P: Protocol>(
        _: &mut StructDecoder<P>,
        _: &mut Reader<'de>,
        _: FieldHeader,
    ) -> Result<Option<Self>> {
        Ok(None)
    }
}

/// A method without declared exceptions whose handler may still fail: its error goes back
/// as a `TApplicationException` message.
impl Exceptions for ApplicationException {
    fn write_fields<P: Protocol, B: BufMut + ?Sized>(&self, _: &mut StructEncoder<'_, P, B>) {}
    fn size_fields<P: Protocol>(&self, _: &mut StructSizer<P>) {}
    fn read_field<'de, P: Protocol>(
        _: &mut StructDecoder<P>,
        _: &mut Reader<'de>,
        _: FieldHeader,
    ) -> Result<Option<Self>> {
        Ok(None)
    }
    fn as_application_exception(&self) -> Option<&ApplicationException> {
        Some(self)
    }
}

/// A method's declared exceptions `E`, or a `TApplicationException` for a failure that is
/// none of them.
///
/// With `E` alone a handler can only throw what its method declares; with
/// `OrApplication<E>` as the error type it can also fail the way Apache's servers do for an
/// unexpected error, with a `TApplicationException` message. The IDL is `E`'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrApplication<E> {
    /// One of the declared exceptions, sent in the result struct.
    Declared(E),
    /// Sent as an `EXCEPTION` message instead of a reply.
    Application(ApplicationException),
}

impl<E: Exceptions> Exceptions for OrApplication<E> {
    fn write_fields<P: Protocol, B: BufMut + ?Sized>(&self, s: &mut StructEncoder<'_, P, B>) {
        match self {
            OrApplication::Declared(e) => e.write_fields(s),
            // Never in a result struct: `as_application_exception` makes the server send it
            // as an EXCEPTION message.
            OrApplication::Application(_) => {}
        }
    }

    fn size_fields<P: Protocol>(&self, s: &mut StructSizer<P>) {
        match self {
            OrApplication::Declared(e) => e.size_fields(s),
            OrApplication::Application(_) => {}
        }
    }

    fn read_field<'de, P: Protocol>(
        s: &mut StructDecoder<P>,
        r: &mut Reader<'de>,
        field: FieldHeader,
    ) -> Result<Option<Self>> {
        Ok(E::read_field(s, r, field)?.map(OrApplication::Declared))
    }

    fn json_field_shape(id: i16) -> crate::json::Shape {
        E::json_field_shape(id)
    }

    fn as_application_exception(&self) -> Option<&ApplicationException> {
        match self {
            OrApplication::Declared(e) => e.as_application_exception(),
            OrApplication::Application(a) => Some(a),
        }
    }
}

/// How a method's success value sits in its result struct.
pub trait ReturnField: Sized {
    /// What the handler returns and the client gets: `T`, or `()` for `void`.
    type Value;
    /// Wraps a handler's value.
    fn from_value(value: Self::Value) -> Self;
    /// Unwraps a decoded value.
    fn into_value(self) -> Self::Value;
    /// Writes the success value (field 0), if any.
    fn write_field<P: Protocol, B: BufMut + ?Sized>(&self, s: &mut StructEncoder<'_, P, B>);
    /// Counts what [`ReturnField::write_field`] writes.
    fn size_field<P: Protocol>(&self, s: &mut StructSizer<P>);
    /// Reads field 0 into `slot`.
    fn read_field<'de, P: Protocol>(
        s: &mut StructDecoder<P>,
        r: &mut Reader<'de>,
        field: FieldHeader,
        slot: &mut Option<Self>,
    ) -> Result<()>;
    /// The value when the result struct has no success field: `Some` only for `void`.
    fn absent() -> Option<Self>;
    /// The JSON shape of the success value (see [`ThriftType::json_shape`]).
    #[doc(hidden)]
    fn json_shape() -> crate::json::Shape {
        crate::json::Shape::Plain
    }
}

/// The success value of a method returning `T`.
#[derive(Clone, Debug, PartialEq)]
pub struct Returns<T>(pub T);

/// The success of a `void` method: no field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Void;

impl<T: Encode + for<'de> Decode<'de>> ReturnField for Returns<T> {
    type Value = T;
    fn from_value(value: T) -> Self {
        Returns(value)
    }
    fn into_value(self) -> T {
        self.0
    }
    fn write_field<P: Protocol, B: BufMut + ?Sized>(&self, s: &mut StructEncoder<'_, P, B>) {
        s.field(0, &self.0);
    }
    fn size_field<P: Protocol>(&self, s: &mut StructSizer<P>) {
        s.field(0, &self.0);
    }
    fn read_field<'de, P: Protocol>(
        s: &mut StructDecoder<P>,
        r: &mut Reader<'de>,
        field: FieldHeader,
        slot: &mut Option<Self>,
    ) -> Result<()> {
        let mut value: Option<T> = None;
        s.read(r, field, &mut value)?;
        if let Some(v) = value {
            *slot = Some(Returns(v));
        }
        Ok(())
    }
    fn absent() -> Option<Self> {
        None
    }
    fn json_shape() -> crate::json::Shape {
        T::json_shape()
    }
}

impl ReturnField for Void {
    type Value = ();
    fn from_value((): ()) -> Self {
        Void
    }
    fn into_value(self) {}
    fn write_field<P: Protocol, B: BufMut + ?Sized>(&self, _: &mut StructEncoder<'_, P, B>) {}
    fn size_field<P: Protocol>(&self, _: &mut StructSizer<P>) {}
    fn read_field<'de, P: Protocol>(
        s: &mut StructDecoder<P>,
        r: &mut Reader<'de>,
        field: FieldHeader,
        _: &mut Option<Self>,
    ) -> Result<()> {
        s.skip(r, field)
    }
    fn absent() -> Option<Self> {
        Some(Void)
    }
}

/// A method's result struct: the success value at field 0 or one declared exception.
///
/// ```
/// use thrift_core::__private::{MethodResult, Returns};
/// use thrift_core::{Binary, NoException};
/// let ok: MethodResult<Returns<i32>, NoException> = MethodResult::Ok(Returns(7));
/// let bytes = thrift_core::to_vec::<Binary, _>(&ok);
/// // field 0: i32 7, stop
/// assert_eq!(bytes, [0x08, 0x00, 0x00, 0, 0, 0, 7, 0x00]);
/// let back: MethodResult<Returns<i32>, NoException> = thrift_core::from_slice::<Binary, _>(&bytes).unwrap();
/// assert_eq!(back.into_result().unwrap(), Returns(7));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum MethodResult<R, E> {
    /// The success value.
    Ok(R),
    /// A declared exception.
    Err(E),
    /// Neither, in a decoded result of a non-`void` method: Apache's `MISSING_RESULT`.
    Missing,
}

impl<R, E> MethodResult<R, E> {
    /// The handler's outcome as a result struct.
    pub fn from_result(result: std::result::Result<R, E>) -> Self {
        match result {
            Ok(v) => MethodResult::Ok(v),
            Err(e) => MethodResult::Err(e),
        }
    }

    /// The outcome, with `Missing` as `None` in the error position.
    pub fn into_result(self) -> std::result::Result<R, Option<E>> {
        match self {
            MethodResult::Ok(v) => Ok(v),
            MethodResult::Err(e) => Err(Some(e)),
            MethodResult::Missing => Err(None),
        }
    }
}

impl<R: ReturnField, E: Exceptions> ThriftType for MethodResult<R, E> {
    const TTYPE: TType = TType::Struct;
    fn json_shape() -> crate::json::Shape {
        crate::json::Shape::Fields(|id| if id == 0 { R::json_shape() } else { E::json_field_shape(id) })
    }
}

impl<R: ReturnField, E: Exceptions> Encode for MethodResult<R, E> {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        match self {
            MethodResult::Ok(v) => v.write_field(&mut s),
            MethodResult::Err(e) => e.write_fields(&mut s),
            MethodResult::Missing => {}
        }
        s.finish();
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        match self {
            MethodResult::Ok(v) => v.size_field(&mut s),
            MethodResult::Err(e) => e.size_fields(&mut s),
            MethodResult::Missing => {}
        }
        s.finish()
    }
}

impl<'de, R: ReturnField, E: Exceptions> Decode<'de> for MethodResult<R, E> {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let mut success: Option<R> = None;
        let mut error: Option<E> = None;
        let mut s = StructDecoder::<P>::begin(r)?;
        while let Some(field) = s.next_field(r)? {
            if field.id == 0 {
                R::read_field(&mut s, r, field, &mut success).map_err(|e| e.in_field("result", "success", 0))?;
            } else if let Some(e) = E::read_field(&mut s, r, field)? {
                error = Some(e);
            } else {
                s.skip(r, field)?;
            }
        }
        Ok(match (error, success.or_else(R::absent)) {
            (Some(e), _) => MethodResult::Err(e),
            (None, Some(v)) => MethodResult::Ok(v),
            (None, None) => MethodResult::Missing,
        })
    }
}

/// The `throws` of the error types that are not generated: none for these two, and the
/// declared ones for `OrApplication<E>`.
#[cfg(feature = "idl")]
mod idl {
    use super::{ApplicationException, NoException, OrApplication};
    use crate::idl::{Idl, IdlField, IdlThrows};

    impl IdlThrows for NoException {
        fn idl_throws(_: &mut Idl) -> Vec<IdlField> {
            Vec::new()
        }
    }

    impl IdlThrows for ApplicationException {
        fn idl_throws(_: &mut Idl) -> Vec<IdlField> {
            Vec::new()
        }
    }

    impl<E: IdlThrows> IdlThrows for OrApplication<E> {
        fn idl_throws(idl: &mut Idl) -> Vec<IdlField> {
            E::idl_throws(idl)
        }
    }
}
