//! The walker over a growing buffer: finds where one unframed message ends, picking up where
//! it stopped when more bytes arrive.

use std::marker::PhantomData;

use super::{Halt, Walk};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::protocol::Protocol;
use crate::reader::Reader;

/// The outcome of one [`Scanner::scan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// The message is complete and is this many bytes long (from the start of the buffer).
    Complete(usize),
    /// The message is not complete: the buffer must hold at least this many bytes before
    /// scanning can make progress (calling earlier is cheap and answers the same).
    NeedMore(usize),
}

/// The resumable skip-decoding scanner for protocol `P`: it tells where one unframed message
/// (envelope, then one struct) ends, without decoding it. The buffered transport of
/// `thrift-net` splits its stream with it.
///
/// Feed it the bytes of one message so far, from its first byte, growing between calls;
/// after [`Scan::Complete`], call [`Scanner::reset`] before the next message. It walks the
/// message as [`skip`](crate::skip) does, with the same checks, and keeps its place between
/// calls, so a message that trickles in costs time linear in its length.
///
/// Limits apply as the scan goes: depth on every struct or container opened, string and
/// container lengths when their headers are read, and the message size whenever a declared
/// length or a missing token says how long the message will be at least
/// ([`ErrorKind::LengthTooLarge`] with `what: "max_message_len"`). Errors carry the offset,
/// the token, the depth and the field id: see [`Error::token`].
///
/// ```
/// use thrift_core::{Binary, Limits, MessageHeader, MessageType, Protocol, Scan, Scanner};
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
    walk: Walk,
    /// Don't retry before the buffer holds this many bytes.
    need: usize,
    in_body: bool,
    examined: u64,
    // fn() -> P: the scanner holds no P, so it is Send, Sync and Unpin whatever P is.
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
            walk: Walk::new(&limits, 0, 0, None),
            need: 0,
            in_body: false,
            examined: 0,
            protocol: PhantomData,
        }
    }

    /// Scans with the careful path alone, for the tests that compare it with the fast path.
    #[cfg(test)]
    pub(crate) fn careful_only(mut self) -> Self {
        self.walk.careful_only = true;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Forgets the current message, to scan the next one from its first byte. Keeps the
    /// count of bytes examined.
    pub fn reset(&mut self) {
        self.walk.reset(0);
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
        self.walk.position()
    }

    /// The current nesting depth (1 inside the message's struct, 0 in the envelope).
    pub fn depth(&self) -> usize {
        self.walk.depth()
    }

    /// The id of the last field read in the innermost open struct, if any.
    pub fn field_id(&self) -> Option<i16> {
        self.walk.field_id()
    }

    /// Walks `buf`, the message's bytes so far from its first byte (the same bytes as last
    /// time, possibly more), as far as it can.
    ///
    /// # Errors
    /// A malformed message, or one that breaks a limit, with the offset, token, depth and
    /// field id where it went wrong.
    pub fn scan(&mut self, buf: &[u8]) -> Result<Scan> {
        if self.in_body && self.walk.is_done() {
            return Ok(Scan::Complete(self.walk.position()));
        }
        if buf.len() < self.need {
            return Ok(Scan::NeedMore(self.need));
        }
        let start = self.walk.position();
        if buf.len() < start {
            // The caller handed a shorter buffer than before: nothing to do but wait.
            return Ok(Scan::NeedMore(start.max(self.need)));
        }
        match self.run(buf) {
            Ok(()) => {
                let end = self.walk.position();
                self.examined += (end - start) as u64;
                if end > self.limits.max_message_len {
                    return Err(self.too_large(end, "message"));
                }
                Ok(Scan::Complete(end))
            }
            Err(halt) => {
                self.examined += (buf.len() - start) as u64;
                // The token cannot be complete before its offset + needed: retry from its
                // start once the buffer is that long.
                let (at, needed, token) = match halt {
                    Halt::Short { at, needed, what } => (at, needed, what),
                    // The walk leaves a token cut short unplaced, in a growing buffer.
                    Halt::Error(e) => match *e.kind() {
                        ErrorKind::Truncated { needed, .. } => (e.offset().unwrap_or(buf.len()), needed, "message"),
                        _ => return Err(e),
                    },
                };
                let need = at.saturating_add(needed).max(buf.len() + 1);
                if need > self.limits.max_message_len {
                    return Err(self.too_large(need, token));
                }
                self.need = need;
                Ok(Scan::NeedMore(need))
            }
        }
    }

    /// Walks the envelope (once), then tokens until the message ends or the bytes run out.
    fn run(&mut self, buf: &[u8]) -> Result<(), Halt> {
        let mut r = Reader::new(buf).with_limits(self.limits);
        r.set_position(self.walk.position());
        if !self.in_body {
            P::read_message_begin(&mut r).map_err(|e| self.walk.fail(e, "envelope", None))?;
            self.walk.reset(r.position());
            self.in_body = true;
            self.walk.open_struct()?;
        }
        self.walk.run::<P>(&mut r)
    }

    /// The error for a message that is, or will be, `len` bytes long, beyond the limit.
    #[cold]
    fn too_large(&self, len: usize, token: &'static str) -> Error {
        let max = self.limits.max_message_len;
        let kind = ErrorKind::LengthTooLarge { len: len as u64, limit: max as u64, what: "max_message_len" };
        self.walk.fail(Error::at(kind, self.walk.position()), token, None)
    }
}
