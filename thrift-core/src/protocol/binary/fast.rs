//! The binary protocol's fast path for the walker: its tokens read straight from the bytes,
//! for [`crate::walk::fast`]'s driver.

use crate::protocol::Binary;
use crate::walk::fast::{list_frame, map_frame, open, string_end, FieldStep, Val, Wire};
use crate::walk::{Bounds, Frame};
use crate::wire::TType;

#[inline]
fn be_i32(buf: &[u8], at: usize) -> Option<i32> {
    let b = buf.get(at..at + 4)?;
    Some(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// The binary protocol's tokens, for the fast path.
pub(crate) struct BinaryWire;

/// The width of the binary values that need no check, by type id (0: any other type).
const BINARY_FIXED: [u8; 256] = {
    let mut t = [0u8; 256];
    t[TType::I8 as usize] = 1;
    t[TType::Double as usize] = 8;
    t[TType::I16 as usize] = 2;
    t[TType::I32 as usize] = 4;
    t[TType::I64 as usize] = 8;
    t[TType::Uuid as usize] = 16;
    t
};

impl Wire for BinaryWire {
    type P = Binary;

    #[inline(always)]
    fn field(buf: &[u8], pos: usize, _last_id: i16, bounds: &Bounds, can_open: bool) -> FieldStep {
        let Some(&[t, a, b]) = buf.get(pos..pos + 3) else {
            // Fewer than 3 bytes: a stop byte alone is still a whole token.
            return if buf.get(pos) == Some(&0) { FieldStep::Stop(pos + 1) } else { FieldStep::Defer };
        };
        let (id, at) = (i16::from_be_bytes([a, b]), pos + 3);
        // Most fields are fixed-width scalars: one table load and a predictable branch
        // instead of a jump through the type.
        let width = BINARY_FIXED[t as usize];
        if width != 0 {
            return FieldStep::Next { id, end: at + width as usize };
        }
        // Then strings and bools, the other common fields, without a jump through the type.
        if t == TType::String as u8 {
            return match be_i32(buf, at) {
                Some(len) => string_end(len as i64, at + 4, bounds).in_field(id),
                None => FieldStep::Defer,
            };
        }
        if t == TType::Bool as u8 {
            return match buf.get(at) {
                Some(0 | 1) => FieldStep::Next { id, end: at + 1 },
                _ => FieldStep::Defer,
            };
        }
        if t == 0 {
            return FieldStep::Stop(pos + 1);
        }
        let Some(ttype) = TType::from_u8(t) else { return FieldStep::Defer };
        Self::value(buf, at, ttype, bounds, can_open).in_field(id)
    }

    #[inline(always)]
    fn scalar(buf: &[u8], at: usize, t: TType, bounds: &Bounds) -> Val {
        match t {
            // The core reads a binary bool strictly: 0 or 1.
            TType::Bool => match buf.get(at) {
                Some(0 | 1) => Val::Done(at + 1),
                _ => Val::Defer,
            },
            TType::I8 => Val::Done(at + 1),
            TType::I16 => Val::Done(at + 2),
            TType::I32 => Val::Done(at + 4),
            TType::I64 | TType::Double => Val::Done(at + 8),
            TType::Uuid => Val::Done(at + 16),
            TType::String => match be_i32(buf, at) {
                Some(len) => string_end(len as i64, at + 4, bounds),
                None => Val::Defer,
            },
            _ => Val::Defer,
        }
    }

    #[inline(always)]
    fn value(buf: &[u8], at: usize, t: TType, bounds: &Bounds, can_open: bool) -> Val {
        match t {
            TType::Struct if can_open => Val::Open(Frame::Struct { last_id: 0, any: false }, at),
            TType::List | TType::Set if can_open => {
                let (Some(&elem), Some(len)) = (buf.get(at), be_i32(buf, at + 1)) else { return Val::Defer };
                open::<Self>(
                    buf,
                    list_frame::<Binary>(super::elem_type(elem), len as i64, at + 5, bounds),
                    at + 5,
                    bounds,
                )
            }
            TType::Map if can_open => {
                let (Some(&[k, v]), Some(len)) = (buf.get(at..at + 2), be_i32(buf, at + 2)) else { return Val::Defer };
                open::<Self>(
                    buf,
                    map_frame::<Binary>(super::elem_type(k), super::elem_type(v), len as i64, at + 6, bounds),
                    at + 6,
                    bounds,
                )
            }
            TType::Struct | TType::List | TType::Set | TType::Map => Val::Defer,
            _ => Self::scalar(buf, at, t, bounds),
        }
    }

    #[inline(always)]
    fn varint_max(_: TType) -> Option<usize> {
        None
    }
}
