//! The protocol trait and its two implementations, [`Binary`] and [`Compact`].
//!
//! A protocol is a zero-sized type whose associated functions write, size and read the
//! wire's building blocks. Encoders and decoders are generic over it, so every call is
//! resolved at compile time: there are no trait objects on the hot path.

mod binary;
mod compact;

pub use binary::Binary;
pub use compact::Compact;

use bytes::BufMut;

use crate::error::Result;
use crate::reader::Reader;
use crate::walk::{Bounds, Frame};
use crate::wire::{MessageType, TType};

/// The header of a struct field as read from the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldHeader {
    /// The field's wire type.
    pub ttype: TType,
    /// The field id.
    pub id: i16,
}

/// The header of a list or set: element type and declared count, not yet validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListHeader {
    /// The declared element type, or the raw byte when it names no type.
    pub elem: Result<TType, u8>,
    /// The declared element count, possibly negative.
    pub len: i64,
}

/// The header of a map: key and value types and declared count, not yet validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapHeader {
    /// The declared key type, or the raw byte when it names no type.
    pub key: Result<TType, u8>,
    /// The declared value type, or the raw byte when it names no type.
    pub value: Result<TType, u8>,
    /// The declared entry count, possibly negative.
    pub len: i64,
}

/// The envelope of an RPC message: method name, message type and sequence id.
///
/// ```
/// use thrift_core::{Binary, MessageHeader, MessageType, Protocol, Reader};
/// let header = MessageHeader { name: "ping", kind: MessageType::Call, seqid: 7 };
/// let mut buf = Vec::new();
/// Binary::write_message_begin(&mut buf, &header);
/// assert_eq!(buf.len(), Binary::message_begin_len(&header));
/// assert_eq!(Binary::read_message_begin(&mut Reader::new(&buf)).unwrap(), header);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MessageHeader<'a> {
    /// The method name (for the multiplexed protocol, `Service:method`).
    pub name: &'a str,
    /// Call, reply, exception or oneway.
    pub kind: MessageType,
    /// The sequence id that pairs a reply with its call.
    pub seqid: i32,
}

/// A Thrift protocol: how values, headers and envelopes look on the wire.
///
/// Implemented by [`Binary`] and [`Compact`]; sealed, since encoders rely on the exact
/// sizes each function reports.
pub trait Protocol: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// The protocol's name, for messages and benchmarks.
    const NAME: &'static str;
    /// A number of its own for each protocol: what a [`LazyList`](crate::LazyList) keeps of
    /// the protocol its bytes are in, in one byte where the name would take sixteen.
    #[doc(hidden)]
    const ID: u8;
    /// Whether integers take a fixed width (binary) rather than a varint (compact).
    const FIXED_WIDTH_INTEGERS: bool;

    /// The fewest bytes a value of `ttype` takes on the wire (at least 1).
    fn min_len(ttype: TType) -> usize;

    /// Writes a bool outside a field header (in a container, or in binary everywhere).
    fn write_bool<B: BufMut + ?Sized>(buf: &mut B, v: bool);
    /// Writes an `i8`.
    fn write_i8<B: BufMut + ?Sized>(buf: &mut B, v: i8);
    /// Writes an `i16`.
    fn write_i16<B: BufMut + ?Sized>(buf: &mut B, v: i16);
    /// Writes an `i32`.
    fn write_i32<B: BufMut + ?Sized>(buf: &mut B, v: i32);
    /// Writes an `i64`.
    fn write_i64<B: BufMut + ?Sized>(buf: &mut B, v: i64);
    /// Writes a `double`.
    fn write_double<B: BufMut + ?Sized>(buf: &mut B, v: f64);
    /// Stores an `i16` at the start of `out`, which holds at least ten bytes, and returns
    /// its length; bytes past the length may be overwritten. Number sequences encode
    /// through a stack chunk with this (see `encode_seq` in `impls/primitives.rs`).
    #[doc(hidden)]
    #[inline]
    fn store_i16(out: &mut [u8], v: i16) -> usize {
        stored_len(out, |free| Self::write_i16(free, v))
    }
    /// Stores an `i32` as [`store_i16`](Protocol::store_i16) does.
    #[doc(hidden)]
    #[inline]
    fn store_i32(out: &mut [u8], v: i32) -> usize {
        stored_len(out, |free| Self::write_i32(free, v))
    }
    /// Stores an `i64` as [`store_i16`](Protocol::store_i16) does.
    #[doc(hidden)]
    #[inline]
    fn store_i64(out: &mut [u8], v: i64) -> usize {
        stored_len(out, |free| Self::write_i64(free, v))
    }
    /// Writes a length-prefixed `string` or `binary`.
    fn write_binary<B: BufMut + ?Sized>(buf: &mut B, v: &[u8]);
    /// Writes a `uuid`.
    #[inline]
    fn write_uuid<B: BufMut + ?Sized>(buf: &mut B, v: &[u8; 16]) {
        buf.put_slice(v);
    }
    /// Writes the header of field `id`; `last_id` is the previous field's id in this struct
    /// (0 for the first), which the compact protocol uses for deltas.
    fn write_field_begin<B: BufMut + ?Sized>(buf: &mut B, ttype: TType, id: i16, last_id: i16);
    /// Writes a whole bool field (the compact protocol folds the value into the header).
    fn write_bool_field<B: BufMut + ?Sized>(buf: &mut B, id: i16, last_id: i16, v: bool);
    /// Writes the end of a struct's fields.
    #[inline]
    fn write_field_stop<B: BufMut + ?Sized>(buf: &mut B) {
        buf.put_u8(0);
    }
    /// Writes a list or set header.
    fn write_list_begin<B: BufMut + ?Sized>(buf: &mut B, elem: TType, len: usize);
    /// Writes a map header.
    fn write_map_begin<B: BufMut + ?Sized>(buf: &mut B, key: TType, value: TType, len: usize);
    /// Writes a message envelope.
    fn write_message_begin<B: BufMut + ?Sized>(buf: &mut B, header: &MessageHeader<'_>);

    /// Encoded length of an `i16`.
    fn i16_len(v: i16) -> usize;
    /// Encoded length of an `i32`.
    fn i32_len(v: i32) -> usize;
    /// Encoded length of an `i64`.
    fn i64_len(v: i64) -> usize;
    /// Encoded length of a `string` or `binary` of `len` bytes.
    fn binary_len(len: usize) -> usize;
    /// Encoded length of a field header.
    fn field_begin_len(id: i16, last_id: i16) -> usize;
    /// Encoded length of a whole bool field.
    fn bool_field_len(id: i16, last_id: i16) -> usize;
    /// Encoded length of a list or set header.
    fn list_begin_len(len: usize) -> usize;
    /// Encoded length of a map header.
    fn map_begin_len(len: usize) -> usize;
    /// Encoded length of a message envelope.
    fn message_begin_len(header: &MessageHeader<'_>) -> usize;

    /// Reads a bool (taking one folded into the last field header, in compact).
    fn read_bool(r: &mut Reader<'_>) -> Result<bool>;
    /// Reads an `i8`.
    fn read_i8(r: &mut Reader<'_>) -> Result<i8>;
    /// Reads an `i16`.
    fn read_i16(r: &mut Reader<'_>) -> Result<i16>;
    /// Reads an `i32`.
    fn read_i32(r: &mut Reader<'_>) -> Result<i32>;
    /// Reads an `i64`.
    fn read_i64(r: &mut Reader<'_>) -> Result<i64>;
    /// Reads a `double`.
    fn read_double(r: &mut Reader<'_>) -> Result<f64>;
    /// Reads a `string` or `binary`, borrowed from the input, its length checked first.
    fn read_binary<'de>(r: &mut Reader<'de>) -> Result<&'de [u8]>;
    /// Reads a `uuid`.
    #[inline]
    fn read_uuid(r: &mut Reader<'_>) -> Result<[u8; 16]> {
        r.read_array()
    }
    /// Reads a field header, or `None` at the end of the struct. `last_id` is the previous
    /// field's id (0 at the start) and is updated.
    fn read_field_begin(r: &mut Reader<'_>, last_id: &mut i16) -> Result<Option<FieldHeader>>;
    /// Reads a list or set header.
    fn read_list_begin(r: &mut Reader<'_>) -> Result<ListHeader>;
    /// Reads a map header.
    fn read_map_begin(r: &mut Reader<'_>) -> Result<MapHeader>;
    /// Reads a message envelope.
    fn read_message_begin<'de>(r: &mut Reader<'de>) -> Result<MessageHeader<'de>>;

    /// The walker's fast path over the open `stack`: walks every complete, well-formed token
    /// from `pos` and returns the offset of the first other one, for the careful path.
    /// Each protocol's loops sit beside its readers; the walker calls them through here, so
    /// the choice is made at compile time.
    #[doc(hidden)]
    fn walk_fast(buf: &[u8], pos: usize, stack: &mut Vec<Frame>, bounds: &Bounds) -> usize;

    /// The walker's fast path at the start of a struct or container of type `ttype` at
    /// `pos`, with `stack` empty: its end when walked whole in place; else the frames opened
    /// and where to go on, or `pos` with nothing opened to leave it to the careful path.
    #[doc(hidden)]
    fn skip_fast(buf: &[u8], pos: usize, ttype: TType, stack: &mut Vec<Frame>, bounds: &Bounds) -> usize;
}

/// The bytes that `write` puts at the start of `out`.
#[inline]
fn stored_len(out: &mut [u8], write: impl FnOnce(&mut &mut [u8])) -> usize {
    let room = out.len();
    let mut free = out;
    write(&mut free);
    room - free.len()
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Binary {}
    impl Sealed for super::Compact {}
}
