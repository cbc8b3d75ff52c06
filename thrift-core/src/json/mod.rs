//! Apache Thrift's `TJSONProtocol`, as a transcoder to and from the binary protocol.
//!
//! The JSON protocol is self-describing but for one thing: `string` and `binary` share a wire
//! type, and JSON writes the first as escaped text and the second as base64. Rather than a
//! third [`Protocol`](crate::Protocol) (whose stateless, size-first design JSON's separators
//! and per-container context do not fit), a value is written as JSON by encoding it with
//! [`Binary`] and transcoding the bytes, guided by its type's *shape*: a hidden, static map of
//! which strings inside it are `binary`. Reading does the reverse: JSON is transcoded to
//! binary, which [`Binary`] then decodes. The binary and compact paths never look at shapes.
//!
//! The bytes are Apache's (`lib/java/src/main/java/org/apache/thrift/protocol/TJSONProtocol.java`,
//! `lib/cpp/src/thrift/protocol/TJSONProtocol.cpp` of 0.17):
//!
//! | value | JSON |
//! | --- | --- |
//! | struct | `{"1":{"i32":5},"2":{"str":"x"}}`, fields by their id, each an object of its type tag |
//! | list, set | `["i32",3,1,2,3]`: element tag, count, elements |
//! | map | `["str","i32",2,{"a":1,"b":2}]`: key and value tags, count, an object; numeric keys quoted (`{"1":2}`) |
//! | bool | `1` or `0` |
//! | double | shortest digits as Java's `Double.toString` (`1.0`, `0.1`, `1.0E10`); `"NaN"`, `"Infinity"`, `"-Infinity"` quoted |
//! | string | UTF-8, `"` and `\` escaped, `\b \t \n \f \r`, other control bytes `\u00XX`; `/` and non-ASCII as they are |
//! | binary | standard base64 without padding (padded input is read too) |
//! | message | `[1,"name",type,seqid,{body}]` |
//!
//! The type tags are `tf i8 i16 i32 i64 dbl str rec lst set map` (and `uid` for a `uuid`,
//! as Apache 0.19 writes it). Apache's Python library writes the same structure but doubles
//! as `%.17g` and base64 padded; both are read. Doubles use Rust's shortest round-trip
//! digits, which are Java's but for a few subnormals (Java's `4.9E-324` is `5.0E-324` here);
//! every form reads back to the same bits.
//!
//! A hand-written [`ThriftType`] impl keeps the default shape: its `binary` fields are
//! written as text. Its author overrides the hidden `json_shape` to say otherwise, as the
//! derives do.
//!
//! Strings of fields the type does not declare (unknown fields, as when reading a newer
//! peer's struct) have no shape, so are taken as text: a `binary` unknown field read from
//! JSON keeps its base64 text, which a later binary encoding passes on as a string.
//!
//! ```
//! #[derive(thrift_core::ThriftStruct, Debug, PartialEq)]
//! struct Blob {
//!     #[thrift(id = 1)]
//!     name: String,
//!     #[thrift(id = 2)]
//!     data: Vec<u8>,
//! }
//! let blob = Blob { name: "a/b".into(), data: vec![1, 2, 3] };
//! let json = thrift_core::json::to_vec(&blob);
//! assert_eq!(json, br#"{"1":{"str":"a/b"},"2":{"str":"AQID"}}"#);
//! assert_eq!(thrift_core::json::from_slice::<Blob>(&json).unwrap(), blob);
//! ```

mod read;
mod scan;
#[cfg(test)]
mod tests;
mod write;

use bytes::Bytes;

pub use scan::MessageScanner;

use crate::encode::{DecodeOwned, Encode, ThriftType};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::protocol::{Binary, MessageHeader};
use crate::reader::Reader;

/// Which `string` values inside a type are `binary`, for the JSON transcoder: what
/// [`ThriftType::json_shape`] returns. Generated code and `thrift-core`'s impls build it;
/// it is not part of the documented API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Nothing inside is `binary`: every string is text.
    Plain,
    /// A `binary` value: base64 in JSON.
    Binary,
    /// A list or set of elements of this shape.
    Elems(fn() -> Shape),
    /// A map whose keys and values have these shapes.
    Map(fn() -> Shape, fn() -> Shape),
    /// A struct, union or exception: each field's shape by id (`Plain` for unknown ids).
    Fields(fn(i16) -> Shape),
    /// Bytes already in the target protocol, copied as they are (a pre-encoded body).
    Verbatim,
}

impl Shape {
    /// The elements' shape of a list or set.
    #[inline]
    pub(crate) fn elem(self) -> Shape {
        match self {
            Shape::Elems(f) => f(),
            _ => Shape::Plain,
        }
    }

    /// The keys' and values' shapes of a map.
    #[inline]
    pub(crate) fn entries(self) -> (Shape, Shape) {
        match self {
            Shape::Map(k, v) => (k(), v()),
            _ => (Shape::Plain, Shape::Plain),
        }
    }

    /// Field `id`'s shape in a struct.
    #[inline]
    pub(crate) fn field(self, id: i16) -> Shape {
        match self {
            Shape::Fields(f) => f(id),
            _ => Shape::Plain,
        }
    }

    /// Whether a string of this shape is `binary`.
    #[inline]
    pub(crate) fn is_binary(self) -> bool {
        matches!(self, Shape::Binary)
    }
}

/// The JSON protocol's version, first in every message envelope.
pub const VERSION: i64 = 1;

/// Encodes `value` as JSON.
///
/// ```
/// assert_eq!(thrift_core::json::to_vec(&vec![1i32, 2]), br#"["i32",2,1,2]"#);
/// ```
pub fn to_vec<T: Encode + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    write_value(value, &mut out);
    out
}

/// Appends `value` as JSON to `out`.
pub fn write_value<T: Encode + ?Sized>(value: &T, out: &mut Vec<u8>) {
    let shape = T::json_shape();
    if matches!(shape, Shape::Verbatim) {
        value.encode::<Binary, _>(out);
        return;
    }
    let binary = crate::to_vec::<Binary, T>(value);
    // The bytes are our own encoding of a value of `T`: they cannot fail to transcode.
    if let Err(e) = write::transcode(&binary, T::TTYPE as u8, shape, out) {
        debug_assert!(false, "own binary encoding failed to transcode: {e}");
    }
}

/// Writes a whole message: the envelope `[1,"name",type,seqid,`, the body, and the closing
/// `]`.
///
/// ```
/// use thrift_core::{MessageHeader, MessageType};
/// #[derive(thrift_core::ThriftStruct)]
/// struct AddArgs {
///     #[thrift(id = 1)]
///     a: i32,
/// }
/// let header = MessageHeader { name: "add", kind: MessageType::Call, seqid: 3 };
/// let mut out = Vec::new();
/// thrift_core::json::write_message(&header, &AddArgs { a: 1 }, &mut out);
/// assert_eq!(out, br#"[1,"add",1,3,{"1":{"i32":1}}]"#);
/// ```
pub fn write_message<T: Encode + ?Sized>(header: &MessageHeader<'_>, body: &T, out: &mut Vec<u8>) {
    write_message_begin(header, out);
    write_value(body, out);
    out.push(b']');
}

/// Writes a message envelope up to its body: `[1,"name",type,seqid,`.
pub fn write_message_begin(header: &MessageHeader<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(b"[1,");
    write::string(header.name.as_bytes(), out);
    out.push(b',');
    write::integer(header.kind as u8 as i64, false, out);
    out.push(b',');
    write::integer(header.seqid as i64, false, out);
    out.push(b',');
}

/// Transcodes the JSON of one value of `T`, which must span all of `input`, to the binary
/// protocol, under `limits`.
///
/// ```
/// let binary = thrift_core::json::to_binary::<Vec<u8>>(br#""AQID""#, &Default::default()).unwrap();
/// assert_eq!(binary, [0, 0, 0, 3, 1, 2, 3]);
/// ```
///
/// # Errors
/// Malformed JSON, a value of another type than `T`'s, or a limit broken.
pub fn to_binary<T: ThriftType + ?Sized>(input: &[u8], limits: &Limits) -> Result<Vec<u8>> {
    if input.len() > limits.max_message_len {
        return Err(too_large(input.len(), limits.max_message_len));
    }
    let mut p = read::Parser::new(input, limits);
    let mut out = Vec::with_capacity(input.len().min(64 * 1024));
    p.value(T::TTYPE as u8, T::json_shape(), &mut out)?;
    p.end()?;
    Ok(out)
}

/// Decodes a `T` from JSON spanning all of `input`, under the default [`Limits`].
///
/// ```
/// let v: Vec<String> = thrift_core::json::from_slice(br#"["str",2,"a","\u00e9"]"#).unwrap();
/// assert_eq!(v, ["a", "é"]);
/// ```
///
/// # Errors
/// As [`to_binary`], and any error of decoding the value.
pub fn from_slice<T: DecodeOwned>(input: &[u8]) -> Result<T> {
    from_slice_with_limits(input, &Limits::default())
}

/// [`from_slice`] under `limits`.
pub fn from_slice_with_limits<T: DecodeOwned>(input: &[u8], limits: &Limits) -> Result<T> {
    let binary = Bytes::from(to_binary::<T>(input, limits)?);
    crate::from_bytes_with_limits::<Binary, T>(&binary, limits)
}

/// Reads a message envelope, `[1,"name",type,seqid,`, leaving `r` at the body.
///
/// The name is borrowed from the input, so it must be written without escapes (as method
/// names are: Apache escapes only quotes, backslashes and control characters).
///
/// ```
/// use thrift_core::{MessageType, Reader};
/// let input = br#"[1,"add",1,3,{}]"#;
/// let mut r = Reader::new(input);
/// let header = thrift_core::json::read_message_begin(&mut r).unwrap();
/// assert_eq!((header.name, header.kind, header.seqid), ("add", MessageType::Call, 3));
/// assert_eq!(r.rest(), b"{}]");
/// ```
///
/// # Errors
/// Malformed JSON, another version than 1, an unknown message type, an escaped name.
pub fn read_message_begin<'de>(r: &mut Reader<'de>) -> Result<MessageHeader<'de>> {
    let input = r.input();
    let limits = *r.limits();
    let mut p = read::Parser::new(input, &limits);
    p.set_position(r.position());
    let header = p.message_begin()?;
    r.set_position(p.position());
    Ok(header)
}

/// Decodes a message body, `{...}]` (what follows the envelope), as a `T`, under `limits`.
///
/// # Errors
/// As [`from_slice`], and a missing `]` or bytes after it.
pub fn decode_body<T: DecodeOwned>(body: &[u8], limits: &Limits) -> Result<T> {
    if body.len() > limits.max_message_len {
        return Err(too_large(body.len(), limits.max_message_len));
    }
    let mut p = read::Parser::new(body, limits);
    let mut out = Vec::with_capacity(body.len().min(64 * 1024));
    p.value(T::TTYPE as u8, T::json_shape(), &mut out)?;
    p.message_end()?;
    let binary = Bytes::from(out);
    crate::from_bytes_with_limits::<Binary, T>(&binary, limits)
}

fn too_large(len: usize, max: usize) -> Error {
    Error::at(ErrorKind::LengthTooLarge { len: len as u64, limit: max as u64, what: "max_message_len" }, 0)
}
