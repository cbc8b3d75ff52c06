//! The one walker over encoded values: steps over a value of any type without decoding it,
//! checking its structure and the limits as it goes.
//!
//! Two callers run it. [`skip`] walks a value in a complete buffer (a struct's unknown
//! field, say), where running out of bytes is an [`ErrorKind::Truncated`] error. The
//! [`Scanner`] walks one unframed message over a buffer that grows between calls, where
//! running out of bytes means "call again with more", and resumes where it stopped.
//!
//! Both keep the same state: the offset of the first token not yet walked and an explicit
//! stack of the open structs and containers ([`Frame`]s), so nesting costs no recursion and
//! resuming costs no re-walk. Each step takes one token: the protocol's fast path
//! ([`Protocol::walk_fast`], tight per-protocol loops beside the protocol's readers) walks
//! every complete, well-formed token it can and stops at the first other one, which the
//! careful path here reads with the protocol's own readers on a [`Reader`], errors on, or
//! finds cut short. The fast path decides nothing the careful path would decide differently
//! (the tests compare them on corrupted messages), so errors and their places come from one
//! place.
//!
//! A token is a field header with its scalar value, a container header, or one value. When
//! one runs past the end of the bytes, the readers say how far it needs to go
//! ([`ErrorKind::Truncated`]); the walk keeps the token's start, so the scanner tries it
//! again only once that many bytes are there. Tokens are a few bytes, except strings, whose
//! bodies are stepped over by length and never re-read.

pub(crate) mod fast;
mod scanner;
#[cfg(test)]
mod tests;

pub use scanner::{Scan, Scanner};

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::protocol::{ListHeader, MapHeader, Protocol};
use crate::reader::Reader;
use crate::wire::TType;

/// One open struct or container of a walk.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Frame {
    /// A struct: the previous field id (compact deltas need it) and whether any field was read.
    Struct {
        /// The id of the last field read (0 before the first).
        last_id: i16,
        /// Whether a field was read.
        any: bool,
    },
    /// A list or set with `left` elements still to walk.
    Elems {
        /// The element type.
        elem: TType,
        /// Elements still to walk.
        left: usize,
    },
    /// A map with `left` entries still to start; `at_value` when the current entry's key is done.
    Entries {
        /// The key type.
        key: TType,
        /// The value type.
        value: TType,
        /// Entries still to start.
        left: usize,
        /// Whether the current entry's key is walked and its value is next.
        at_value: bool,
    },
}

/// The bounds a walk checks, in the form the fast path needs them.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// The most frames the walk may hold: the depth limit less the depth it started at.
    pub max_frames: usize,
    /// The longest string.
    pub max_string_len: usize,
    /// The most elements or entries in one container.
    pub max_container_len: usize,
    /// The offset no declared container may reach past: the end of a complete buffer, or
    /// the message size limit for the scanner.
    pub max_end: usize,
}

/// Why a walk stopped before the value's end.
#[derive(Debug)]
pub(crate) enum Halt {
    /// A run of elements stepped over unread was cut short by the end of the buffer: it
    /// goes on at least `needed` bytes from `at`. No error value is made for it, since the
    /// scanner, fed a few bytes at a time, stops here often; [`Walk::error`] makes one.
    Short {
        /// Where the rest of the run starts (the walk's position).
        at: usize,
        /// The bytes the rest of the run takes at least.
        needed: usize,
        /// The elements' token name.
        what: &'static str,
    },
    /// Any other stop: a token cut short ([`ErrorKind::Truncated`]) or malformed.
    Error(Error),
}

impl From<Error> for Halt {
    #[inline]
    fn from(e: Error) -> Halt {
        Halt::Error(e)
    }
}

/// A walk in progress: where it is, what is open, and what bounds it.
#[derive(Debug)]
pub(crate) struct Walk {
    stack: Vec<Frame>,
    /// Start of the first unfinished token; everything before it is walked.
    pos: usize,
    /// The depth the walk started at (the reader's, for a skip).
    base_depth: usize,
    bounds: Bounds,
    /// Whether the buffer may grow: a container that cannot fit is then beyond the message
    /// size limit rather than beyond the bytes remaining.
    resumable: bool,
    /// Tests compare the fast path against the careful path alone.
    #[cfg(test)]
    pub(crate) careful_only: bool,
}

impl Walk {
    /// A walk from offset `pos`, at `base_depth`, under `limits`, in a complete buffer of
    /// `len` bytes, or in a growing one (`len` is `None`).
    pub(crate) fn new(limits: &Limits, pos: usize, base_depth: usize, len: Option<usize>) -> Walk {
        Walk {
            stack: Vec::new(),
            pos,
            base_depth,
            bounds: Bounds {
                max_frames: (limits.max_depth as usize).saturating_sub(base_depth),
                max_string_len: limits.max_string_len,
                max_container_len: limits.max_container_len,
                max_end: len.unwrap_or(limits.max_message_len),
            },
            resumable: len.is_none(),
            #[cfg(test)]
            careful_only: false,
        }
    }

    /// The offset of the first token not yet walked completely.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// The structs and containers open, counting the depth the walk started at.
    pub(crate) fn depth(&self) -> usize {
        self.base_depth + self.stack.len()
    }

    /// Whether nothing is open.
    pub(crate) fn is_done(&self) -> bool {
        self.stack.is_empty()
    }

    /// Starts over at `pos` with nothing open.
    pub(crate) fn reset(&mut self, pos: usize) {
        self.stack.clear();
        self.pos = pos;
    }

    /// The id of the last field read in the innermost struct.
    pub(crate) fn field_id(&self) -> Option<i16> {
        self.stack.iter().rev().find_map(|f| match *f {
            Frame::Struct { last_id, any } => Some(any.then_some(last_id)),
            _ => None,
        })?
    }

    /// Walks tokens from the walk's position until nothing is open. `r` reads the same
    /// buffer, at the walk's position. A token cut short by the end of the buffer stops it
    /// with [`ErrorKind::Truncated`] or [`Halt::Short`] and leaves the position at its start.
    ///
    /// Always inlined into its two callers (the scanner's step and `skip`): a scan of a
    /// small message, or of one arriving a few bytes at a time, is mostly this call.
    #[inline(always)]
    pub(crate) fn run<P: Protocol>(&mut self, r: &mut Reader<'_>) -> Result<(), Halt> {
        debug_assert_eq!(r.position(), self.pos);
        loop {
            // The fast path takes every complete, well-formed token it can; the careful path
            // below takes the one it stopped at, then hands back.
            #[cfg(test)]
            let to = if self.careful_only {
                self.pos
            } else {
                P::walk_fast(r.input(), self.pos, &mut self.stack, &self.bounds)
            };
            #[cfg(not(test))]
            let to = P::walk_fast(r.input(), self.pos, &mut self.stack, &self.bounds);
            // `to` is within the buffer: the fast path only passes bytes that are there.
            r.set_position(to);
            self.pos = to;
            let Some(&top) = self.stack.last() else { return Ok(()) };
            match top {
                Frame::Struct { last_id, .. } => self.field::<P>(r, last_id)?,
                Frame::Elems { elem, left } => self.elems::<P>(r, elem, left)?,
                Frame::Entries { key, value, left, at_value } => self.entries::<P>(r, key, value, left, at_value)?,
            }
        }
    }

    /// Starts a walk at a nested value of type `t` (a struct or container): reads its
    /// header and opens its frame, after the fast path had a go at the whole value.
    pub(crate) fn start<P: Protocol>(&mut self, r: &mut Reader<'_>, t: TType) -> Result<()> {
        #[cfg(test)]
        let to = if self.careful_only {
            self.pos
        } else {
            P::skip_fast(r.input(), self.pos, t, &mut self.stack, &self.bounds)
        };
        #[cfg(not(test))]
        let to = P::skip_fast(r.input(), self.pos, t, &mut self.stack, &self.bounds);
        if to > self.pos || !self.stack.is_empty() {
            // Walked whole, or opened (and perhaps walked part way) by the fast path.
            r.set_position(to);
            self.pos = to;
            return Ok(());
        }
        let value_at = self.pos;
        let opened = self.value::<P>(r, t, None)?;
        self.pos = r.position();
        if let Some(frame) = opened {
            self.open_at(frame, t, None, value_at)?;
        }
        Ok(())
    }

    /// Opens the frame of a struct whose fields start at the walk's position.
    #[inline]
    pub(crate) fn open_struct(&mut self) -> Result<()> {
        self.open(Frame::Struct { last_id: 0, any: false }, TType::Struct, None)
    }

    /// One field of the innermost struct: header, and its value when that is a scalar or a
    /// container header, as one token.
    #[inline]
    fn field<P: Protocol>(&mut self, r: &mut Reader<'_>, last_id: i16) -> Result<()> {
        let mut id = last_id;
        let header = match P::read_field_begin(r, &mut id) {
            Ok(h) => h,
            Err(e) => return Err(self.fail(e, "field header", None)),
        };
        let Some(header) = header else {
            self.stack.pop();
            self.pos = r.position();
            return Ok(());
        };
        let opened = match header.ttype {
            // Compact folds the value into the header (read_bool takes it); binary has a byte.
            TType::Bool => P::read_bool(r).map(|_| None).map_err(|e| self.fail(e, "bool field", Some(header.id))),
            TType::Stop | TType::Void => {
                let e = Error::at(ErrorKind::InvalidType(header.ttype as u8), self.pos);
                Err(self.fail(e, "field header", Some(header.id)))
            }
            t => self.value::<P>(r, t, Some(header.id)),
        }?;
        if let Some(Frame::Struct { last_id, any }) = self.stack.last_mut() {
            *last_id = id;
            *any = true;
        }
        let value_at = self.pos;
        self.pos = r.position();
        if let Some(frame) = opened {
            self.open_at(frame, header.ttype, Some(header.id), value_at)?;
        }
        Ok(())
    }

    /// Elements of the innermost list or set: fixed-width runs in one jump, varint runs in a
    /// tight loop, anything else one element (one token) at a time.
    #[inline]
    fn elems<P: Protocol>(&mut self, r: &mut Reader<'_>, elem: TType, left: usize) -> Result<(), Halt> {
        if left == 0 {
            self.stack.pop();
            return Ok(());
        }
        if let Some(width) = fixed_width::<P>(elem) {
            let n = left.min(r.remaining() / width);
            // n * width <= remaining, so neither overflows nor fails.
            let _ = r.advance(n * width);
            self.pos = r.position();
            self.set_left(left - n);
            if n < left {
                return Err(Halt::Short { at: self.pos, needed: (left - n).saturating_mul(width), what: elem.name() });
            }
            return Ok(());
        }
        if let Some(max_bytes) = varint_max_bytes::<P>(elem) {
            let rest = r.rest();
            let (walked, still, full_length) = skip_varints(rest, left, max_bytes);
            let _ = r.advance(walked);
            self.pos = r.position();
            self.set_left(still);
            if full_length {
                // A varint of its type's full length (or longer) is the reader's to judge,
                // as one token: its last byte may carry bits beyond the type.
                self.value::<P>(r, elem, None)?;
                self.pos = r.position();
                self.set_left(still - 1);
                return Ok(());
            }
            if still > 0 {
                return Err(Halt::Short { at: self.pos, needed: rest.len() - walked + 1, what: elem.name() });
            }
            return Ok(());
        }
        let value_at = self.pos;
        let opened = self.value::<P>(r, elem, None)?;
        self.pos = r.position();
        self.set_left(left - 1);
        if let Some(frame) = opened {
            self.open_at(frame, elem, None, value_at)?;
        }
        Ok(())
    }

    /// Entries of the innermost map: runs of fixed-width pairs in one jump, else one key or
    /// value at a time.
    #[inline]
    fn entries<P: Protocol>(
        &mut self,
        r: &mut Reader<'_>,
        key: TType,
        value: TType,
        left: usize,
        at_value: bool,
    ) -> Result<(), Halt> {
        if !at_value && left == 0 {
            self.stack.pop();
            return Ok(());
        }
        if !at_value {
            if let (Some(kw), Some(vw)) = (fixed_width::<P>(key), fixed_width::<P>(value)) {
                let width = kw + vw;
                let n = left.min(r.remaining() / width);
                let _ = r.advance(n * width);
                self.pos = r.position();
                if let Some(Frame::Entries { left: l, .. }) = self.stack.last_mut() {
                    *l = left - n;
                }
                if n < left {
                    return Err(Halt::Short {
                        at: self.pos,
                        needed: (left - n).saturating_mul(width),
                        what: "map entry",
                    });
                }
                return Ok(());
            }
        }
        let t = if at_value { value } else { key };
        let value_at = self.pos;
        let opened = self.value::<P>(r, t, None)?;
        self.pos = r.position();
        if let Some(Frame::Entries { left: l, at_value: a, .. }) = self.stack.last_mut() {
            if at_value {
                *a = false;
            } else {
                *l = left - 1;
                *a = true;
            }
        }
        if let Some(frame) = opened {
            self.open_at(frame, t, None, value_at)?;
        }
        Ok(())
    }

    /// Reads one value of type `t` whole when it is a scalar or a string; for a struct or a
    /// container, reads its header and returns the frame to open. `field` is the id of the
    /// field whose header came just before, in the same token.
    #[inline]
    fn value<P: Protocol>(&self, r: &mut Reader<'_>, t: TType, field: Option<i16>) -> Result<Option<Frame>> {
        let start = r.position();
        match t {
            TType::Struct => Ok(Some(Frame::Struct { last_id: 0, any: false })),
            TType::List | TType::Set => {
                let what = if t == TType::Set { "set header" } else { "list header" };
                let header = P::read_list_begin(r).map_err(|e| self.fail(e, what, field))?;
                self.open_list::<P>(header, start, r.position()).map(Some).map_err(|e| self.fail(e, what, field))
            }
            TType::Map => {
                let header = P::read_map_begin(r).map_err(|e| self.fail(e, "map header", field))?;
                self.open_map::<P>(header, start, r.position()).map(Some).map_err(|e| self.fail(e, "map header", field))
            }
            scalar => skip_scalar::<P>(r, scalar).map(|()| None).map_err(|e| self.fail(e, t.name(), field)),
        }
    }

    /// Validates a list or set header read at `start`, whose elements begin at `after`.
    fn open_list<P: Protocol>(&self, h: ListHeader, start: usize, after: usize) -> Result<Frame> {
        let len = self.container_len(h.len, start)?;
        if len == 0 {
            // An empty container is accepted whatever type it declares.
            return Ok(Frame::Elems { elem: TType::Bool, left: 0 });
        }
        let elem = walkable(h.elem).map_err(|raw| Error::at(ErrorKind::InvalidType(raw), start))?;
        self.fits(after, len, P::min_len(elem), start)?;
        Ok(Frame::Elems { elem, left: len })
    }

    /// Validates a map header read at `start`, whose entries begin at `after`.
    fn open_map<P: Protocol>(&self, h: MapHeader, start: usize, after: usize) -> Result<Frame> {
        let len = self.container_len(h.len, start)?;
        if len == 0 {
            return Ok(Frame::Entries { key: TType::Bool, value: TType::Bool, left: 0, at_value: false });
        }
        let bad = |raw| Error::at(ErrorKind::InvalidType(raw), start);
        let key = walkable(h.key).map_err(bad)?;
        let value = walkable(h.value).map_err(bad)?;
        self.fits(after, len, P::min_len(key) + P::min_len(value), start)?;
        Ok(Frame::Entries { key, value, left: len, at_value: false })
    }

    /// Checks a declared element count read at `start`: see [`count`].
    fn container_len(&self, len: i64, start: usize) -> Result<usize> {
        count(len, &self.bounds).ok_or_else(|| {
            let kind = if len < 0 {
                ErrorKind::NegativeLength(len)
            } else {
                let limit = self.bounds.max_container_len as u64;
                ErrorKind::LengthTooLarge { len: len as u64, limit, what: "max_container_len" }
            };
            Error::at(kind, start)
        })
    }

    /// Checks that `len` elements of at least `min_elem` bytes each, from `after`, fit before
    /// the walk's end bound: see [`fits_within`].
    fn fits(&self, after: usize, len: usize, min_elem: usize, start: usize) -> Result<()> {
        if fits_within(after, len, min_elem, self.bounds.max_end) {
            return Ok(());
        }
        let end = (after as u128).saturating_add(len as u128 * min_elem as u128);
        let kind = if self.resumable {
            let len = u64::try_from(end).unwrap_or(u64::MAX);
            ErrorKind::LengthTooLarge { len, limit: self.bounds.max_end as u64, what: "max_message_len" }
        } else {
            let fit = self.bounds.max_end.saturating_sub(after) / min_elem.max(1);
            ErrorKind::LengthTooLarge { len: len as u64, limit: fit as u64, what: "bytes remaining" }
        };
        Err(Error::at(kind, start))
    }

    /// Pushes the frame of a value of type `t` that began at the walk's position, failing
    /// beyond the depth limit.
    #[inline]
    fn open(&mut self, frame: Frame, t: TType, field: Option<i16>) -> Result<()> {
        self.open_at(frame, t, field, self.pos)
    }

    /// Pushes the frame of a value of type `t` that began at `at`, failing beyond the depth
    /// limit there.
    #[inline]
    fn open_at(&mut self, frame: Frame, t: TType, field: Option<i16>, at: usize) -> Result<()> {
        if self.stack.len() >= self.bounds.max_frames {
            let max = (self.base_depth + self.bounds.max_frames).min(u16::MAX as usize) as u16;
            let what = match t {
                TType::Struct => "struct",
                TType::Set => "set header",
                TType::Map => "map header",
                _ => "list header",
            };
            return Err(self.fail(Error::at(ErrorKind::DepthExceeded(max), at), what, field));
        }
        self.stack.push(frame);
        Ok(())
    }

    #[inline]
    fn set_left(&mut self, n: usize) {
        if let Some(Frame::Elems { left, .. }) = self.stack.last_mut() {
            *left = n;
        }
    }

    /// The error for a halt: a run cut short becomes [`ErrorKind::Truncated`] (`len` is the
    /// buffer's length), with the walk's place.
    #[cold]
    pub(crate) fn error(&self, halt: Halt, len: usize) -> Error {
        match halt {
            Halt::Short { at, needed, what } => {
                let e = Error::at(ErrorKind::Truncated { needed, remaining: len.saturating_sub(at) }, at);
                self.fail(e, what, None)
            }
            Halt::Error(e) => e,
        }
    }

    /// Adds the walk's place to an error: the token, the depth and the field id (that of a
    /// field whose header is in the token, else the last one read in the innermost struct).
    #[cold]
    pub(crate) fn fail(&self, e: Error, token: &'static str, field: Option<i16>) -> Error {
        if self.resumable && matches!(e.kind(), ErrorKind::Truncated { .. }) {
            // The scanner only asks for more bytes: the place would be thrown away.
            return e;
        }
        e.walked(token, self.depth(), field.or_else(|| self.field_id()))
    }
}

/// A declared element count that may be walked: not negative, within `max_container_len`.
/// The fast path defers on a count refused here; the careful path reports it.
#[inline]
pub(crate) fn count(len: i64, b: &Bounds) -> Option<usize> {
    (len >= 0 && len as u64 <= b.max_container_len as u64).then_some(len as usize)
}

/// Whether `len` elements of at least `min_elem` bytes each, from `after`, end by `max_end`:
/// a declared count makes the value at least that long, so one that cannot fit is refused
/// at its header, before any of it is walked.
#[inline]
pub(crate) fn fits_within(after: usize, len: usize, min_elem: usize, max_end: usize) -> bool {
    // An overflow cannot fit either.
    len.checked_mul(min_elem).and_then(|n| n.checked_add(after)).is_some_and(|end| end <= max_end)
}

/// Skips a scalar or a string of type `t` with the protocol's readers.
#[inline]
pub(crate) fn skip_scalar<P: Protocol>(r: &mut Reader<'_>, t: TType) -> Result<()> {
    match t {
        TType::Bool => P::read_bool(r).map(drop),
        TType::I8 => r.advance(1),
        TType::I16 => P::read_i16(r).map(drop),
        TType::I32 => P::read_i32(r).map(drop),
        TType::I64 => P::read_i64(r).map(drop),
        TType::Double => r.advance(8),
        TType::Uuid => r.advance(16),
        // The body is stepped over by length: read_binary checks the limit, then slices.
        TType::String => P::read_binary(r).map(drop),
        TType::Stop | TType::Void => Err(r.error(ErrorKind::InvalidType(t as u8))),
        TType::Struct | TType::List | TType::Set | TType::Map => Err(nested_as_scalar(r, t)),
    }
}

#[cold]
fn nested_as_scalar(r: &Reader<'_>, t: TType) -> Error {
    // The walker never hands a nested type here; report rather than panic.
    r.error(ErrorKind::InvalidData(format!("internal: {t} skipped as a scalar")))
}

/// The width of every value of `t` in protocol `P`, when it is fixed and every value of
/// that width is valid, so that a run of them can be stepped over unread. Not bools: one
/// byte each, but only some bytes are bools (the readers reject the others), so they are
/// read one by one and a message the scanner passes does not fail in decode.
#[inline]
pub(crate) fn fixed_width<P: Protocol>(t: TType) -> Option<usize> {
    match t {
        TType::I8 => Some(1),
        TType::Double => Some(8),
        TType::Uuid => Some(16),
        TType::I16 | TType::I32 | TType::I64 if P::FIXED_WIDTH_INTEGERS => Some(P::min_len(t)),
        _ => None,
    }
}

/// The longest varint an integer type may take, in a varint protocol, for the types whose
/// runs are stepped over by their last bytes (those of full length are still read by the
/// readers). Not `i16`: it is read as a 32-bit varint, whose shorter forms can hold values
/// beyond its range too, which the reader rejects, so `i16` elements are read one by one.
#[inline]
pub(crate) fn varint_max_bytes<P: Protocol>(t: TType) -> Option<usize> {
    match t {
        _ if P::FIXED_WIDTH_INTEGERS => None,
        TType::I32 => Some(5),
        TType::I64 => Some(10),
        _ => None,
    }
}

/// Steps over up to `left` varints at the start of `bytes` that are shorter than
/// `max_bytes`, the full length of their type: returns the bytes taken by them, how many are
/// still to come, and whether the run stopped at a varint of full length or longer. That one
/// is left to the protocol's reader, which alone decides whether its last byte fits the type.
///
/// A varint ends at each byte with its high bit clear. Runs go eight bytes at a time,
/// counting the ends in a word. A word that may hold a long varint is passed one varint at a
/// time, each found from a word too, and then the run goes on eight bytes at a time again (a
/// list of mixed lengths would otherwise go byte by byte from its first long varint on). The
/// last few varints go byte by byte, without a branch on each byte's high bit (which would
/// mispredict on every change of length).
#[inline]
pub(crate) fn skip_varints(bytes: &[u8], mut left: usize, max_bytes: usize) -> (usize, usize, bool) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The most continuation bytes a varint walked here has.
    let limit = max_bytes - 1;
    // `start`: the end of the last complete varint; `i`: the next byte to look at.
    let mut start = 0;
    let mut i = 0;
    // With at least 8 varints to go, every byte of the next word belongs to the list.
    while left >= 8 {
        let Some(word) = word_at(bytes, i) else { break };
        let ends = !word & HIGH;
        // A run of continuation bytes as long as the limit may start a full-length varint:
        // step over the varints to the end of this word one at a time.
        if ends == 0
            || (i - start) + (ends.trailing_zeros() / 8) as usize >= limit
            || (limit < 8 && has_run(word & HIGH, limit))
        {
            let past = i + 8;
            while start < past && left > 0 {
                match varint_len(bytes, start, limit) {
                    Some(Ok(len)) => {
                        start += len;
                        left -= 1;
                    }
                    Some(Err(())) => return (start, left, true),
                    None => return (start, left, false),
                }
            }
            i = start;
            continue;
        }
        left -= ends.count_ones() as usize;
        start = i + 8 - (ends.leading_zeros() / 8) as usize;
        i += 8;
    }
    let mut run = i - start;
    while left > 0 {
        let Some(&b) = bytes.get(i) else { break };
        i += 1;
        let end = b < 0x80;
        left -= end as usize;
        start = if end { i } else { start };
        run = if end { 0 } else { run + 1 };
        if run >= limit {
            return (start, left, true);
        }
    }
    (start, left, false)
}

/// The eight bytes at `at` as a little-endian word, if they are all there.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let word = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(word.try_into().ok()?))
}

/// The length of the varint at `at` when it has fewer than `limit + 1` bytes; `Err` when
/// it has `limit` continuation bytes or more (full length or longer); `None` when it is cut
/// short by the end of `bytes` before either is known.
#[inline(always)]
fn varint_len(bytes: &[u8], at: usize, limit: usize) -> Option<Result<usize, ()>> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut k = 0;
    if let Some(word) = word_at(bytes, at) {
        let ends = !word & HIGH;
        if ends != 0 {
            let run = (ends.trailing_zeros() / 8) as usize;
            return Some(if run >= limit { Err(()) } else { Ok(run + 1) });
        }
        // Eight continuation bytes: the rest one by one (only a 64-bit varint gets here).
        k = 8;
    }
    loop {
        if k >= limit {
            return Some(Err(()));
        }
        let b = *bytes.get(at + k)?;
        k += 1;
        if b < 0x80 {
            return Some(Ok(k));
        }
    }
}

/// Whether `flags` (the high bit of each byte) holds `run` consecutive set bytes.
#[inline]
fn has_run(flags: u64, run: usize) -> bool {
    let mut all = flags;
    for k in 1..run {
        all &= flags >> (8 * k);
    }
    all != 0
}

/// A declared element type that can be walked: any real type but STOP and VOID; the raw
/// type id otherwise.
#[inline]
pub(crate) fn walkable(declared: Result<TType, u8>) -> Result<TType, u8> {
    match declared {
        Ok(TType::Stop | TType::Void) => Err(declared.map_or(0, |t| t as u8)),
        Ok(t) => Ok(t),
        Err(raw) => Err(raw),
    }
}

/// Skips one value of type `ttype`, validating its structure as it goes.
///
/// Nesting is walked with an explicit stack, so hostile depth errors at
/// [`Limits::max_depth`] without touching the call stack, and every declared length is
/// checked against the bytes remaining before it is walked. Errors of a nested value say
/// where the walk was: see [`Error::token`], [`Error::depth`] and [`Error::field_id`].
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

/// Walks one struct or container in the reader's complete buffer.
fn skip_nested<P: Protocol>(r: &mut Reader<'_>, ttype: TType) -> Result<()> {
    let mut walk = Walk::new(r.limits(), r.position(), r.depth() as usize, Some(r.input().len()));
    walk.start::<P>(r, ttype)?;
    walk.run::<P>(r).map_err(|halt| walk.error(halt, r.input().len()))?;
    r.set_position(walk.position());
    Ok(())
}
