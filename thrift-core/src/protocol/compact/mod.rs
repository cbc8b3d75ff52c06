//! Apache Thrift's compact protocol: zigzag varints, field-id deltas, folded bools.

mod fast;

use bytes::BufMut;

use super::binary::{message_type, read_name};
use super::{FieldHeader, ListHeader, MapHeader, MessageHeader, Protocol};
use crate::error::{ErrorKind, Result};
use crate::reader::Reader;
use crate::walk::{fast as walk_fast, Bounds, Frame};
use crate::wire::TType;

const PROTOCOL_ID: u8 = 0x82;
const VERSION: u8 = 1;
const VERSION_MASK: u8 = 0x1f;
const TYPE_SHIFT: u8 = 5;

/// Compact type ids, which differ from the binary protocol's.
mod ct {
    pub const BOOLEAN_TRUE: u8 = 1;
    pub const BOOLEAN_FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
    pub const UUID: u8 = 13;
}

/// Apache Thrift's compact protocol (`TCompactProtocol`).
///
/// Reading follows Apache's C++ library where the specification leaves room, and is
/// stricter where Apache would accept garbage:
/// - any field header byte whose type nibble is STOP (`0x00`, but also `0x10` to `0xf0`)
///   ends the struct, as in Apache, which ignores the delta nibble of a STOP;
/// - an `i16` is read as a 32-bit varint, as in Apache, but a value beyond `i16` (or any
///   varint beyond its 32 or 64 bits) is an error, where Apache narrows it;
/// - a bool byte is 1 (true) or 2 (false, which Apache writes), 0 read as false too; Apache
///   reads any byte but 1 as false.
///
/// ```
/// use thrift_core::{Compact, Protocol};
/// let mut buf = Vec::new();
/// Compact::write_i32(&mut buf, -2); // zigzag: 3
/// assert_eq!(buf, [0x03]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Compact;

#[inline]
const fn compact_type(t: TType) -> u8 {
    match t {
        TType::Stop | TType::Void => 0,
        TType::Bool => ct::BOOLEAN_TRUE,
        TType::I8 => ct::BYTE,
        TType::I16 => ct::I16,
        TType::I32 => ct::I32,
        TType::I64 => ct::I64,
        TType::Double => ct::DOUBLE,
        TType::String => ct::BINARY,
        TType::List => ct::LIST,
        TType::Set => ct::SET,
        TType::Map => ct::MAP,
        TType::Struct => ct::STRUCT,
        TType::Uuid => ct::UUID,
    }
}

#[inline]
const fn from_compact_type(b: u8) -> Option<TType> {
    Some(match b {
        0 => TType::Stop,
        ct::BOOLEAN_TRUE | ct::BOOLEAN_FALSE => TType::Bool,
        ct::BYTE => TType::I8,
        ct::I16 => TType::I16,
        ct::I32 => TType::I32,
        ct::I64 => TType::I64,
        ct::DOUBLE => TType::Double,
        ct::BINARY => TType::String,
        ct::LIST => TType::List,
        ct::SET => TType::Set,
        ct::MAP => TType::Map,
        ct::STRUCT => TType::Struct,
        ct::UUID => TType::Uuid,
        _ => return None,
    })
}

#[inline]
fn elem_type(b: u8) -> Result<TType, u8> {
    from_compact_type(b).ok_or(b)
}

#[inline]
const fn zigzag32(n: i32) -> u32 {
    ((n << 1) ^ (n >> 31)) as u32
}

#[inline]
const fn zigzag64(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

#[inline]
fn write_varint<B: BufMut + ?Sized>(buf: &mut B, mut v: u64) {
    // One put per byte. Measured against gathering the bytes first and writing them with
    // fewer, wider puts: on values of mixed lengths the jump on the length costs as much as
    // the loop's exit, and this form inlines best.
    while v >= 0x80 {
        buf.put_u8(v as u8 | 0x80);
        v >>= 7;
    }
    buf.put_u8(v as u8);
}

/// Stores the varint of `v` at the start of `out` (at least ten bytes) and returns its
/// length, without a branch: the ten bytes it could take are built with shifts and stored
/// whole (8 + 2), and the bytes past its length are left for the next value to overwrite.
/// Against [`write_varint`]'s loop, which branches and checks bounds per byte, this cuts a
/// quarter of the large benchmark shape's compact encode (mostly long `i64`s).
#[inline]
fn store_varint(out: &mut [u8], v: u64) -> usize {
    let len = varint_len(v);
    // The low 56 bits as eight 7-bit groups, one per byte: halve 28|28, 14|14, 7|7.
    let mut groups = v & 0x00FF_FFFF_FFFF_FFFF;
    groups = (groups & 0x0000_0000_0FFF_FFFF) | ((groups & 0x00FF_FFFF_F000_0000) << 4);
    groups = (groups & 0x0000_3FFF_0000_3FFF) | ((groups & 0x0FFF_C000_0FFF_C000) << 2);
    groups = (groups & 0x007F_007F_007F_007F) | ((groups & 0x3F80_3F80_3F80_3F80) << 1);
    // A continuation bit on each of the first `len - 1` bytes (the mask is wider than 64
    // bits so that shifting by 64 or 72 is defined).
    let continued = ((1u128 << ((len - 1) * 8)) - 1) as u64 & 0x8080_8080_8080_8080;
    // Bytes 9 and 10: bits 56..62 and bit 63.
    let tail = ((v >> 56) & 0x7F) as u16 | (u16::from(len == 10) << 7) | (((v >> 63) as u16) << 8);
    out[..8].copy_from_slice(&(groups | continued).to_le_bytes());
    out[8..10].copy_from_slice(&tail.to_le_bytes());
    len
}

#[inline]
const fn varint_len(v: u64) -> usize {
    // 1 byte per started group of 7 bits; 0 still takes one byte. `(bits * 9 + 64) / 64`
    // is `bits.div_ceil(7)` for 1..=64 bits, with a multiply by 9 (one `lea`) and a shift.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    (bits * 9 + 64) / 64
}

/// Reads an unsigned varint of at most `MAX_BYTES` bytes whose value must fit in `BITS`
/// bits: 5 bytes and 32 bits, or 10 bytes and 64 bits.
///
/// A varint whose value needs more bits is an error ([`ErrorKind::VarintOverflow`]), not a
/// silent truncation; so is one longer than `MAX_BYTES` ([`ErrorKind::VarintTooLong`]). Both
/// point at the varint's first byte.
// Always inlined: with the separate last byte the compiler otherwise stops inlining it into
// the integer readers, which cost a call and a `Result` in memory per varint (+20% on a
// list of i32, measured by instruction count).
#[inline(always)]
fn read_varint<const MAX_BYTES: usize, const BITS: u32>(r: &mut Reader<'_>) -> Result<u64> {
    // Byte by byte: measured against reading eight bytes at once and finding the end
    // with a mask, which was slower on values of mixed lengths. Only the last byte, which
    // holds the few bits left (4 of a 32-bit value, 1 of a 64-bit one), is checked beyond
    // its continuation bit, so the check costs nothing on shorter varints.
    let mut result = 0u64;
    for i in 0..MAX_BYTES - 1 {
        let b = r.read_u8()?;
        result |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(result);
        }
    }
    let last_bits = BITS - 7 * (MAX_BYTES as u32 - 1);
    let b = r.read_u8()?;
    if b >> last_bits != 0 {
        return Err(last_byte_error(r, MAX_BYTES, BITS, b));
    }
    Ok(result | (b as u64) << (7 * (MAX_BYTES - 1)))
}

/// The error for a varint's last allowed byte `b` that carries more than its type's bits:
/// too long when it continues, out of range otherwise.
#[cold]
#[inline(never)]
fn last_byte_error(r: &Reader<'_>, max_bytes: usize, bits: u32, b: u8) -> crate::error::Error {
    let kind = if b & 0x80 != 0 { ErrorKind::VarintTooLong } else { ErrorKind::VarintOverflow { bits: bits as u8 } };
    r.error_before(max_bytes, kind)
}

/// The field headers [`Compact::read_field_begin`] leaves to a call: a type byte followed by
/// the id in full (a jump of more than 15, or down), a bad type, or the end of the input.
#[inline(never)]
fn read_long_field_begin(r: &mut Reader<'_>, last_id: &mut i16) -> Result<Option<FieldHeader>> {
    let ctype = r.read_u8()? & 0x0f;
    let ttype = match from_compact_type(ctype) {
        Some(TType::Stop) | None => return Err(r.error_before(1, ErrorKind::InvalidType(ctype))),
        Some(t) => t,
    };
    let id = Compact::read_i16(r)?;
    if ttype == TType::Bool {
        r.pending_bool = Some(ctype == ct::BOOLEAN_TRUE);
    }
    *last_id = id;
    Ok(Some(FieldHeader { ttype, id }))
}

/// Reads a 32-bit varint (at most 5 bytes).
#[inline]
fn read_varint32(r: &mut Reader<'_>) -> Result<u32> {
    Ok(read_varint::<5, 32>(r)? as u32)
}

/// Reads a 64-bit varint (at most 10 bytes).
#[inline]
fn read_varint64(r: &mut Reader<'_>) -> Result<u64> {
    read_varint::<10, 64>(r)
}

#[inline]
const fn unzigzag32(n: u32) -> i32 {
    ((n >> 1) as i32) ^ -((n & 1) as i32)
}

#[inline]
const fn unzigzag64(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// Whether a field id can be written as a 4-bit delta from the previous one.
#[inline]
const fn short_delta(id: i16, last_id: i16) -> Option<u8> {
    let delta = id as i32 - last_id as i32;
    if delta > 0 && delta <= 15 {
        Some(delta as u8)
    } else {
        None
    }
}

#[inline]
fn write_field_header<B: BufMut + ?Sized>(buf: &mut B, ctype: u8, id: i16, last_id: i16) {
    match short_delta(id, last_id) {
        Some(delta) => buf.put_u8(delta << 4 | ctype),
        None => {
            buf.put_u8(ctype);
            write_varint(buf, zigzag32(id as i32) as u64);
        }
    }
}

impl Protocol for Compact {
    const FIXED_WIDTH_INTEGERS: bool = false;
    const NAME: &'static str = "compact";
    const ID: u8 = 1;

    #[inline]
    fn min_len(ttype: TType) -> usize {
        match ttype {
            TType::Double => 8,
            TType::Uuid => 16,
            _ => 1,
        }
    }

    #[inline]
    fn write_bool<B: BufMut + ?Sized>(buf: &mut B, v: bool) {
        buf.put_u8(if v { ct::BOOLEAN_TRUE } else { ct::BOOLEAN_FALSE });
    }
    #[inline]
    fn write_i8<B: BufMut + ?Sized>(buf: &mut B, v: i8) {
        buf.put_i8(v);
    }
    #[inline]
    fn write_i16<B: BufMut + ?Sized>(buf: &mut B, v: i16) {
        write_varint(buf, zigzag32(v as i32) as u64);
    }
    #[inline]
    fn write_i32<B: BufMut + ?Sized>(buf: &mut B, v: i32) {
        write_varint(buf, zigzag32(v) as u64);
    }
    #[inline]
    fn write_i64<B: BufMut + ?Sized>(buf: &mut B, v: i64) {
        write_varint(buf, zigzag64(v));
    }
    // A zigzag varint is the same whatever the integer's width.
    #[inline]
    fn store_i16(out: &mut [u8], v: i16) -> usize {
        store_varint(out, zigzag32(v as i32) as u64)
    }
    #[inline]
    fn store_i32(out: &mut [u8], v: i32) -> usize {
        store_varint(out, zigzag32(v) as u64)
    }
    #[inline]
    fn store_i64(out: &mut [u8], v: i64) -> usize {
        store_varint(out, zigzag64(v))
    }
    #[inline]
    fn write_double<B: BufMut + ?Sized>(buf: &mut B, v: f64) {
        buf.put_u64_le(v.to_bits());
    }
    #[inline]
    fn write_binary<B: BufMut + ?Sized>(buf: &mut B, v: &[u8]) {
        write_varint(buf, v.len() as u64);
        buf.put_slice(v);
    }
    #[inline]
    fn write_field_begin<B: BufMut + ?Sized>(buf: &mut B, ttype: TType, id: i16, last_id: i16) {
        write_field_header(buf, compact_type(ttype), id, last_id);
    }
    #[inline]
    fn write_bool_field<B: BufMut + ?Sized>(buf: &mut B, id: i16, last_id: i16, v: bool) {
        let ctype = if v { ct::BOOLEAN_TRUE } else { ct::BOOLEAN_FALSE };
        write_field_header(buf, ctype, id, last_id);
    }
    #[inline]
    fn write_list_begin<B: BufMut + ?Sized>(buf: &mut B, elem: TType, len: usize) {
        let ctype = compact_type(elem);
        if len < 15 {
            buf.put_u8((len as u8) << 4 | ctype);
        } else {
            buf.put_u8(0xf0 | ctype);
            write_varint(buf, len as u64);
        }
    }
    #[inline]
    fn write_map_begin<B: BufMut + ?Sized>(buf: &mut B, key: TType, value: TType, len: usize) {
        if len == 0 {
            buf.put_u8(0);
        } else {
            write_varint(buf, len as u64);
            buf.put_u8(compact_type(key) << 4 | compact_type(value));
        }
    }
    fn write_message_begin<B: BufMut + ?Sized>(buf: &mut B, header: &MessageHeader<'_>) {
        buf.put_u8(PROTOCOL_ID);
        buf.put_u8(VERSION | (header.kind as u8) << TYPE_SHIFT);
        write_varint(buf, header.seqid as u32 as u64);
        Self::write_binary(buf, header.name.as_bytes());
    }

    #[inline]
    fn i16_len(v: i16) -> usize {
        varint_len(zigzag32(v as i32) as u64)
    }
    #[inline]
    fn i32_len(v: i32) -> usize {
        varint_len(zigzag32(v) as u64)
    }
    #[inline]
    fn i64_len(v: i64) -> usize {
        varint_len(zigzag64(v))
    }
    #[inline]
    fn binary_len(len: usize) -> usize {
        varint_len(len as u64) + len
    }
    #[inline]
    fn field_begin_len(id: i16, last_id: i16) -> usize {
        match short_delta(id, last_id) {
            Some(_) => 1,
            None => 1 + Self::i16_len(id),
        }
    }
    #[inline]
    fn bool_field_len(id: i16, last_id: i16) -> usize {
        Self::field_begin_len(id, last_id)
    }
    #[inline]
    fn list_begin_len(len: usize) -> usize {
        if len < 15 {
            1
        } else {
            1 + varint_len(len as u64)
        }
    }
    #[inline]
    fn map_begin_len(len: usize) -> usize {
        if len == 0 {
            1
        } else {
            varint_len(len as u64) + 1
        }
    }
    fn message_begin_len(header: &MessageHeader<'_>) -> usize {
        2 + varint_len(header.seqid as u32 as u64) + Self::binary_len(header.name.len())
    }

    #[inline]
    fn read_bool(r: &mut Reader<'_>) -> Result<bool> {
        if let Some(v) = r.pending_bool.take() {
            return Ok(v);
        }
        match r.read_u8()? {
            ct::BOOLEAN_TRUE => Ok(true),
            // Apache writes 2 for false; the specification's 0 is accepted too.
            0 | ct::BOOLEAN_FALSE => Ok(false),
            b => Err(r.error_before(1, ErrorKind::InvalidData(format!("bool byte 0x{b:02x}")))),
        }
    }
    #[inline]
    fn read_i8(r: &mut Reader<'_>) -> Result<i8> {
        Ok(r.read_u8()? as i8)
    }
    #[inline]
    fn read_i16(r: &mut Reader<'_>) -> Result<i16> {
        // As Apache's readI16: a 32-bit varint. Apache then narrows it; a zigzag value
        // beyond 16 bits (an i16 beyond -32768..=32767) is an error here instead.
        let start = r.position();
        let v = read_varint32(r)?;
        if v > u16::MAX as u32 {
            return Err(r.error_before(r.position() - start, ErrorKind::VarintOverflow { bits: 16 }));
        }
        Ok(unzigzag32(v) as i16)
    }
    // Always inlined, as the field headers: large derived decoders kept the integer
    // readers out of line (1.5% of a Parquet footer's decode).
    #[inline(always)]
    fn read_i32(r: &mut Reader<'_>) -> Result<i32> {
        Ok(unzigzag32(read_varint32(r)?))
    }
    #[inline(always)]
    fn read_i64(r: &mut Reader<'_>) -> Result<i64> {
        Ok(unzigzag64(read_varint64(r)?))
    }
    #[inline]
    fn read_double(r: &mut Reader<'_>) -> Result<f64> {
        Ok(f64::from_bits(u64::from_le_bytes(r.read_array()?)))
    }
    // Always inlined: left to itself LLVM calls it from large derived decoders, about 37
    // instructions a string, and a string decodes in fewer inline (3% of a medium message).
    #[inline(always)]
    fn read_binary<'de>(r: &mut Reader<'de>) -> Result<&'de [u8]> {
        let len = read_varint32(r)? as i32;
        let len = r.check_string_len(len as i64)?;
        r.read_slice(len)
    }
    // Always inlined, and kept short for it: a derived decoder reads one header per field,
    // and out of line each cost a call and a `Result` in memory (about 36 instructions on
    // a Parquet footer's fields, against 12 inline).
    #[inline(always)]
    fn read_field_begin(r: &mut Reader<'_>, last_id: &mut i16) -> Result<Option<FieldHeader>> {
        // Most headers are one byte: a delta from the last id and a type.
        if let Some(b) = r.peek_u8() {
            let (ctype, delta) = (b & 0x0f, b >> 4);
            // A STOP type ends the struct whatever the delta nibble holds, as in Apache's
            // C++ readFieldBegin, which returns on it before looking at the delta.
            if ctype == 0 {
                r.bump(1);
                return Ok(None);
            }
            if let (Some(ttype), true) = (from_compact_type(ctype), delta != 0) {
                r.bump(1);
                if ttype == TType::Bool {
                    r.pending_bool = Some(ctype == ct::BOOLEAN_TRUE);
                }
                let id = last_id.wrapping_add(delta as i16);
                *last_id = id;
                return Ok(Some(FieldHeader { ttype, id }));
            }
        }
        read_long_field_begin(r, last_id)
    }
    #[inline]
    fn read_list_begin(r: &mut Reader<'_>) -> Result<ListHeader> {
        let b = r.read_u8()?;
        let elem = elem_type(b & 0x0f);
        let short = b >> 4;
        let len = if short == 15 { read_varint32(r)? as i32 as i64 } else { short as i64 };
        Ok(ListHeader { elem, len })
    }
    #[inline]
    fn read_map_begin(r: &mut Reader<'_>) -> Result<MapHeader> {
        let len = read_varint32(r)? as i32 as i64;
        if len <= 0 {
            // Empty maps carry no type byte; a negative count is reported as such, not as
            // a missing type byte.
            return Ok(MapHeader { key: Ok(TType::Stop), value: Ok(TType::Stop), len });
        }
        let kv = r.read_u8()?;
        Ok(MapHeader { key: elem_type(kv >> 4), value: elem_type(kv & 0x0f), len })
    }
    fn read_message_begin<'de>(r: &mut Reader<'de>) -> Result<MessageHeader<'de>> {
        if r.read_u8()? != PROTOCOL_ID {
            return Err(r.error_before(1, ErrorKind::BadEnvelope("not the compact protocol id 0x82")));
        }
        let vt = r.read_u8()?;
        if vt & VERSION_MASK != VERSION {
            return Err(r.error_before(1, ErrorKind::BadEnvelope("bad compact protocol version")));
        }
        let kind = message_type(r, vt >> TYPE_SHIFT, 1)?;
        let seqid = read_varint32(r)? as i32;
        let name = Self::read_binary(r)?;
        let name = read_name(r, name)?;
        Ok(MessageHeader { name, kind, seqid })
    }

    #[inline]
    fn walk_fast(buf: &[u8], pos: usize, stack: &mut Vec<Frame>, bounds: &Bounds) -> usize {
        walk_fast::walk::<fast::CompactWire>(buf, pos, stack, bounds)
    }
    #[inline]
    fn skip_fast(buf: &[u8], pos: usize, ttype: TType, stack: &mut Vec<Frame>, bounds: &Bounds) -> usize {
        walk_fast::start::<fast::CompactWire>(buf, pos, ttype, stack, bounds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain definition of a varint, one byte per 7-bit group.
    fn reference(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out
    }

    /// Every length boundary (2^k - 1, 2^k, 2^k + 1) and a spread of other values.
    fn samples() -> impl Iterator<Item = u64> {
        let edges = (0..64).flat_map(|k| {
            let p = 1u64 << k;
            [p - 1, p, p + 1]
        });
        let spread =
            (0..64u32).flat_map(|k| [0x5555_5555_5555_5555u64 >> k, u64::MAX >> k, 0xdead_beef_cafe_f00d >> k]);
        edges.chain(spread).chain([u64::MAX, u64::MAX - 1])
    }

    #[test]
    fn varints_match_the_byte_by_byte_definition() {
        for v in samples() {
            let mut buf = Vec::new();
            write_varint(&mut buf, v);
            assert_eq!(buf, reference(v), "{v:#x}");
            assert_eq!(varint_len(v), buf.len(), "{v:#x}");
            let mut r = Reader::new(&buf);
            assert_eq!(read_varint64(&mut r).unwrap(), v, "{v:#x}");
            assert!(r.is_empty());
        }
    }

    #[test]
    fn stored_varints_match_the_byte_by_byte_definition_and_leave_what_follows() {
        // Samples, and a pseudo-random walk through every length.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let walk = std::iter::repeat_with(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x >> (x % 64)
        });
        for v in samples().chain(walk.take(100_000)) {
            let mut out = [0xAAu8; 12];
            let len = store_varint(&mut out, v);
            assert_eq!(&out[..len], reference(v), "{v:#x}");
            assert_eq!(out[10..], [0xAA; 2], "{v:#x}: stores at most ten bytes");
        }
    }

    #[test]
    fn varints_followed_by_more_input_read_only_their_bytes() {
        for v in samples() {
            let mut buf = reference(v);
            let len = buf.len();
            buf.extend_from_slice(&[0xff; 12]);
            let mut r = Reader::new(&buf);
            assert_eq!(read_varint64(&mut r).unwrap(), v, "{v:#x}");
            assert_eq!(r.position(), len, "{v:#x}");
        }
    }

    #[test]
    fn a_varint_longer_than_its_type_allows_is_an_error() {
        // i32 allows five bytes; six, with or without more input behind them, is too long.
        let six = reference(1 << 35);
        for tail in [&[][..], &[0u8; 8]] {
            let input = [&six[..], tail].concat();
            let err = read_varint32(&mut Reader::new(&input)).unwrap_err();
            assert_eq!((err.kind(), err.offset()), (&ErrorKind::VarintTooLong, Some(0)));
        }
        // Ten continuation bytes never end.
        let err = read_varint64(&mut Reader::new(&[0x80; 12])).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::VarintTooLong);
    }

    #[test]
    fn a_varint_whose_last_byte_carries_more_than_its_type_holds_is_an_error() {
        // Every 32-bit value reads back, and so does every 64-bit one.
        for v in samples() {
            let buf = reference(v);
            let mut r = Reader::new(&buf);
            match u32::try_from(v) {
                Ok(v32) => assert_eq!(read_varint32(&mut r).unwrap(), v32, "{v:#x}"),
                Err(_) => {
                    let err = read_varint32(&mut r).unwrap_err();
                    let expected =
                        if buf.len() > 5 { ErrorKind::VarintTooLong } else { ErrorKind::VarintOverflow { bits: 32 } };
                    assert_eq!((err.kind(), err.offset()), (&expected, Some(0)), "{v:#x}");
                }
            }
        }
        // One bit beyond, on the last byte, with and without padding bytes before it.
        for (input, bits) in [(&[0x80, 0x80, 0x80, 0x80, 0x10][..], 32), (&[0xff, 0xff, 0xff, 0xff, 0x7f], 32)] {
            let err = read_varint32(&mut Reader::new(input)).unwrap_err();
            assert_eq!((err.kind(), err.offset()), (&ErrorKind::VarintOverflow { bits }, Some(0)));
        }
        let mut input = [0x80u8; 10];
        input[9] = 0x02;
        let err = read_varint64(&mut Reader::new(&input)).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (&ErrorKind::VarintOverflow { bits: 64 }, Some(0)));
    }

    #[test]
    fn a_varint_cut_short_is_truncated_at_the_end_of_the_input() {
        let whole = reference(u64::MAX);
        for cut in 0..whole.len() {
            let mut r = Reader::new(&whole[..cut]);
            let err = read_varint64(&mut r).unwrap_err();
            assert_eq!((err.kind(), err.offset()), (&ErrorKind::Truncated { needed: 1, remaining: 0 }, Some(cut)));
        }
    }

    /// One field header: what it reads as, the last id it leaves, the bytes it takes and
    /// the bool it holds for the value.
    fn field_header(input: &[u8], last_id: i16) -> (Option<FieldHeader>, i16, usize, Option<bool>) {
        let mut r = Reader::new(input);
        let mut last = last_id;
        let header = Compact::read_field_begin(&mut r, &mut last).unwrap();
        (header, last, r.position(), r.pending_bool)
    }

    #[test]
    fn field_headers_read_the_same_in_one_byte_and_with_the_id_in_full() {
        let field = |ttype, id| Some(FieldHeader { ttype, id });
        // A delta in the type byte.
        assert_eq!(field_header(&[0x15], 2), (field(TType::I32, 3), 3, 1, None));
        assert_eq!(field_header(&[0xf6, 0xff], 10), (field(TType::I64, 25), 25, 1, None));
        assert_eq!(field_header(&[0x1c], 0), (field(TType::Struct, 1), 1, 1, None));
        assert_eq!(field_header(&[0x11], 0), (field(TType::Bool, 1), 1, 1, Some(true)));
        assert_eq!(field_header(&[0x32], 4), (field(TType::Bool, 7), 7, 1, Some(false)));
        // The id in full after the type byte (zigzag: 40 is 20, 1 is -1).
        assert_eq!(field_header(&[0x05, 0x28], 7), (field(TType::I32, 20), 20, 2, None));
        assert_eq!(field_header(&[0x05, 0x01], 7), (field(TType::I32, -1), -1, 2, None));
        assert_eq!(field_header(&[0x01, 0x02], 5), (field(TType::Bool, 1), 1, 2, Some(true)));
        assert_eq!(field_header(&[0x0d, 0xfe, 0xff, 0x03], 0), (field(TType::Uuid, i16::MAX), i16::MAX, 4, None));
        // A stop ends the struct whatever its delta nibble holds; the last id stays.
        assert_eq!(field_header(&[0x00, 0x15], 3), (None, 3, 1, None));
        assert_eq!(field_header(&[0x70], 3), (None, 3, 1, None));
    }

    #[test]
    fn bad_or_cut_short_field_headers_are_errors_where_they_begin() {
        let error = |input: &[u8]| {
            let err = Compact::read_field_begin(&mut Reader::new(input), &mut 0).unwrap_err();
            (err.kind().clone(), err.offset())
        };
        assert_eq!(error(&[0x1e]), (ErrorKind::InvalidType(14), Some(0)));
        assert_eq!(error(&[0x0f, 0x02]), (ErrorKind::InvalidType(15), Some(0)));
        assert_eq!(error(&[]), (ErrorKind::Truncated { needed: 1, remaining: 0 }, Some(0)));
        assert_eq!(error(&[0x05]), (ErrorKind::Truncated { needed: 1, remaining: 0 }, Some(1)));
        assert_eq!(error(&[0x05, 0x80]), (ErrorKind::Truncated { needed: 1, remaining: 0 }, Some(2)));
        assert_eq!(error(&[0x05, 0x80, 0x80, 0x04]), (ErrorKind::VarintOverflow { bits: 16 }, Some(1)));
    }
}
