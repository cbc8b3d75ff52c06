//! The walker's fast path, generic over a protocol's [`Wire`]: tight loops over the bytes
//! that walk every token that is complete and well-formed, and stop at the first one that
//! is not. Each protocol implements [`Wire`] beside its readers and reaches this driver
//! through its hidden [`Protocol::walk_fast`] and [`Protocol::skip_fast`].
//!
//! It never decides anything the careful path (the protocol's readers, in the parent
//! module) would decide differently: it accepts exactly the tokens the careful path accepts
//! and opens the same frames, and it leaves every other case (a token cut by the end of the
//! bytes so far, a malformed or over-limit one, a compact long-form field id) to the careful
//! path, which then reports "need more" or the error with its place. So its answer never
//! depends on how the input was chunked; it only makes the common case fast, with no
//! `Result`s, no error values and one bounds check per token.

use super::{Bounds, Frame};
use crate::protocol::Protocol;
use crate::wire::TType;

/// Starts a walk at a value of type `t` (a struct or container) at `pos`, with `stack`
/// empty: walks it whole in place when it is flat and all there, leaving `stack` empty and
/// returning its end; otherwise opens its frames (with the progress made) and returns where
/// the walk goes on, or leaves the header to the careful path (returns `pos`, opens nothing).
#[inline]
pub(crate) fn start<W: Wire>(buf: &[u8], pos: usize, t: TType, stack: &mut Vec<Frame>, b: &Bounds) -> usize {
    let can_open = stack.len() < b.max_frames;
    let can_open_inner = stack.len() + 1 < b.max_frames;
    let to = match t {
        TType::Struct if can_open => match child::<W>(buf, pos, b, can_open_inner) {
            Ok(end) => return end,
            Err((frame, inner, at)) => {
                stack.push(frame);
                stack.extend(inner);
                at
            }
        },
        TType::Struct => return pos,
        _ => match W::value(buf, pos, t, b, can_open) {
            Val::Done(end) if end <= buf.len() => return end,
            Val::Open(frame, after) => {
                stack.push(frame);
                after
            }
            _ => return pos,
        },
    };
    walk::<W>(buf, to, stack, b)
}

/// One struct field (header and value) as the fast path reads it.
pub(crate) enum FieldStep {
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
pub(crate) enum Val {
    /// A scalar or string ending at this offset (which may be past the bytes so far).
    Done(usize),
    /// A struct or container to open, whose contents start at the offset.
    Open(Frame, usize),
    /// Left to the careful path.
    Defer,
}

impl Val {
    /// The step of a field `id` holding this value.
    #[inline(always)]
    pub(crate) fn in_field(self, id: i16) -> FieldStep {
        match self {
            Val::Done(end) => FieldStep::Next { id, end },
            Val::Open(frame, after) => FieldStep::Open { id, frame, after },
            Val::Defer => FieldStep::Defer,
        }
    }
}

/// What the fast path needs of a protocol: its tokens read from bytes, without errors.
pub(crate) trait Wire {
    /// The protocol, for the widths the careful path uses too.
    type P: Protocol;
    /// Reads a field (header and value, or header and container header) at `pos`.
    fn field(buf: &[u8], pos: usize, last_id: i16, b: &Bounds, can_open: bool) -> FieldStep;
    /// Reads a value of type `t` at `at`; containers and structs only when `can_open`.
    fn value(buf: &[u8], at: usize, t: TType, b: &Bounds, can_open: bool) -> Val;
    /// Reads a flat value (a scalar or a string) of type `t` at `at`; defers any other.
    fn scalar(buf: &[u8], at: usize, t: TType, b: &Bounds) -> Val;
    /// The longest varint an integer element of type `t` takes, in a varint protocol.
    fn varint_max(t: TType) -> Option<usize>;

    /// Steps over up to `left` strings from `pos`: the end of the complete ones and how many
    /// are left.
    #[inline(always)]
    fn strings(buf: &[u8], mut pos: usize, mut left: usize, b: &Bounds) -> (usize, usize) {
        while left > 0 {
            match Self::scalar(buf, pos, TType::String, b) {
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

/// Walks as many complete, well-formed tokens as it can from `pos`, running the frames on
/// `stack`; returns the offset of the first token it left to the careful path (or the end
/// of the outermost value, with `stack` empty).
#[inline]
pub(crate) fn walk<W: Wire>(buf: &[u8], mut pos: usize, stack: &mut Vec<Frame>, b: &Bounds) -> usize {
    let max_depth = b.max_frames;
    loop {
        // A frame opened now sits at depth len + 1; one opened inside it at len + 2.
        let can_open = stack.len() < max_depth;
        let can_open_inner = stack.len() + 1 < max_depth;
        let Some(top) = stack.last_mut() else { return pos };
        let step = match top {
            Frame::Struct { last_id, any } => loop {
                match fields::<W>(buf, pos, last_id, any, b, can_open) {
                    Fields::End(end) => {
                        pos = end;
                        break Step::Pop;
                    }
                    // A nested struct: walked in place when it is flat, without a frame.
                    Fields::Open(Frame::Struct { .. }, after) => match child::<W>(buf, after, b, can_open_inner) {
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
                if let Some((end, still)) = skip_flat_elems::<W>(buf, pos, elem, *left, b) {
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
                        match child::<W>(buf, pos, b, can_open_inner) {
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
                        match W::value(buf, pos, elem, b, can_open) {
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
                if let Some((end, still, at)) = skip_flat_entries::<W>(buf, pos, kt, vt, *left, *at_value, b) {
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
                        let frame = match W::value(buf, pos, t, b, can_open) {
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
    b: &Bounds,
    can_open: bool,
) -> Fields {
    loop {
        match W::field(buf, pos, *last_id, b, can_open) {
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
fn child<W: Wire>(buf: &[u8], at: usize, b: &Bounds, can_open: bool) -> Result<usize, (Frame, Option<Frame>, usize)> {
    let (mut last_id, mut any) = (0, false);
    match fields::<W>(buf, at, &mut last_id, &mut any, b, can_open) {
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
    b: &Bounds,
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
        return Some(W::strings(buf, pos, left, b));
    }
    if !flat(elem) {
        return None;
    }
    while left > 0 {
        match W::scalar(buf, pos, elem, b) {
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
    b: &Bounds,
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
        match W::scalar(buf, pos, t, b) {
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
/// (no frame at all), else returns its frame with the progress made. A header the frame
/// rules refused (`None`) is left to the careful path.
#[inline(always)]
pub(crate) fn open<W: Wire>(buf: &[u8], frame: Option<Frame>, after: usize, b: &Bounds) -> Val {
    let Some(frame) = frame else { return Val::Defer };
    match frame {
        Frame::Elems { elem, left } => match skip_flat_elems::<W>(buf, after, elem, left, b) {
            Some((end, 0)) => Val::Done(end),
            Some((end, still)) => Val::Open(Frame::Elems { elem, left: still }, end),
            None => Val::Open(frame, after),
        },
        Frame::Entries { key, value, left, at_value } => {
            match skip_flat_entries::<W>(buf, after, key, value, left, at_value, b) {
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
pub(crate) fn list_frame<P: Protocol>(elem: Result<TType, u8>, len: i64, after: usize, b: &Bounds) -> Option<Frame> {
    let len = super::count(len, b)?;
    if len == 0 {
        return Some(Frame::Elems { elem: TType::Bool, left: 0 });
    }
    let elem = super::walkable(elem).ok()?;
    super::fits_within(after, len, P::min_len(elem), b.max_end).then_some(Frame::Elems { elem, left: len })
}

#[inline]
pub(crate) fn map_frame<P: Protocol>(
    key: Result<TType, u8>,
    value: Result<TType, u8>,
    len: i64,
    after: usize,
    b: &Bounds,
) -> Option<Frame> {
    let len = super::count(len, b)?;
    if len == 0 {
        return Some(Frame::Entries { key: TType::Bool, value: TType::Bool, left: 0, at_value: false });
    }
    let (key, value) = (super::walkable(key).ok()?, super::walkable(value).ok()?);
    let min = P::min_len(key) + P::min_len(value);
    super::fits_within(after, len, min, b.max_end).then_some(Frame::Entries { key, value, left: len, at_value: false })
}

/// A string of `len` declared bytes whose body starts at `body`, checked as the core does.
#[inline]
pub(crate) fn string_end(len: i64, body: usize, b: &Bounds) -> Val {
    if len < 0 || len as u64 > b.max_string_len as u64 {
        return Val::Defer;
    }
    Val::Done(body.saturating_add(len as usize))
}
