//! The scanner's fast path: tight per-protocol loops over the bytes that walk every token
//! that is complete and well-formed, and stop at the first one that is not.
//!
//! It never decides anything the careful path (the core's token readers, in the parent
//! module) would decide differently: it accepts exactly the tokens the careful path accepts
//! and opens the same frames, and it leaves every other case (a token cut by the end of the
//! bytes so far, a malformed or over-limit one, a compact long-form field id) to the careful
//! path, which then reports "need more" or the error with its place. So its answer never
//! depends on how the input was chunked; it only makes the common case fast, with no
//! `Result`s, no error values and one bounds check per token.

use std::any::TypeId;

use thrift_core::{Binary, Compact, Limits, Protocol, TType};

use super::Frame;

/// Walks as many complete, well-formed tokens as it can from `pos`, updating `stack`;
/// returns the offset of the first token it left to the careful path (or the message end).
#[inline]
pub(super) fn walk<P: Protocol>(buf: &[u8], pos: usize, stack: &mut Vec<Frame>, limits: &Limits) -> usize {
    // Protocol is sealed with these two implementations; the comparison is a constant.
    if TypeId::of::<P>() == TypeId::of::<Binary>() {
        drive::<BinaryWire>(buf, pos, stack, limits)
    } else if TypeId::of::<P>() == TypeId::of::<Compact>() {
        drive::<CompactWire>(buf, pos, stack, limits)
    } else {
        pos
    }
}

/// One struct field (header and value) as the fast path reads it.
enum FieldStep {
    /// The stop byte; the struct ends before this offset.
    Stop(usize),
    /// A field whose value ends at `end` (which may be past the bytes so far).
    Next { id: i16, end: usize },
    /// A field holding a struct or container to open, whose contents start at `after`.
    Open { id: i16, frame: Frame, after: usize },
    /// Left to the careful path.
    Defer,
}

/// One value as the fast path reads it.
enum Val {
    /// A scalar or string ending at this offset (which may be past the bytes so far).
    Done(usize),
    /// A struct or container to open, whose contents start at the offset.
    Open(Frame, usize),
    /// Left to the careful path.
    Defer,
}

/// What the fast path needs of a protocol.
trait Wire {
    /// The protocol, for the widths the careful path uses too.
    type P: Protocol;
    /// Reads a field (header and value, or header and container header) at `pos`.
    fn field(buf: &[u8], pos: usize, last_id: i16, limits: &Limits, can_open: bool) -> FieldStep;
    /// Reads a value of type `t` at `at`; containers and structs only when `can_open`.
    fn value(buf: &[u8], at: usize, t: TType, limits: &Limits, can_open: bool) -> Val;
    /// Reads a flat value (a scalar or a string) of type `t` at `at`; defers any other.
    fn scalar(buf: &[u8], at: usize, t: TType, limits: &Limits) -> Val;
    /// The longest varint an integer element of type `t` takes, in a varint protocol.
    fn varint_max(t: TType) -> Option<usize>;

    /// Steps over up to `left` strings from `pos`: the end of the complete ones and how many
    /// are left.
    #[inline(always)]
    fn strings(buf: &[u8], mut pos: usize, mut left: usize, limits: &Limits) -> (usize, usize) {
        while left > 0 {
            match Self::scalar(buf, pos, TType::String, limits) {
                Val::Done(end) if end <= buf.len() => {
                    pos = end;
                    left -= 1;
                }
                _ => break,
            }
        }
        (pos, left)
    }
}

/// What one turn of the driver leaves to do to the stack.
enum Step {
    /// The innermost frame is finished.
    Pop,
    /// Open a frame.
    Push(Frame),
    /// Open a struct walked part way in place, then the frame it opened, if any; without
    /// one, the struct stopped at a token left to the careful path.
    Child(Frame, Option<Frame>),
}

/// Runs the frames on the stack until a token is deferred or the message ends.
#[inline]
fn drive<W: Wire>(buf: &[u8], mut pos: usize, stack: &mut Vec<Frame>, limits: &Limits) -> usize {
    let max_depth = limits.max_depth as usize;
    loop {
        // A frame opened now sits at depth len + 1; one opened inside it at len + 2.
        let can_open = stack.len() < max_depth;
        let can_open_inner = stack.len() + 1 < max_depth;
        let Some(top) = stack.last_mut() else { return pos };
        let step = match top {
            Frame::Struct { last_id, any } => loop {
                match fields::<W>(buf, pos, last_id, any, limits, can_open) {
                    Fields::End(end) => {
                        pos = end;
                        break Step::Pop;
                    }
                    // A nested struct: walked in place when it is flat, without a frame.
                    Fields::Open(Frame::Struct { .. }, after) => match child::<W>(buf, after, limits, can_open_inner) {
                        Ok(end) => pos = end,
                        Err((frame, inner, at)) => {
                            pos = at;
                            break Step::Child(frame, inner);
                        }
                    },
                    Fields::Open(frame, after) => {
                        pos = after;
                        break Step::Push(frame);
                    }
                    Fields::Defer(at) => return at,
                }
            },
            Frame::Elems { elem, left } => {
                let elem = *elem;
                if let Some((end, still)) = skip_flat_elems::<W>(buf, pos, elem, *left, limits) {
                    (pos, *left) = (end, still);
                    if still > 0 {
                        return pos;
                    }
                    Step::Pop
                } else if elem == TType::Struct {
                    // Structs walked in place one after another while they are flat.
                    loop {
                        if *left == 0 {
                            break Step::Pop;
                        }
                        if !can_open {
                            return pos;
                        }
                        *left -= 1;
                        match child::<W>(buf, pos, limits, can_open_inner) {
                            Ok(end) => pos = end,
                            Err((frame, inner, at)) => {
                                pos = at;
                                break Step::Child(frame, inner);
                            }
                        }
                    }
                } else {
                    // Containers: those walked whole in place, up to one that opens a frame.
                    loop {
                        if *left == 0 {
                            break Step::Pop;
                        }
                        match W::value(buf, pos, elem, limits, can_open) {
                            Val::Done(end) if end <= buf.len() => {
                                pos = end;
                                *left -= 1;
                            }
                            Val::Open(frame, after) => {
                                pos = after;
                                *left -= 1;
                                break Step::Push(frame);
                            }
                            _ => return pos,
                        }
                    }
                }
            }
            Frame::Entries { key, value, left, at_value } => {
                let (kt, vt) = (*key, *value);
                if let Some((end, still, at)) = skip_flat_entries::<W>(buf, pos, kt, vt, *left, *at_value, limits) {
                    (pos, *left, *at_value) = (end, still, at);
                    if still > 0 || at {
                        return pos;
                    }
                    Step::Pop
                } else {
                    // A struct or container key or value (or both): one at a time.
                    loop {
                        if !*at_value && *left == 0 {
                            break Step::Pop;
                        }
                        let t = if *at_value { vt } else { kt };
                        let frame = match W::value(buf, pos, t, limits, can_open) {
                            Val::Done(end) if end <= buf.len() => {
                                pos = end;
                                None
                            }
                            Val::Open(frame, after) => {
                                pos = after;
                                Some(frame)
                            }
                            _ => return pos,
                        };
                        if *at_value {
                            *at_value = false;
                        } else {
                            *left -= 1;
                            *at_value = true;
                        }
                        if let Some(frame) = frame {
                            break Step::Push(frame);
                        }
                    }
                }
            }
        };
        match step {
            Step::Pop => {
                stack.pop();
            }
            Step::Push(frame) => stack.push(frame),
            Step::Child(frame, inner) => {
                stack.push(frame);
                match inner {
                    Some(inner) => stack.push(inner),
                    None => return pos,
                }
            }
        }
    }
}

/// Where a run of struct fields stopped.
enum Fields {
    /// At the stop byte: the struct ends here.
    End(usize),
    /// At a field holding a struct or container to open, whose contents start here.
    Open(Frame, usize),
    /// At a token left to the careful path.
    Defer(usize),
}

/// Walks the fields of a struct from `pos`, keeping its previous field id up to date.
#[inline(always)]
fn fields<W: Wire>(
    buf: &[u8],
    mut pos: usize,
    last_id: &mut i16,
    any: &mut bool,
    limits: &Limits,
    can_open: bool,
) -> Fields {
    loop {
        match W::field(buf, pos, *last_id, limits, can_open) {
            FieldStep::Next { id, end } if end <= buf.len() => (*last_id, *any, pos) = (id, true, end),
            FieldStep::Stop(after) => return Fields::End(after),
            FieldStep::Open { id, frame, after } => {
                (*last_id, *any) = (id, true);
                return Fields::Open(frame, after);
            }
            _ => return Fields::Defer(pos),
        }
    }
}

/// Walks a struct whose fields start at `at` in place: its end when it is flat and all
/// there; otherwise its frame with the progress made, the frame it opened (if it did) and
/// where to go on.
#[inline(always)]
fn child<W: Wire>(
    buf: &[u8],
    at: usize,
    limits: &Limits,
    can_open: bool,
) -> Result<usize, (Frame, Option<Frame>, usize)> {
    let (mut last_id, mut any) = (0, false);
    match fields::<W>(buf, at, &mut last_id, &mut any, limits, can_open) {
        Fields::End(end) => Ok(end),
        Fields::Open(inner, after) => Err((Frame::Struct { last_id, any }, Some(inner), after)),
        Fields::Defer(pos) => Err((Frame::Struct { last_id, any }, None, pos)),
    }
}

/// Whether values of `t` are flat: walked without opening a frame (scalars and strings).
#[inline(always)]
fn flat(t: TType) -> bool {
    !matches!(t, TType::Struct | TType::List | TType::Set | TType::Map)
}

/// Steps over up to `left` flat elements of a list or set from `pos`, as the careful path
/// would: fixed-width runs in one jump, varints by their last bytes, strings one by one.
/// Returns the end of the complete ones and how many are left, or `None` when the elements
/// are not flat.
#[inline(always)]
fn skip_flat_elems<W: Wire>(
    buf: &[u8],
    mut pos: usize,
    elem: TType,
    mut left: usize,
    limits: &Limits,
) -> Option<(usize, usize)> {
    if let Some(width) = super::fixed_width::<W::P>(elem) {
        let n = left.min((buf.len() - pos) / width);
        return Some((pos + n * width, left - n));
    }
    if let Some(max) = W::varint_max(elem) {
        // A varint of its type's full length stops the run; the careful path hands it to core.
        let (walked, still, _) = super::skip_varints(&buf[pos..], left, max);
        return Some((pos + walked, still));
    }
    if elem == TType::String {
        return Some(W::strings(buf, pos, left, limits));
    }
    if !flat(elem) {
        return None;
    }
    while left > 0 {
        match W::scalar(buf, pos, elem, limits) {
            Val::Done(end) if end <= buf.len() => {
                pos = end;
                left -= 1;
            }
            _ => break,
        }
    }
    Some((pos, left))
}

/// Steps over map entries with flat keys and values from `pos` (`at_value` when the current
/// entry's key is done), as the careful path would. Returns the end of the complete keys and
/// values, the entries left to start and whether a value is due; `None` when not flat.
#[inline(always)]
fn skip_flat_entries<W: Wire>(
    buf: &[u8],
    mut pos: usize,
    key: TType,
    value: TType,
    mut left: usize,
    mut at_value: bool,
    limits: &Limits,
) -> Option<(usize, usize, bool)> {
    if let (Some(kw), Some(vw), false) = (super::fixed_width::<W::P>(key), super::fixed_width::<W::P>(value), at_value)
    {
        let n = left.min((buf.len() - pos) / (kw + vw));
        return Some((pos + n * (kw + vw), left - n, false));
    }
    if !flat(key) || !flat(value) {
        return None;
    }
    loop {
        if !at_value && left == 0 {
            return Some((pos, 0, false));
        }
        let t = if at_value { value } else { key };
        match W::scalar(buf, pos, t, limits) {
            Val::Done(end) if end <= buf.len() => pos = end,
            _ => return Some((pos, left, at_value)),
        }
        if at_value {
            at_value = false;
        } else {
            left -= 1;
            at_value = true;
        }
    }
}

/// Opens a container whose header was read: walks it whole when it is flat and all there
/// (no frame at all), else returns its frame with the progress made.
#[inline(always)]
fn open<W: Wire>(buf: &[u8], frame: Frame, after: usize, limits: &Limits) -> Val {
    match frame {
        Frame::Elems { elem, left } => match skip_flat_elems::<W>(buf, after, elem, left, limits) {
            Some((end, 0)) => Val::Done(end),
            Some((end, still)) => Val::Open(Frame::Elems { elem, left: still }, end),
            None => Val::Open(frame, after),
        },
        Frame::Entries { key, value, left, at_value } => {
            match skip_flat_entries::<W>(buf, after, key, value, left, at_value, limits) {
                Some((end, 0, false)) => Val::Done(end),
                Some((end, left, at_value)) => Val::Open(Frame::Entries { key, value, left, at_value }, end),
                None => Val::Open(frame, after),
            }
        }
        Frame::Struct { .. } => Val::Open(frame, after),
    }
}

/// Checks a declared count as the careful path does (not negative, within the container
/// limit, elements fitting in the message limit) and returns the frame, or `None` to defer.
#[inline]
fn list_frame<P: Protocol>(elem: Option<TType>, len: i64, after: usize, limits: &Limits) -> Option<Frame> {
    if len < 0 || len as u64 > limits.max_container_len as u64 {
        return None;
    }
    if len == 0 {
        return Some(Frame::Elems { elem: TType::Bool, left: 0 });
    }
    let elem = walkable(elem)?;
    fits(after, len as usize, P::min_len(elem), limits)?;
    Some(Frame::Elems { elem, left: len as usize })
}

#[inline]
fn map_frame<P: Protocol>(
    key: Option<TType>,
    value: Option<TType>,
    len: i64,
    after: usize,
    limits: &Limits,
) -> Option<Frame> {
    if len < 0 || len as u64 > limits.max_container_len as u64 {
        return None;
    }
    if len == 0 {
        return Some(Frame::Entries { key: TType::Bool, value: TType::Bool, left: 0, at_value: false });
    }
    let (key, value) = (walkable(key)?, walkable(value)?);
    fits(after, len as usize, P::min_len(key) + P::min_len(value), limits)?;
    Some(Frame::Entries { key, value, left: len as usize, at_value: false })
}

#[inline]
fn walkable(t: Option<TType>) -> Option<TType> {
    t.filter(|t| !matches!(t, TType::Stop | TType::Void))
}

#[inline]
fn fits(after: usize, len: usize, min_elem: usize, limits: &Limits) -> Option<()> {
    // An overflow is "too large" too: the careful path's wider arithmetic errors on it.
    let end = len.checked_mul(min_elem)?.checked_add(after)?;
    (end <= limits.max_message_len).then_some(())
}

/// A string of `len` declared bytes whose body starts at `body`, checked as the core does.
#[inline]
fn string_end(len: i64, body: usize, limits: &Limits) -> Val {
    if len < 0 || len as u64 > limits.max_string_len as u64 {
        return Val::Defer;
    }
    Val::Done(body.saturating_add(len as usize))
}

#[inline]
fn be_i32(buf: &[u8], at: usize) -> Option<i32> {
    let b = buf.get(at..at + 4)?;
    Some(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

struct BinaryWire;

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
    fn field(buf: &[u8], pos: usize, _last_id: i16, limits: &Limits, can_open: bool) -> FieldStep {
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
                Some(len) => match string_end(len as i64, at + 4, limits) {
                    Val::Done(end) => FieldStep::Next { id, end },
                    _ => FieldStep::Defer,
                },
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
        match Self::value(buf, at, ttype, limits, can_open) {
            Val::Done(end) => FieldStep::Next { id, end },
            Val::Open(frame, after) => FieldStep::Open { id, frame, after },
            Val::Defer => FieldStep::Defer,
        }
    }

    #[inline(always)]
    fn scalar(buf: &[u8], at: usize, t: TType, limits: &Limits) -> Val {
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
                Some(len) => string_end(len as i64, at + 4, limits),
                None => Val::Defer,
            },
            _ => Val::Defer,
        }
    }

    #[inline(always)]
    fn value(buf: &[u8], at: usize, t: TType, limits: &Limits, can_open: bool) -> Val {
        match t {
            TType::Struct if can_open => Val::Open(Frame::Struct { last_id: 0, any: false }, at),
            TType::List | TType::Set if can_open => {
                let (Some(&elem), Some(len)) = (buf.get(at), be_i32(buf, at + 1)) else { return Val::Defer };
                match list_frame::<Binary>(TType::from_u8(elem), len as i64, at + 5, limits) {
                    Some(frame) => open::<Self>(buf, frame, at + 5, limits),
                    None => Val::Defer,
                }
            }
            TType::Map if can_open => {
                let (Some(&[k, v]), Some(len)) = (buf.get(at..at + 2), be_i32(buf, at + 2)) else { return Val::Defer };
                match map_frame::<Binary>(TType::from_u8(k), TType::from_u8(v), len as i64, at + 6, limits) {
                    Some(frame) => open::<Self>(buf, frame, at + 6, limits),
                    None => Val::Defer,
                }
            }
            TType::Struct | TType::List | TType::Set | TType::Map => Val::Defer,
            _ => Self::scalar(buf, at, t, limits),
        }
    }

    #[inline(always)]
    fn varint_max(_: TType) -> Option<usize> {
        None
    }
}

struct CompactWire;

/// The compact protocol's type ids, as its field, list and map headers carry them.
#[inline(always)]
fn compact_type(n: u8) -> Option<TType> {
    Some(match n {
        1 | 2 => TType::Bool,
        3 => TType::I8,
        4 => TType::I16,
        5 => TType::I32,
        6 => TType::I64,
        7 => TType::Double,
        8 => TType::String,
        9 => TType::List,
        10 => TType::Set,
        11 => TType::Map,
        12 => TType::Struct,
        13 => TType::Uuid,
        // 0 is STOP: an element type the careful path rejects, so defer.
        _ => return None,
    })
}

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
    fn field(buf: &[u8], pos: usize, last_id: i16, limits: &Limits, can_open: bool) -> FieldStep {
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
            return match Self::scalar(buf, at, TType::String, limits) {
                Val::Done(end) => FieldStep::Next { id, end },
                _ => FieldStep::Defer,
            };
        }
        let step = match compact_type(ctype) {
            Some(t) => Self::value(buf, at, t, limits, can_open),
            None => Val::Defer,
        };
        match step {
            Val::Done(end) => FieldStep::Next { id, end },
            Val::Open(frame, after) => FieldStep::Open { id, frame, after },
            Val::Defer => FieldStep::Defer,
        }
    }

    #[inline(always)]
    fn scalar(buf: &[u8], at: usize, t: TType, limits: &Limits) -> Val {
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
                Some((end, v)) if i16::try_from(unzigzag(v as u32)).is_ok() => Val::Done(end),
                _ => Val::Defer,
            },
            TType::I32 => varint_end(buf, at, 5).map_or(Val::Defer, Val::Done),
            TType::I64 => varint_end(buf, at, 10).map_or(Val::Defer, Val::Done),
            TType::String => match buf.get(at) {
                // Most strings are shorter than 128 bytes: a one-byte length.
                Some(&len) if len < 0x80 => string_end(len as i64, at + 1, limits),
                _ => match varint(buf, at, 5) {
                    Some((body, len)) => string_end(len as u32 as i32 as i64, body, limits),
                    None => Val::Defer,
                },
            },
            _ => Val::Defer,
        }
    }

    #[inline(always)]
    fn value(buf: &[u8], at: usize, t: TType, limits: &Limits, can_open: bool) -> Val {
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
                match list_frame::<Compact>(compact_type(b & 0x0f), len, after, limits) {
                    Some(frame) => open::<Self>(buf, frame, after, limits),
                    None => Val::Defer,
                }
            }
            TType::Map if can_open => {
                let Some((kv_at, len)) = varint(buf, at, 5) else { return Val::Defer };
                let len = len as u32 as i32 as i64;
                if len == 0 {
                    return match map_frame::<Compact>(None, None, 0, kv_at, limits) {
                        Some(_) => Val::Done(kv_at),
                        None => Val::Defer,
                    };
                }
                let Some(&kv) = buf.get(kv_at) else { return Val::Defer };
                match map_frame::<Compact>(compact_type(kv >> 4), compact_type(kv & 0x0f), len, kv_at + 1, limits) {
                    Some(frame) => open::<Self>(buf, frame, kv_at + 1, limits),
                    None => Val::Defer,
                }
            }
            TType::Struct | TType::List | TType::Set | TType::Map => Val::Defer,
            _ => Self::scalar(buf, at, t, limits),
        }
    }

    #[inline(always)]
    fn varint_max(t: TType) -> Option<usize> {
        super::varint_max_bytes::<Compact>(t)
    }
}

#[inline(always)]
const fn unzigzag(n: u32) -> i32 {
    ((n >> 1) as i32) ^ -((n & 1) as i32)
}
