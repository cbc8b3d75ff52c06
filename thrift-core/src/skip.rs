//! Skipping a value of any type without decoding it, iteratively and within the limits.

use crate::error::{ErrorKind, Result};
use crate::protocol::{ListHeader, MapHeader, Protocol};
use crate::reader::Reader;
use crate::wire::TType;

/// Skips one value of type `ttype`, validating its structure as it goes.
///
/// Nesting is walked with an explicit stack, so hostile depth errors at
/// [`Limits::max_depth`](crate::Limits::max_depth) without touching the call stack, and
/// every declared length is checked against the bytes remaining before it is walked.
///
/// ```
/// use thrift_core::{skip, Binary, Reader, TType};
/// // list<i32> [1, 2], then one more byte
/// let input = [0x08, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0xff];
/// let mut r = Reader::new(&input);
/// skip::<Binary>(&mut r, TType::List).unwrap();
/// assert_eq!(r.position(), 13);
/// ```
pub fn skip<P: Protocol>(r: &mut Reader<'_>, ttype: TType) -> Result<()> {
    match ttype {
        TType::Struct | TType::List | TType::Set | TType::Map => skip_nested::<P>(r, ttype),
        _ => skip_scalar::<P>(r, ttype),
    }
}

#[inline]
fn skip_scalar<P: Protocol>(r: &mut Reader<'_>, ttype: TType) -> Result<()> {
    match ttype {
        TType::Bool => P::read_bool(r).map(drop),
        TType::I8 => r.advance(1),
        TType::I16 => P::read_i16(r).map(drop),
        TType::I32 => P::read_i32(r).map(drop),
        TType::I64 => P::read_i64(r).map(drop),
        TType::Double => r.advance(8),
        TType::String => P::read_binary(r).map(drop),
        TType::Uuid => r.advance(16),
        TType::Stop | TType::Void => Err(r.error(ErrorKind::InvalidType(ttype as u8))),
        TType::Struct | TType::List | TType::Set | TType::Map => unreachable_nested(r, ttype),
    }
}

#[cold]
fn unreachable_nested(r: &Reader<'_>, ttype: TType) -> Result<()> {
    // skip_nested never hands a nested type to skip_scalar; report rather than panic.
    Err(r.error(ErrorKind::InvalidData(format!("internal: {ttype} skipped as a scalar"))))
}

/// One open struct or container while skipping.
enum Frame {
    Struct { last_id: i16 },
    Elems { elem: TType, left: usize },
    Entries { key: TType, value: TType, left: usize, at_value: bool },
}

/// Walks one nested value; the stack holds the open structs and containers.
fn skip_nested<P: Protocol>(r: &mut Reader<'_>, ttype: TType) -> Result<()> {
    let base = r.depth();
    let mut stack: Vec<Frame> = Vec::new();
    let mut next = Some(ttype);
    loop {
        if let Some(t) = next.take() {
            match t {
                TType::Struct => {
                    r.enter()?;
                    stack.push(Frame::Struct { last_id: 0 });
                }
                TType::List | TType::Set => {
                    r.enter()?;
                    let header = P::read_list_begin(r)?;
                    stack.push(open_list::<P>(r, header)?);
                }
                TType::Map => {
                    r.enter()?;
                    let header = P::read_map_begin(r)?;
                    stack.push(open_map::<P>(r, header)?);
                }
                scalar => skip_scalar::<P>(r, scalar)?,
            }
        }
        // Find the next value to skip in the innermost open frame, closing finished ones.
        let Some(top) = stack.last_mut() else {
            debug_assert_eq!(r.depth(), base);
            return Ok(());
        };
        match top {
            Frame::Struct { last_id } => match P::read_field_begin(r, last_id)? {
                Some(field) => next = Some(field.ttype),
                None => close(r, &mut stack),
            },
            Frame::Elems { elem, left } => {
                if *left == 0 {
                    close(r, &mut stack);
                } else {
                    *left -= 1;
                    next = Some(*elem);
                }
            }
            Frame::Entries { key, value, left, at_value } => {
                if *at_value {
                    *at_value = false;
                    next = Some(*value);
                } else if *left == 0 {
                    close(r, &mut stack);
                } else {
                    *left -= 1;
                    *at_value = true;
                    next = Some(*key);
                }
            }
        }
    }
}

#[inline]
fn close(r: &mut Reader<'_>, stack: &mut Vec<Frame>) {
    stack.pop();
    r.leave();
}

/// Validates a declared element type for skipping: any real type but STOP and VOID.
#[inline]
fn walkable(r: &Reader<'_>, declared: Result<TType, u8>) -> Result<TType> {
    match declared {
        Ok(TType::Stop | TType::Void) | Err(_) => {
            let raw = declared.map_or_else(|raw| raw, |t| t as u8);
            Err(r.error(ErrorKind::InvalidType(raw)))
        }
        Ok(t) => Ok(t),
    }
}

fn open_list<P: Protocol>(r: &mut Reader<'_>, header: ListHeader) -> Result<Frame> {
    if r.check_container_len(header.len, 1)? == 0 {
        return Ok(Frame::Elems { elem: TType::Bool, left: 0 });
    }
    let elem = walkable(r, header.elem)?;
    let left = r.check_container_len(header.len, P::min_len(elem))?;
    Ok(Frame::Elems { elem, left })
}

fn open_map<P: Protocol>(r: &mut Reader<'_>, header: MapHeader) -> Result<Frame> {
    if r.check_container_len(header.len, 2)? == 0 {
        return Ok(Frame::Entries { key: TType::Bool, value: TType::Bool, left: 0, at_value: false });
    }
    let key = walkable(r, header.key)?;
    let value = walkable(r, header.value)?;
    let left = r.check_container_len(header.len, P::min_len(key) + P::min_len(value))?;
    Ok(Frame::Entries { key, value, left, at_value: false })
}
