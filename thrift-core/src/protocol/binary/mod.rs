//! Apache Thrift's binary protocol: fixed-width big-endian integers, `i32` lengths.

mod fast;

use bytes::BufMut;

use super::{FieldHeader, ListHeader, MapHeader, MessageHeader, Protocol};
use crate::error::{ErrorKind, Result};
use crate::reader::Reader;
use crate::walk::{fast as walk_fast, Bounds, Frame};
use crate::wire::{MessageType, TType};

/// The strict envelope's version word: `0x8001` in the high half, the message type low.
const VERSION_1: u32 = 0x8001_0000;
const VERSION_MASK: u32 = 0xffff_0000;

/// Apache Thrift's binary protocol (`TBinaryProtocol`).
///
/// Writes the strict envelope, as Apache's libraries do by default; reads strict and
/// non-strict (old-style) envelopes, or only strict ones when the reader's
/// [`Limits::strict_binary_envelope`](crate::Limits::strict_binary_envelope) is on.
///
/// ```
/// use thrift_core::{Binary, Protocol};
/// let mut buf = Vec::new();
/// Binary::write_i32(&mut buf, -2);
/// assert_eq!(buf, [0xff, 0xff, 0xff, 0xfe]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Binary;

#[inline]
fn elem_type(b: u8) -> Result<TType, u8> {
    TType::from_u8(b).ok_or(b)
}

impl Protocol for Binary {
    const FIXED_WIDTH_INTEGERS: bool = true;
    const NAME: &'static str = "binary";
    const ID: u8 = 0;

    #[inline]
    fn min_len(ttype: TType) -> usize {
        match ttype {
            TType::Stop | TType::Void | TType::Bool | TType::I8 | TType::Struct => 1,
            TType::I16 => 2,
            TType::I32 | TType::String => 4,
            TType::I64 | TType::Double => 8,
            TType::List | TType::Set => 5,
            TType::Map => 6,
            TType::Uuid => 16,
        }
    }

    #[inline]
    fn write_bool<B: BufMut + ?Sized>(buf: &mut B, v: bool) {
        buf.put_u8(v as u8);
    }
    #[inline]
    fn write_i8<B: BufMut + ?Sized>(buf: &mut B, v: i8) {
        buf.put_i8(v);
    }
    #[inline]
    fn write_i16<B: BufMut + ?Sized>(buf: &mut B, v: i16) {
        buf.put_i16(v);
    }
    #[inline]
    fn write_i32<B: BufMut + ?Sized>(buf: &mut B, v: i32) {
        buf.put_i32(v);
    }
    #[inline]
    fn write_i64<B: BufMut + ?Sized>(buf: &mut B, v: i64) {
        buf.put_i64(v);
    }
    #[inline]
    fn write_double<B: BufMut + ?Sized>(buf: &mut B, v: f64) {
        buf.put_u64(v.to_bits());
    }
    #[inline]
    fn write_binary<B: BufMut + ?Sized>(buf: &mut B, v: &[u8]) {
        buf.put_i32(v.len() as i32);
        buf.put_slice(v);
    }
    #[inline]
    fn write_field_begin<B: BufMut + ?Sized>(buf: &mut B, ttype: TType, id: i16, _last_id: i16) {
        buf.put_u8(ttype as u8);
        buf.put_i16(id);
    }
    #[inline]
    fn write_bool_field<B: BufMut + ?Sized>(buf: &mut B, id: i16, last_id: i16, v: bool) {
        Self::write_field_begin(buf, TType::Bool, id, last_id);
        buf.put_u8(v as u8);
    }
    #[inline]
    fn write_list_begin<B: BufMut + ?Sized>(buf: &mut B, elem: TType, len: usize) {
        buf.put_u8(elem as u8);
        buf.put_i32(len as i32);
    }
    #[inline]
    fn write_map_begin<B: BufMut + ?Sized>(buf: &mut B, key: TType, value: TType, len: usize) {
        buf.put_u8(key as u8);
        buf.put_u8(value as u8);
        buf.put_i32(len as i32);
    }
    fn write_message_begin<B: BufMut + ?Sized>(buf: &mut B, header: &MessageHeader<'_>) {
        buf.put_u32(VERSION_1 | header.kind as u32);
        Self::write_binary(buf, header.name.as_bytes());
        buf.put_i32(header.seqid);
    }

    #[inline]
    fn i16_len(_: i16) -> usize {
        2
    }
    #[inline]
    fn i32_len(_: i32) -> usize {
        4
    }
    #[inline]
    fn i64_len(_: i64) -> usize {
        8
    }
    #[inline]
    fn binary_len(len: usize) -> usize {
        4 + len
    }
    #[inline]
    fn field_begin_len(_: i16, _: i16) -> usize {
        3
    }
    #[inline]
    fn bool_field_len(_: i16, _: i16) -> usize {
        4
    }
    #[inline]
    fn list_begin_len(_: usize) -> usize {
        5
    }
    #[inline]
    fn map_begin_len(_: usize) -> usize {
        6
    }
    fn message_begin_len(header: &MessageHeader<'_>) -> usize {
        4 + 4 + header.name.len() + 4
    }

    #[inline]
    fn read_bool(r: &mut Reader<'_>) -> Result<bool> {
        match r.read_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(r.error(ErrorKind::InvalidData(format!("bool byte 0x{b:02x}")))),
        }
    }
    #[inline]
    fn read_i8(r: &mut Reader<'_>) -> Result<i8> {
        Ok(r.read_u8()? as i8)
    }
    #[inline]
    fn read_i16(r: &mut Reader<'_>) -> Result<i16> {
        Ok(i16::from_be_bytes(r.read_array()?))
    }
    #[inline]
    fn read_i32(r: &mut Reader<'_>) -> Result<i32> {
        Ok(i32::from_be_bytes(r.read_array()?))
    }
    #[inline]
    fn read_i64(r: &mut Reader<'_>) -> Result<i64> {
        Ok(i64::from_be_bytes(r.read_array()?))
    }
    #[inline]
    fn read_double(r: &mut Reader<'_>) -> Result<f64> {
        Ok(f64::from_bits(u64::from_be_bytes(r.read_array()?)))
    }
    // Always inlined: left to itself LLVM calls it from large derived decoders, about 37
    // instructions a string, and a string decodes in fewer inline (3% of a medium message).
    #[inline(always)]
    fn read_binary<'de>(r: &mut Reader<'de>) -> Result<&'de [u8]> {
        let len = Self::read_i32(r)?;
        let len = r.check_string_len(len as i64)?;
        r.read_slice(len)
    }
    #[inline]
    fn read_field_begin(r: &mut Reader<'_>, last_id: &mut i16) -> Result<Option<FieldHeader>> {
        let b = r.read_u8()?;
        if b == 0 {
            return Ok(None);
        }
        let ttype = match TType::from_u8(b) {
            Some(t) => t,
            None => return Err(r.error_before(1, ErrorKind::InvalidType(b))),
        };
        let id = Self::read_i16(r)?;
        *last_id = id;
        Ok(Some(FieldHeader { ttype, id }))
    }
    #[inline]
    fn read_list_begin(r: &mut Reader<'_>) -> Result<ListHeader> {
        let elem = elem_type(r.read_u8()?);
        let len = Self::read_i32(r)? as i64;
        Ok(ListHeader { elem, len })
    }
    #[inline]
    fn read_map_begin(r: &mut Reader<'_>) -> Result<MapHeader> {
        let key = elem_type(r.read_u8()?);
        let value = elem_type(r.read_u8()?);
        let len = Self::read_i32(r)? as i64;
        Ok(MapHeader { key, value, len })
    }
    fn read_message_begin<'de>(r: &mut Reader<'de>) -> Result<MessageHeader<'de>> {
        let first = Self::read_i32(r)?;
        if first < 0 {
            // Strict: version word, then name, then seqid.
            let word = first as u32;
            if word & VERSION_MASK != VERSION_1 {
                return Err(r.error_before(4, ErrorKind::BadEnvelope("bad binary protocol version")));
            }
            let kind = message_type(r, (word & 0xff) as u8, 4)?;
            let name = Self::read_binary(r)?;
            let name = read_name(r, name)?;
            let seqid = Self::read_i32(r)?;
            Ok(MessageHeader { name, kind, seqid })
        } else {
            // Non-strict (old-style): name length, name, type byte, seqid.
            if r.limits().strict_binary_envelope {
                return Err(r.error_before(4, ErrorKind::NonStrictEnvelope));
            }
            let len = r.check_string_len(first as i64)?;
            let name = r.read_slice(len)?;
            let name = read_name(r, name)?;
            let kind = r.read_u8()?;
            let kind = message_type(r, kind, 1)?;
            let seqid = Self::read_i32(r)?;
            Ok(MessageHeader { name, kind, seqid })
        }
    }

    #[inline]
    fn walk_fast(buf: &[u8], pos: usize, stack: &mut Vec<Frame>, bounds: &Bounds) -> usize {
        walk_fast::walk::<fast::BinaryWire>(buf, pos, stack, bounds)
    }
    #[inline]
    fn skip_fast(buf: &[u8], pos: usize, ttype: TType, stack: &mut Vec<Frame>, bounds: &Bounds) -> usize {
        walk_fast::start::<fast::BinaryWire>(buf, pos, ttype, stack, bounds)
    }
}

/// Decodes a method name, which must be UTF-8.
pub(super) fn read_name<'de>(r: &Reader<'de>, bytes: &'de [u8]) -> Result<&'de str> {
    crate::utf8::to_str(bytes).map_err(|_| r.error_before(bytes.len(), ErrorKind::InvalidUtf8))
}

/// The message type for `v`, or an error pointing `back` bytes before the cursor.
pub(super) fn message_type(r: &Reader<'_>, v: u8, back: usize) -> Result<MessageType> {
    MessageType::from_u8(v).ok_or_else(|| r.error_before(back, ErrorKind::BadEnvelope("invalid message type")))
}
