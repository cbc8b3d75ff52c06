//! The traits values implement to be written and read: [`ThriftType`], [`Encode`], [`Decode`].

use bytes::BufMut;

use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

/// A Rust type with a Thrift wire type.
///
/// Only the wire: how a type is spelled in IDL is [`IdlType`](crate::IdlType)'s business.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a Thrift type",
    label = "not a Thrift type",
    note = "derive `ThriftStruct`, `ThriftEnum` or `ThriftUnion` for it"
)]
pub trait ThriftType {
    /// The wire type of values of this type.
    const TTYPE: TType;

    /// Which strings inside values of this type are `binary`, for the JSON protocol (see
    /// [`json`](crate::json)); only the JSON transcoder calls it. Not part of the
    /// documented API: the derives and this crate's impls override it, and the default,
    /// every string text, is right for a type with no `binary` inside.
    #[doc(hidden)]
    #[inline]
    fn json_shape() -> crate::json::Shape {
        crate::json::Shape::Plain
    }
}

/// A value that can be written in any [`Protocol`], at an exact, precomputed size.
///
/// ```
/// use thrift_core::{Binary, Compact, Encode};
/// let v = vec![1i32, 2, 3];
/// let mut buf = Vec::new();
/// v.encode::<Compact, _>(&mut buf);
/// assert_eq!(buf.len(), v.encoded_len::<Compact>());
/// assert_eq!(thrift_core::to_vec::<Binary, _>(&v).len(), v.encoded_len::<Binary>());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be encoded as Thrift",
    label = "not a Thrift type",
    note = "derive `ThriftStruct`, `ThriftEnum` or `ThriftUnion` for it"
)]
pub trait Encode: ThriftType {
    /// Writes the value (without a field header).
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B);

    /// The exact number of bytes [`Encode::encode`] writes for protocol `P`.
    fn encoded_len<P: Protocol>(&self) -> usize;

    /// The encoded length of every value of this type, when it is the same for all of them
    /// in protocol `P` (an `i32` in binary, a `double` anywhere). Lets containers size
    /// themselves without visiting each element.
    #[inline]
    fn fixed_len<P: Protocol>() -> Option<usize> {
        None
    }

    /// Writes the value as field `id` of a struct whose previous field was `last_id`.
    #[inline]
    fn encode_field<P: Protocol, B: BufMut + ?Sized>(&self, id: i16, last_id: i16, buf: &mut B) {
        P::write_field_begin(buf, Self::TTYPE, id, last_id);
        self.encode::<P, B>(buf);
    }

    /// The exact number of bytes [`Encode::encode_field`] writes.
    #[inline]
    fn field_len<P: Protocol>(&self, id: i16, last_id: i16) -> usize {
        P::field_begin_len(id, last_id) + self.encoded_len::<P>()
    }

    /// Writes values one after another, as the elements of a list or set are.
    ///
    /// The number types override it to write a run into a small buffer on the stack and
    /// copy that into `buf` at once, instead of paying `buf`'s capacity check and length
    /// update for every byte of every varint.
    ///
    /// ```
    /// use thrift_core::{Compact, Encode};
    /// let mut buf = Vec::new();
    /// i64::encode_seq::<Compact, _>([1, -1, 300].iter(), &mut buf);
    /// assert_eq!(buf, [0x02, 0x01, 0xd8, 0x04]);
    /// ```
    #[inline]
    fn encode_seq<'a, P: Protocol, B: BufMut + ?Sized>(items: impl Iterator<Item = &'a Self>, buf: &mut B)
    where
        Self: 'a,
    {
        for item in items {
            item.encode::<P, B>(buf);
        }
    }
}

/// A value that can be read from a complete message in memory, borrowing from it for `'de`.
///
/// `&'de str`, `&'de [u8]` and `Cow<'de, str>` borrow from the input; `bytes::Bytes`
/// shares the input buffer when the [`Reader`] was built over `Bytes`.
///
/// ```
/// use thrift_core::{Compact, Decode, Reader};
/// let input = [0x09, b'h', b'e', b'l', b'l', b'o', b' ', b'y', b'o', b'u'];
/// let s: &str = Decode::decode::<Compact>(&mut Reader::new(&input)).unwrap();
/// assert_eq!(s, "hello you");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be decoded from Thrift",
    label = "not a Thrift type",
    note = "derive `ThriftStruct`, `ThriftEnum` or `ThriftUnion` for it"
)]
pub trait Decode<'de>: ThriftType + Sized {
    /// Reads a value whose wire type is [`ThriftType::TTYPE`].
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self>;

    /// Appends to `out` the `len` values that follow one another on the wire, as the
    /// elements of a list or set do.
    ///
    /// The number types override it to check the bounds once for the whole run where
    /// their width is fixed (the binary protocol), instead of once per element.
    ///
    /// ```
    /// use thrift_core::{Binary, Decode, Reader};
    /// let mut out = Vec::new();
    /// i32::decode_seq::<Binary>(&mut Reader::new(&[0, 0, 0, 1, 0, 0, 0, 2]), 2, &mut out).unwrap();
    /// assert_eq!(out, [1, 2]);
    /// ```
    #[inline]
    fn decode_seq<P: Protocol>(r: &mut Reader<'de>, len: usize, out: &mut Vec<Self>) -> Result<()> {
        for _ in 0..len {
            out.push(Self::decode::<P>(r)?);
        }
        Ok(())
    }
}

/// A value that decodes without borrowing from its input.
pub trait DecodeOwned: for<'de> Decode<'de> {}
impl<T: for<'de> Decode<'de>> DecodeOwned for T {}
