//! A cursor over one complete message in memory.

use bytes::Bytes;

use crate::encode::Decode;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::protocol::Protocol;

/// A cursor over one complete message in memory, from which values are decoded.
///
/// Decoding never reads past the end of the slice and checks every declared length against
/// the bytes remaining before allocating. When the reader is built over a [`Bytes`] with
/// [`Reader::from_bytes`], decoded `Bytes` and [`SharedStr`](crate::SharedStr) fields are
/// refcounted slices of it, not copies.
///
/// ```
/// use thrift_core::{Binary, Decode, Reader};
/// let mut r = Reader::new(&[0, 0, 0, 7]);
/// assert_eq!(i32::decode::<Binary>(&mut r).unwrap(), 7);
/// assert!(r.is_empty());
/// ```
#[derive(Debug)]
pub struct Reader<'de> {
    buf: &'de [u8],
    pos: usize,
    source: Option<&'de Bytes>,
    depth: u16,
    limits: Limits,
    /// Bytes that lists of nestable elements may still reserve before their elements are
    /// read: [`RESERVE_PER_INPUT_BYTE`] per input byte, for the whole decode.
    reserve_budget: usize,
    /// A bool the compact protocol folded into the last field header.
    pub(crate) pending_bool: Option<bool>,
}

/// Bytes of up-front reservation one input byte buys lists whose elements can nest
/// (structs, lists, sets, maps), over a whole decode.
///
/// A declared count is checked against the bytes remaining, but nested lists are each checked
/// against the same remaining bytes before any of their elements is read; reserving every
/// count in full would let a list of structs whose first struct holds a list of structs, to
/// the depth limit, reserve the input's worth at every level at once. So these reservations
/// share one budget: while it lasts, a list reserves exactly its declared count (no
/// reallocation, no slack kept in the decoded value); past it, at most 32 KiB, growing as
/// elements arrive. Honest messages stay within it (a Parquet footer's lists hold a few
/// bytes of Rust values per input byte); what a hostile one can reserve is bounded by this
/// many bytes per input byte plus 32 KiB per open level.
pub(crate) const RESERVE_PER_INPUT_BYTE: usize = 16;

impl<'de> Reader<'de> {
    /// A reader over `buf` with the default [`Limits`].
    #[inline]
    pub fn new(buf: &'de [u8]) -> Reader<'de> {
        Reader {
            buf,
            pos: 0,
            source: None,
            depth: 0,
            limits: Limits::default(),
            reserve_budget: buf.len().saturating_mul(RESERVE_PER_INPUT_BYTE),
            pending_bool: None,
        }
    }

    /// A reader over `bytes`, under which decoded `Bytes` and [`SharedStr`](crate::SharedStr)
    /// fields share its buffer.
    #[inline]
    pub fn from_bytes(bytes: &'de Bytes) -> Reader<'de> {
        Reader { source: Some(bytes), ..Reader::new(bytes) }
    }

    /// Replaces the limits.
    #[inline]
    pub fn with_limits(mut self, limits: Limits) -> Reader<'de> {
        self.limits = limits;
        self
    }

    /// The limits in force.
    #[inline]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Bytes consumed so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The whole input, consumed or not: the walker's fast path reads it by offset.
    #[inline]
    pub(crate) fn input(&self) -> &'de [u8] {
        self.buf
    }

    /// Moves the cursor to `pos`, which the walker's fast path found within the input.
    #[inline]
    pub(crate) fn set_position(&mut self, pos: usize) {
        debug_assert!(pos <= self.buf.len());
        self.pos = pos.min(self.buf.len());
    }

    /// Bytes not yet consumed.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Whether every byte has been consumed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos == self.buf.len()
    }

    /// The unconsumed bytes.
    #[inline]
    pub fn rest(&self) -> &'de [u8] {
        &self.buf[self.pos..]
    }

    /// Decodes a `T` that must span the rest of the input: bytes left after it are an error.
    ///
    /// ```
    /// use thrift_core::{Binary, ErrorKind, Reader};
    /// let err = Reader::new(&[0, 0, 0, 7, 0xff]).decode_rest::<Binary, i32>().unwrap_err();
    /// assert_eq!(err.kind(), &ErrorKind::TrailingBytes(1));
    /// ```
    pub fn decode_rest<P: Protocol, T: Decode<'de>>(mut self) -> Result<T> {
        let value = T::decode::<P>(&mut self)?;
        if !self.is_empty() {
            return Err(self.error(ErrorKind::TrailingBytes(self.remaining())));
        }
        Ok(value)
    }

    /// An error of `kind` at the current offset.
    #[cold]
    pub fn error(&self, kind: ErrorKind) -> Error {
        Error::at(kind, self.pos)
    }

    /// An error of `kind` at the offset `back` bytes before the cursor (where the value
    /// just read began).
    #[cold]
    pub(crate) fn error_before(&self, back: usize, kind: ErrorKind) -> Error {
        Error::at(kind, self.pos.saturating_sub(back))
    }

    #[cold]
    fn truncated(&self, needed: usize) -> Error {
        self.error(ErrorKind::Truncated { needed, remaining: self.remaining() })
    }

    /// Reads one byte.
    #[inline]
    pub fn read_u8(&mut self) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated(1)),
        }
    }

    /// The next byte, left unread.
    #[inline]
    pub(crate) fn peek_u8(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Moves past `n` bytes already seen with [`peek_u8`](Reader::peek_u8).
    #[inline]
    pub(crate) fn bump(&mut self, n: usize) {
        debug_assert!(n <= self.remaining());
        self.pos += n;
    }

    /// Reads `N` bytes into an array.
    #[inline]
    pub fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.buf.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                let mut out = [0u8; N];
                out.copy_from_slice(s);
                Ok(out)
            }
            None => Err(self.truncated(N)),
        }
    }

    /// Reads `len` bytes, borrowed from the input.
    #[inline]
    pub fn read_slice(&mut self, len: usize) -> Result<&'de [u8]> {
        if len > self.remaining() {
            return Err(self.truncated(len));
        }
        let s = &self.buf[self.pos..self.pos + len];
        self.pos += len;
        Ok(s)
    }

    /// Skips `len` bytes.
    #[inline]
    pub fn advance(&mut self, len: usize) -> Result<()> {
        self.read_slice(len).map(|_| ())
    }

    /// `slice` (which must come from this reader's input) as a `Bytes` sharing the input
    /// buffer when the reader was built over `Bytes`, otherwise copied.
    ///
    /// # Panics
    /// When the reader was built over `Bytes` and a non-empty `slice` lies outside them.
    #[inline]
    pub fn to_bytes(&self, slice: &'de [u8]) -> Bytes {
        match self.source {
            // Where `slice` starts in the input, found here rather than by
            // `Bytes::slice_ref`, which is not inlined and checks the pointers before
            // `slice` checks the range again (36 instructions a call, 1% of decoding the
            // benchmark's medium message). `Bytes::slice`, inlined, still checks the range.
            Some(src) if !slice.is_empty() => {
                let start = (slice.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize);
                src.slice(start..start.wrapping_add(slice.len()))
            }
            Some(_) => Bytes::new(),
            None => Bytes::copy_from_slice(slice),
        }
    }

    /// Enters one level of nesting, failing beyond [`Limits::max_depth`].
    #[inline]
    pub fn enter(&mut self) -> Result<()> {
        if self.depth >= self.limits.max_depth {
            return Err(self.error(ErrorKind::DepthExceeded(self.limits.max_depth)));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves one level of nesting entered with [`Reader::enter`].
    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The current nesting depth.
    #[inline]
    pub fn depth(&self) -> u16 {
        self.depth
    }

    /// Checks a declared string length against the limit and the bytes remaining.
    #[inline]
    pub fn check_string_len(&self, len: i64) -> Result<usize> {
        let len = self.check_limit(len, self.limits.max_string_len, "max_string_len")?;
        if len > self.remaining() {
            return Err(self.truncated(len));
        }
        Ok(len)
    }

    /// Takes `bytes` from the decode's budget of up-front reservations
    /// ([`RESERVE_PER_INPUT_BYTE`]), answering whether they were there.
    #[inline]
    pub(crate) fn take_reserve(&mut self, bytes: usize) -> bool {
        let fits = bytes <= self.reserve_budget;
        if fits {
            self.reserve_budget -= bytes;
        }
        fits
    }

    /// Checks a declared element count against the limit and the bytes remaining, given
    /// the fewest bytes one element can take on the wire.
    #[inline]
    pub fn check_container_len(&self, len: i64, min_elem_len: usize) -> Result<usize> {
        let len = self.check_limit(len, self.limits.max_container_len, "max_container_len")?;
        let max_fit = self.remaining() / min_elem_len.max(1);
        if len > max_fit {
            let (len, limit) = (len as u64, max_fit as u64);
            return Err(self.error(ErrorKind::LengthTooLarge { len, limit, what: "bytes remaining" }));
        }
        Ok(len)
    }

    #[inline]
    fn check_limit(&self, len: i64, limit: usize, what: &'static str) -> Result<usize> {
        if len < 0 {
            return Err(self.error(ErrorKind::NegativeLength(len)));
        }
        if len as u64 > limit as u64 {
            return Err(self.error(ErrorKind::LengthTooLarge { len: len as u64, limit: limit as u64, what }));
        }
        Ok(len as usize)
    }
}
