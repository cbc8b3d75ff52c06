//! The compact protocol's fast path for the walker: its tokens read straight from the
//! bytes, for [`crate::walk::fast`]'s driver.

use super::{elem_type, from_compact_type, unzigzag32};
use crate::protocol::Compact;
use crate::walk::fast::{list_frame, map_frame, open, string_end, FieldStep, Val, Wire};
use crate::walk::{Bounds, Frame};
use crate::wire::TType;

/// The compact protocol's tokens, for the fast path.
pub(crate) struct CompactWire;

/// The end of a varint at `at` shorter than `max` bytes (its type's full length) and its
/// value, or `None` when it is cut short or of full length or longer (deferred: the careful
/// path tells which, and whether a full-length one's last byte fits its type).
#[inline(always)]
fn varint(buf: &[u8], at: usize, max: usize) -> Option<(usize, u64)> {
    let mut v = 0u64;
    for k in 0..max - 1 {
        let b = *buf.get(at + k)?;
        v |= ((b & 0x7f) as u64) << (7 * k);
        if b & 0x80 == 0 {
            return Some((at + k + 1, v));
        }
    }
    None
}

/// The end of a varint at `at` shorter than `max` bytes, or `None` as for [`varint`]. With 8
/// bytes in hand it finds the end without a branch per byte.
#[inline(always)]
fn varint_end(buf: &[u8], at: usize, max: usize) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if let Some(Ok(word)) = buf.get(at..at + 8).map(<[u8; 8]>::try_from) {
        let ends = !u64::from_le_bytes(word) & HIGH;
        let len = (ends.trailing_zeros() / 8) as usize + 1;
        if ends != 0 && len < max {
            return Some(at + len);
        }
    }
    varint(buf, at, max).map(|(end, _)| end)
}

impl Wire for CompactWire {
    type P = Compact;

    #[inline(always)]
    fn field(buf: &[u8], pos: usize, last_id: i16, bounds: &Bounds, can_open: bool) -> FieldStep {
        let Some(&b) = buf.get(pos) else { return FieldStep::Defer };
        // A STOP type nibble ends the struct whatever the delta, as core reads it.
        if b & 0x0f == 0 {
            return FieldStep::Stop(pos + 1);
        }
        let delta = b >> 4;
        if delta == 0 {
            // The long form (a zigzag varint id) is rare: leave it to the careful path.
            return FieldStep::Defer;
        }
        let (id, at) = (last_id.wrapping_add(delta as i16), pos + 1);
        let ctype = b & 0x0f;
        // The common fields first, with predictable branches rather than a jump through
        // the type: a bool folded into the header (no value byte), varint integers, strings.
        if ctype == 1 || ctype == 2 {
            return FieldStep::Next { id, end: at };
        }
        if ctype == 5 || ctype == 6 {
            let max = if ctype == 5 { 5 } else { 10 };
            return varint_end(buf, at, max).map_or(FieldStep::Defer, |end| FieldStep::Next { id, end });
        }
        if ctype == 8 {
            return Self::scalar(buf, at, TType::String, bounds).in_field(id);
        }
        let step = match from_compact_type(ctype) {
            Some(t) => Self::value(buf, at, t, bounds, can_open),
            None => Val::Defer,
        };
        step.in_field(id)
    }

    #[inline(always)]
    fn scalar(buf: &[u8], at: usize, t: TType, bounds: &Bounds) -> Val {
        match t {
            // Outside a field header a compact bool is a byte: 1 true, 2 (or 0) false.
            TType::Bool => match buf.get(at) {
                Some(0..=2) => Val::Done(at + 1),
                _ => Val::Defer,
            },
            TType::I8 => Val::Done(at + 1),
            TType::Double => Val::Done(at + 8),
            TType::Uuid => Val::Done(at + 16),
            // The core reads an i16 as a 32-bit varint, then checks its range.
            TType::I16 => match varint(buf, at, 5) {
                Some((end, v)) if i16::try_from(unzigzag32(v as u32)).is_ok() => Val::Done(end),
                _ => Val::Defer,
            },
            TType::I32 => varint_end(buf, at, 5).map_or(Val::Defer, Val::Done),
            TType::I64 => varint_end(buf, at, 10).map_or(Val::Defer, Val::Done),
            TType::String => match buf.get(at) {
                // Most strings are shorter than 128 bytes: a one-byte length.
                Some(&len) if len < 0x80 => string_end(len as i64, at + 1, bounds),
                _ => match varint(buf, at, 5) {
                    Some((body, len)) => string_end(len as u32 as i32 as i64, body, bounds),
                    None => Val::Defer,
                },
            },
            _ => Val::Defer,
        }
    }

    #[inline(always)]
    fn value(buf: &[u8], at: usize, t: TType, bounds: &Bounds, can_open: bool) -> Val {
        match t {
            TType::Struct if can_open => Val::Open(Frame::Struct { last_id: 0, any: false }, at),
            TType::List | TType::Set if can_open => {
                let Some(&b) = buf.get(at) else { return Val::Defer };
                let (len, after) = if b >> 4 == 15 {
                    match varint(buf, at + 1, 5) {
                        Some((after, len)) => (len as u32 as i32 as i64, after),
                        None => return Val::Defer,
                    }
                } else {
                    ((b >> 4) as i64, at + 1)
                };
                open::<Self>(buf, list_frame::<Compact>(elem_type(b & 0x0f), len, after, bounds), after, bounds)
            }
            TType::Map if can_open => {
                let Some((kv_at, len)) = varint(buf, at, 5) else { return Val::Defer };
                let len = len as u32 as i32 as i64;
                if len == 0 {
                    return match map_frame::<Compact>(Err(0), Err(0), 0, kv_at, bounds) {
                        Some(_) => Val::Done(kv_at),
                        None => Val::Defer,
                    };
                }
                let Some(&kv) = buf.get(kv_at) else { return Val::Defer };
                open::<Self>(
                    buf,
                    map_frame::<Compact>(elem_type(kv >> 4), elem_type(kv & 0x0f), len, kv_at + 1, bounds),
                    kv_at + 1,
                    bounds,
                )
            }
            TType::Struct | TType::List | TType::Set | TType::Map => Val::Defer,
            _ => Self::scalar(buf, at, t, bounds),
        }
    }

    #[inline(always)]
    fn varint_max(t: TType) -> Option<usize> {
        crate::walk::varint_max_bytes::<Compact>(t)
    }
}
