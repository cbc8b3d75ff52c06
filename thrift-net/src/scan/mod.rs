//! The resumable skip-decoding scanner: finds where one unframed message ends by walking the
//! protocol without decoding values, picking up where it stopped when more bytes arrive.
//!
//! The scanner is fed the whole message-so-far each time (a buffer that only grows). It keeps
//! the offset of the first token it has not finished and an explicit stack of the open
//! structs and containers, so nesting costs no recursion and resuming costs no re-walk.
//!
//! Two paths share that state. The careful path (here) reads one token at a time (a field
//! header with its scalar value, a container header, one string) with `thrift-core`'s
//! protocol functions on a [`Reader`]. When a token runs past the end of the bytes so far,
//! the core reports how far it needs to go ([`ErrorKind::Truncated`]); the scanner keeps the
//! token's start and tries it again only once that many bytes are there. Tokens are a few
//! bytes, except strings, whose bodies are stepped over by length and never re-read, so a
//! message that trickles in one byte at a time still costs time linear in its length.
//!
//! The fast path ([`fast`]) runs first each time: tight per-protocol loops that walk every
//! token that is complete and well-formed (flat structs and containers in place, fixed-width
//! runs in one jump, varint runs a word at a time) and stop at the first other one, which the
//! careful path then reads, errors on or waits for. It decides nothing the careful path would
//! decide differently (a test compares them on corrupted messages), so errors and their
//! places come from one place.
//!
//! Limits apply as the scan goes: depth on every struct or container opened, string and
//! container lengths when their headers are read, and the message size whenever a declared
//! length or a missing token says how long the message will be at least.

mod fast;
#[cfg(test)]
mod paths_agree;

use std::marker::PhantomData;

use thrift_core::{ErrorKind, Limits, ListHeader, MapHeader, Protocol, Reader, TType};

use crate::error::{Phase, TransportError, TransportErrorKind};

/// The outcome of one [`Scanner::scan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// The message is complete and is this many bytes long (from the start of the buffer).
    Complete(usize),
    /// The message is not complete: the buffer must hold at least this many bytes before
    /// scanning can make progress (calling earlier is cheap and answers the same).
    NeedMore(usize),
}

/// One open struct or container.
#[derive(Clone, Copy, Debug)]
enum Frame {
    /// A struct: the previous field id (compact deltas need it) and whether any field was read.
    Struct { last_id: i16, any: bool },
    /// A list or set with `left` elements still to walk.
    Elems { elem: TType, left: usize },
    /// A map with `left` entries still to start; `at_value` when the current entry's key is done.
    Entries { key: TType, value: TType, left: usize, at_value: bool },
}

/// Why a scan step stopped short.
enum Halt {
    /// Need the buffer to reach this many bytes.
    More(usize),
    /// The stream is corrupt.
    Fail(TransportError),
}

/// What went wrong in a token, before the scanner adds depth and field.
enum Fault {
    /// The core's protocol functions complained while reading `what`.
    Core(thrift_core::Error, &'static str),
    /// The scanner's own check failed at `offset`.
    Kind(TransportErrorKind, usize),
}

impl From<(thrift_core::Error, &'static str)> for Fault {
    #[inline]
    fn from((e, what): (thrift_core::Error, &'static str)) -> Fault {
        Fault::Core(e, what)
    }
}

/// The resumable skip-decoding scanner for protocol `P`: it tells where one unframed message
/// (envelope, then one struct) ends, without decoding it.
///
/// Feed it the bytes of one message so far, from its first byte, growing between calls;
/// after [`Scan::Complete`], call [`Scanner::reset`] before the next message.
///
/// ```
/// use thrift_core::{Binary, Limits, MessageHeader, MessageType, Protocol};
/// use thrift_net::{Scan, Scanner};
///
/// let mut msg = Vec::new();
/// Binary::write_message_begin(&mut msg, &MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 });
/// msg.push(0); // the args struct: no fields
///
/// let mut scanner = Scanner::<Binary>::new(Limits::default());
/// assert_eq!(scanner.scan(&msg[..5]).unwrap(), Scan::NeedMore(8)); // envelope: the name's length is known
/// assert_eq!(scanner.scan(&msg).unwrap(), Scan::Complete(msg.len()));
/// ```
#[derive(Debug)]
pub struct Scanner<P> {
    limits: Limits,
    stack: Vec<Frame>,
    /// Start of the first unfinished token; everything before it is walked.
    pos: usize,
    /// Don't retry before the buffer holds this many bytes.
    need: usize,
    in_body: bool,
    examined: u64,
    /// Tests compare the fast path against the careful path alone.
    #[cfg(test)]
    careful_only: bool,
    // fn() -> P: the codec holds no P, so it is Send, Sync and Unpin whatever P is.
    protocol: PhantomData<fn() -> P>,
}

impl<P: Protocol> Default for Scanner<P> {
    fn default() -> Self {
        Scanner::new(Limits::default())
    }
}

impl<P: Protocol> Scanner<P> {
    /// A scanner applying `limits` (depth, string, container and message lengths).
    pub fn new(limits: Limits) -> Self {
        Scanner {
            limits,
            stack: Vec::new(),
            pos: 0,
            need: 0,
            in_body: false,
            examined: 0,
            #[cfg(test)]
            careful_only: false,
            protocol: PhantomData,
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Forgets the current message, to scan the next one from its first byte. Keeps the
    /// count of bytes examined.
    pub fn reset(&mut self) {
        self.stack.clear();
        self.pos = 0;
        self.need = 0;
        self.in_body = false;
    }

    /// Bytes walked so far, over every message since the scanner was made: each attempt at
    /// a token counts every byte from the token's start to where the attempt stopped, so a
    /// token retried because it was cut short counts again. Stays within a small multiple of
    /// the bytes scanned however the input is chunked.
    pub fn bytes_examined(&self) -> u64 {
        self.examined
    }

    /// The offset of the first token not yet walked completely.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The current nesting depth (1 inside the message's struct, 0 in the envelope).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Walks `buf`, the message's bytes so far from its first byte (the same bytes as last
    /// time, possibly more), as far as it can.
    ///
    /// # Errors
    /// A malformed message, or one that breaks a limit, with the offset, depth and field id
    /// where it went wrong.
    pub fn scan(&mut self, buf: &[u8]) -> Result<Scan, TransportError> {
        if self.in_body && self.stack.is_empty() {
            return Ok(Scan::Complete(self.pos));
        }
        if buf.len() < self.need {
            return Ok(Scan::NeedMore(self.need));
        }
        let start = self.pos;
        match self.run(buf) {
            Ok(()) => {
                self.examined += (self.pos - start) as u64;
                if self.pos > self.limits.max_message_len {
                    let kind =
                        TransportErrorKind::MessageTooLarge { len: self.pos as u64, max: self.limits.max_message_len };
                    return Err(TransportError::new(Phase::SkipDecoder, kind).at(self.pos));
                }
                Ok(Scan::Complete(self.pos))
            }
            Err(Halt::More(need)) => {
                self.examined += (buf.len() - start) as u64;
                if need > self.limits.max_message_len {
                    let kind =
                        TransportErrorKind::MessageTooLarge { len: need as u64, max: self.limits.max_message_len };
                    let e = TransportError::new(Phase::SkipDecoder, kind).at(self.pos);
                    return Err(self.locate(e, None));
                }
                self.need = need;
                Ok(Scan::NeedMore(need))
            }
            Err(Halt::Fail(e)) => {
                self.examined += (buf.len() - start) as u64;
                Err(e)
            }
        }
    }

    /// The error for a stream that ended with `buffered` bytes of an unfinished message.
    pub fn truncated(&self, buffered: usize) -> TransportError {
        let depth = if self.in_body { self.stack.len() } else { 0 };
        TransportError::new(Phase::SkipDecoder, TransportErrorKind::Truncated { buffered })
            .at(self.pos)
            .with_depth(depth)
            .with_field_id(self.field_id())
    }

    /// Walks tokens until the message ends or the bytes run out.
    fn run(&mut self, buf: &[u8]) -> Result<(), Halt> {
        let mut r = Reader::new(buf).with_limits(self.limits);
        if r.advance(self.pos).is_err() {
            // The caller handed a shorter buffer than before: nothing to do but wait.
            return Err(Halt::More(self.pos.max(self.need)));
        }
        if !self.in_body {
            P::read_message_begin(&mut r).map_err(|e| self.halt((e, "envelope").into(), buf.len(), None))?;
            self.pos = r.position();
            self.in_body = true;
            self.open(Frame::Struct { last_id: 0, any: false }, None)?;
        }
        loop {
            // The fast path takes every complete, well-formed token it can; the careful path
            // below takes the one it stopped at, then hands back.
            #[cfg(test)]
            let to = if self.careful_only {
                self.pos
            } else {
                fast::walk::<P>(buf, self.pos, &mut self.stack, &self.limits)
            };
            #[cfg(not(test))]
            let to = fast::walk::<P>(buf, self.pos, &mut self.stack, &self.limits);
            if to > self.pos {
                // `to` is within the buffer: the fast path only passes bytes that are there.
                let _ = r.advance(to - self.pos);
                self.pos = to;
            }
            let Some(&top) = self.stack.last() else { break };
            match top {
                Frame::Struct { last_id, .. } => self.field(&mut r, last_id, buf.len())?,
                Frame::Elems { elem, left } => self.elems(&mut r, elem, left, buf.len())?,
                Frame::Entries { key, value, left, at_value } => {
                    self.entries(&mut r, key, value, left, at_value, buf.len())?
                }
            }
        }
        Ok(())
    }

    /// One field of the innermost struct: header, and its value when that is a scalar or a
    /// container header, as one token.
    #[inline]
    fn field(&mut self, r: &mut Reader<'_>, last_id: i16, available: usize) -> Result<(), Halt> {
        let mut id = last_id;
        let header = match P::read_field_begin(r, &mut id) {
            Ok(h) => h,
            Err(e) => return Err(self.halt(field_fault(e), available, None)),
        };
        let Some(header) = header else {
            self.stack.pop();
            self.pos = r.position();
            return Ok(());
        };
        let opened = match header.ttype {
            // Compact folds the value into the header (read_bool takes it); binary has a byte.
            TType::Bool => P::read_bool(r).map(|_| None).map_err(|e| (e, "bool field").into()),
            TType::Stop | TType::Void => {
                Err(Fault::Kind(TransportErrorKind::InvalidFieldType(header.ttype as u8), self.pos))
            }
            t => self.value(r, t),
        };
        let opened = opened.map_err(|f| self.halt(f, available, Some(header.id)))?;
        if let Some(Frame::Struct { last_id, any }) = self.stack.last_mut() {
            *last_id = id;
            *any = true;
        }
        self.pos = r.position();
        if let Some(frame) = opened {
            self.open(frame, Some(header.id))?;
        }
        Ok(())
    }

    /// Elements of the innermost list or set: fixed-width runs in one jump, varint runs in a
    /// tight loop, anything else one element (one token) at a time.
    #[inline]
    fn elems(&mut self, r: &mut Reader<'_>, elem: TType, left: usize, available: usize) -> Result<(), Halt> {
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
                return Err(Halt::More(self.pos.saturating_add((left - n).saturating_mul(width))));
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
                // A varint of its type's full length (or longer) is core's to judge, as one
                // token: its last byte may carry bits beyond the type.
                self.value(r, elem).map_err(|f| self.halt(f, available, None))?;
                self.pos = r.position();
                self.set_left(still - 1);
                return Ok(());
            }
            if still > 0 {
                return Err(Halt::More(self.pos + (rest.len() - walked) + 1));
            }
            return Ok(());
        }
        let opened = self.value(r, elem).map_err(|f| self.halt(f, available, None))?;
        self.pos = r.position();
        self.set_left(left - 1);
        if let Some(frame) = opened {
            self.open(frame, None)?;
        }
        Ok(())
    }

    /// Entries of the innermost map: runs of fixed-width pairs in one jump, else one key or
    /// value at a time.
    #[inline]
    fn entries(
        &mut self,
        r: &mut Reader<'_>,
        key: TType,
        value: TType,
        left: usize,
        at_value: bool,
        available: usize,
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
                    return Err(Halt::More(self.pos.saturating_add((left - n).saturating_mul(width))));
                }
                return Ok(());
            }
        }
        let t = if at_value { value } else { key };
        let opened = self.value(r, t).map_err(|f| self.halt(f, available, None))?;
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
            self.open(frame, None)?;
        }
        Ok(())
    }

    /// Reads one value of type `t` whole when it is a scalar or a string; for a struct or a
    /// container, reads its header and returns the frame to open.
    #[inline]
    fn value(&self, r: &mut Reader<'_>, t: TType) -> Result<Option<Frame>, Fault> {
        let start = r.position();
        let done = match t {
            TType::Bool => P::read_bool(r).map(drop),
            TType::I8 => r.advance(1),
            TType::I16 => P::read_i16(r).map(drop),
            TType::I32 => P::read_i32(r).map(drop),
            TType::I64 => P::read_i64(r).map(drop),
            TType::Double => r.advance(8),
            TType::Uuid => r.advance(16),
            // The body is stepped over by length: read_binary checks the limit, then slices.
            TType::String => P::read_binary(r).map(drop),
            TType::Struct => return Ok(Some(Frame::Struct { last_id: 0, any: false })),
            TType::List | TType::Set => {
                let header = P::read_list_begin(r).map_err(|e| (e, "list header"))?;
                let name = if t == TType::Set { "set" } else { "list" };
                return self.open_list(header, name, start, r.position()).map(Some);
            }
            TType::Map => {
                let header = P::read_map_begin(r).map_err(|e| (e, "map header"))?;
                return self.open_map(header, start, r.position()).map(Some);
            }
            TType::Stop | TType::Void => {
                return Err(Fault::Kind(TransportErrorKind::InvalidFieldType(t as u8), start));
            }
        };
        done.map(|()| None).map_err(|e| Fault::Core(e, t.name()))
    }

    /// Validates a list or set header read at `start`, whose elements begin at `after`.
    fn open_list(&self, h: ListHeader, name: &'static str, start: usize, after: usize) -> Result<Frame, Fault> {
        let len = self.container_len(h.len, name, start)?;
        if len == 0 {
            // An empty container is accepted whatever type it declares.
            return Ok(Frame::Elems { elem: TType::Bool, left: 0 });
        }
        let elem = walkable(h.elem).map_err(|raw| {
            Fault::Kind(TransportErrorKind::InvalidElementType { container: name, what: "element", raw }, start)
        })?;
        self.fits(after, len, P::min_len(elem), start)?;
        Ok(Frame::Elems { elem, left: len })
    }

    /// Validates a map header read at `start`, whose entries begin at `after`.
    fn open_map(&self, h: MapHeader, start: usize, after: usize) -> Result<Frame, Fault> {
        let len = self.container_len(h.len, "map", start)?;
        if len == 0 {
            return Ok(Frame::Entries { key: TType::Bool, value: TType::Bool, left: 0, at_value: false });
        }
        let bad =
            |what, raw| Fault::Kind(TransportErrorKind::InvalidElementType { container: "map", what, raw }, start);
        let key = walkable(h.key).map_err(|raw| bad("key", raw))?;
        let value = walkable(h.value).map_err(|raw| bad("value", raw))?;
        self.fits(after, len, P::min_len(key) + P::min_len(value), start)?;
        Ok(Frame::Entries { key, value, left: len, at_value: false })
    }

    /// Checks a declared element count: not negative, within `max_container_len`.
    fn container_len(&self, len: i64, name: &'static str, start: usize) -> Result<usize, Fault> {
        let what = match name {
            "map" => "map header",
            "set" => "set header",
            _ => "list header",
        };
        let kind = if len < 0 {
            ErrorKind::NegativeLength(len)
        } else if len as u64 > self.limits.max_container_len as u64 {
            ErrorKind::LengthTooLarge {
                len: len as u64,
                limit: self.limits.max_container_len as u64,
                what: "max_container_len",
            }
        } else {
            return Ok(len as usize);
        };
        Err(Fault::Kind(TransportErrorKind::Protocol { what, kind }, start))
    }

    /// Checks that `len` elements of at least `min_elem` bytes each, from `after`, fit in the
    /// message size limit: a declared count makes the message at least that long.
    fn fits(&self, after: usize, len: usize, min_elem: usize, start: usize) -> Result<(), Fault> {
        let end = (after as u128).saturating_add(len as u128 * min_elem as u128);
        if end > self.limits.max_message_len as u128 {
            let len = u64::try_from(end).unwrap_or(u64::MAX);
            let kind = TransportErrorKind::MessageTooLarge { len, max: self.limits.max_message_len };
            return Err(Fault::Kind(kind, start));
        }
        Ok(())
    }

    /// Pushes a struct or container, failing beyond the depth limit.
    #[inline]
    fn open(&mut self, frame: Frame, field: Option<i16>) -> Result<(), Halt> {
        if self.stack.len() >= self.limits.max_depth as usize {
            let kind = TransportErrorKind::DepthExceeded(self.limits.max_depth);
            let e = TransportError::new(Phase::SkipDecoder, kind).at(self.pos);
            return Err(Halt::Fail(self.locate(e, field)));
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

    /// Turns a token's fault into "need more bytes" (when it only ran out of input) or an
    /// error with its place. `field` is the id of a field whose header is in the token.
    #[cold]
    fn halt(&self, fault: Fault, available: usize, field: Option<i16>) -> Halt {
        let e = match fault {
            Fault::Core(e, what) => {
                if let ErrorKind::Truncated { needed, .. } = *e.kind() {
                    // The token cannot be complete before offset + needed: retry from its
                    // start once the buffer is that long.
                    let need = e.offset().unwrap_or(available).saturating_add(needed).max(available + 1);
                    if need <= self.limits.max_message_len {
                        return Halt::More(need);
                    }
                    let kind =
                        TransportErrorKind::MessageTooLarge { len: need as u64, max: self.limits.max_message_len };
                    TransportError::new(Phase::SkipDecoder, kind).at(self.pos)
                } else {
                    let offset = e.offset().unwrap_or(self.pos);
                    let kind = match e.kind() {
                        ErrorKind::InvalidType(raw) if what == "field header" => {
                            TransportErrorKind::InvalidFieldType(*raw)
                        }
                        other => TransportErrorKind::Protocol { what, kind: other.clone() },
                    };
                    TransportError::new(Phase::SkipDecoder, kind).at(offset)
                }
            }
            Fault::Kind(kind, offset) => TransportError::new(Phase::SkipDecoder, kind).at(offset),
        };
        Halt::Fail(self.locate(e, field))
    }

    /// Adds the depth and field id to an error.
    #[cold]
    fn locate(&self, e: TransportError, field: Option<i16>) -> TransportError {
        e.with_depth(self.stack.len()).with_field_id(field.or_else(|| self.field_id()))
    }

    /// The id of the last field read in the innermost struct.
    fn field_id(&self) -> Option<i16> {
        self.stack.iter().rev().find_map(|f| match *f {
            Frame::Struct { last_id, any } => Some(any.then_some(last_id)),
            _ => None,
        })?
    }
}

fn field_fault(e: thrift_core::Error) -> Fault {
    Fault::Core(e, "field header")
}

/// The width of every value of `t` in protocol `P`, when it is fixed and every value of
/// that width is valid, so that a run of them can be stepped over unread. Not bools: one
/// byte each, but only some bytes are bools (core's skip and decode reject the others), so
/// they are read one by one and a message the scanner passes does not fail there.
#[inline]
fn fixed_width<P: Protocol>(t: TType) -> Option<usize> {
    match t {
        TType::I8 => Some(1),
        TType::Double => Some(8),
        TType::Uuid => Some(16),
        TType::I16 | TType::I32 | TType::I64 if P::FIXED_WIDTH_INTEGERS => Some(P::min_len(t)),
        _ => None,
    }
}

/// The longest varint an integer type may take, in a varint protocol, for the types whose
/// runs are stepped over by their last bytes (those of full length are still read by core).
/// Not `i16`: core reads it as a 32-bit varint, whose shorter forms can hold values beyond
/// its range too, which core's decode and skip reject, so `i16` elements are read one by one
/// and a message the scanner passes does not fail there.
#[inline]
fn varint_max_bytes<P: Protocol>(t: TType) -> Option<usize> {
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
/// is left to core's reader, which alone decides whether its last byte fits the type.
///
/// A varint ends at each byte with its high bit clear. Long runs go eight bytes at a time,
/// counting the ends in a word; the rest byte by byte, but without a branch on each byte's
/// high bit (which would mispredict on every change of length).
#[inline]
fn skip_varints(bytes: &[u8], mut left: usize, max_bytes: usize) -> (usize, usize, bool) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The most continuation bytes a varint walked here has.
    let limit = max_bytes - 1;
    // `start`: the end of the last complete varint; `i`: the next byte to look at.
    let mut start = 0;
    let mut i = 0;
    // With at least 8 varints to go, every byte of the next word belongs to the list.
    while left >= 8 {
        let Some(Ok(word)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) else { break };
        let word = u64::from_le_bytes(word);
        let ends = !word & HIGH;
        // A run of continuation bytes as long as the limit may start a full-length varint:
        // let the byte loop find it.
        if ends == 0
            || (i - start) + (ends.trailing_zeros() / 8) as usize >= limit
            || (limit < 8 && has_run(word & HIGH, limit))
        {
            break;
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

/// Whether `flags` (the high bit of each byte) holds `run` consecutive set bytes.
#[inline]
fn has_run(flags: u64, run: usize) -> bool {
    let mut all = flags;
    for k in 1..run {
        all &= flags >> (8 * k);
    }
    all != 0
}

/// A declared element type that can be walked: any real type but STOP and VOID.
#[inline]
fn walkable(declared: Result<TType, u8>) -> Result<TType, u8> {
    match declared {
        Ok(TType::Stop | TType::Void) => Err(declared.map_or(0, |t| t as u8)),
        Ok(t) => Ok(t),
        Err(raw) => Err(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Just;

    #[test]
    fn skip_varints_counts_terminators_and_stops_at_full_length_ones() {
        assert_eq!(skip_varints(&[0x01, 0x80, 0x01, 0x7f], 3, 5), (4, 0, false));
        assert_eq!(skip_varints(&[0x01, 0x80], 3, 5), (1, 2, false));
        assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80], 2, 3), (1, 1, true));
        assert_eq!(skip_varints(&[], 1, 3), (0, 1, false));
        // Four bytes pass; a fifth, valid or not, is core's to read.
        assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80, 0x01], 2, 5), (5, 0, false));
        assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80, 0x80, 0x0f], 2, 5), (1, 1, true));
        assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80, 0x80], 2, 5), (1, 1, true));
    }

    /// The byte-at-a-time definition the word-at-a-time `skip_varints` must match.
    fn skip_varints_bytewise(bytes: &[u8], mut left: usize, max_bytes: usize) -> (usize, usize, bool) {
        let (mut start, mut i) = (0, 0);
        while left > 0 {
            let Some(&b) = bytes.get(i) else { break };
            i += 1;
            if b & 0x80 == 0 {
                left -= 1;
                start = i;
            } else if i - start >= max_bytes - 1 {
                return (start, left, true);
            }
        }
        (start, left, false)
    }

    proptest::proptest! {
        #[test]
        fn skip_varints_by_words_matches_bytewise(
            // Mostly short varints with runs of continuation bytes of every length.
            bytes in proptest::collection::vec(proptest::prop_oneof![3 => 0u8..0x80, 2 => 0x80u8..=0xff], 0..120),
            left in 0usize..100,
            max in proptest::prop_oneof![Just(3usize), Just(5usize), Just(10usize)],
        ) {
            proptest::prop_assert_eq!(skip_varints(&bytes, left, max), skip_varints_bytewise(&bytes, left, max));
        }
    }

    #[test]
    fn walkable_rejects_stop_void_and_unknown() {
        assert_eq!(walkable(Ok(TType::Stop)), Err(0));
        assert_eq!(walkable(Ok(TType::Void)), Err(1));
        assert_eq!(walkable(Err(0x1f)), Err(0x1f));
        assert_eq!(walkable(Ok(TType::Map)), Ok(TType::Map));
    }
}
