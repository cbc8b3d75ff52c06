//! The header section of a frame, read in place: a cursor over its ids, counts and strings,
//! and the info headers walked without copying or allocating.
//!
//! A frame's info headers are checked once when the frame is read ([`check_info`]) and then
//! kept as the frame's bytes ([`WireHeaders`]): [`Headers`](super::Headers) walks them again
//! when asked, so a request whose headers nobody changes costs no allocation for them.

use bytes::Bytes;

use super::frame::{error, Format};
use crate::error::TransportError;

/// Info header types. THeader: key/value (1) and fbthrift's persistent key/value (2), both
/// read as headers. TTHeader: key/value, integer-key/value and the ACL token.
pub(super) const INFO_KEY_VALUE: u32 = 1;
const INFO_PERSISTENT_KEY_VALUE: u32 = 2;
pub(super) const INFO_INT_KEY_VALUE: u32 = 0x10;
pub(super) const INFO_ACL_TOKEN: u32 = 0x11;

/// The most headers one info block may hold: a count beyond it is refused when the frame is
/// read, so a header section cannot declare more than what a getter walks or a change
/// copies (64 bytes of bookkeeping per header) stays small.
pub(crate) const MAX_HEADERS: usize = 1024;

/// The string key TTHeader's ACL token is kept under in [`Headers`](super::Headers).
pub(crate) const ACL_TOKEN_KEY: &str = "acl_token";

/// A cursor over a header section: `bytes` ends where the section does, and offsets (for
/// errors) count from the start of the frame.
pub(super) struct Section<'a> {
    pub format: Format,
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Section<'a> {
    fn short(&self, what: &str) -> TransportError {
        error(self.format, self.at, format!("the header section ends inside {what}"))
    }

    /// Whether the section has been read to its end.
    #[inline]
    pub fn is_done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// An id or count: a varint (THeader) or a byte (TTHeader).
    #[inline]
    pub fn int(&mut self) -> Result<u32, TransportError> {
        match self.format {
            Format::THeader => self.varint(),
            Format::TTHeader => self.byte().map(u32::from),
        }
    }

    #[inline]
    fn byte(&mut self) -> Result<u8, TransportError> {
        let b = *self.bytes.get(self.at).ok_or_else(|| self.short("an id"))?;
        self.at += 1;
        Ok(b)
    }

    #[inline]
    fn u16(&mut self) -> Result<u16, TransportError> {
        let b = self.bytes.get(self.at..self.at + 2).ok_or_else(|| self.short("a 16-bit length"))?;
        self.at += 2;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// An unsigned LEB128 varint of at most 32 bits. Ids, counts and the lengths of short
    /// strings are one byte: read inline, the rest out of line.
    #[inline]
    fn varint(&mut self) -> Result<u32, TransportError> {
        match self.bytes.get(self.at) {
            Some(&b) if b < 0x80 => {
                self.at += 1;
                Ok(u32::from(b))
            }
            _ => self.long_varint(),
        }
    }

    #[cold]
    #[inline(never)]
    fn long_varint(&mut self) -> Result<u32, TransportError> {
        let start = self.at;
        let mut value: u64 = 0;
        for shift in (0..35).step_by(7) {
            let b = self.byte().map_err(|_| self.short("a varint"))?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(value).map_err(|_| error(self.format, start, "a varint beyond 32 bits".into()));
            }
        }
        Err(error(self.format, start, "a varint longer than 5 bytes".into()))
    }

    /// A length-prefixed string: a varint length (THeader) or a `u16` one (TTHeader).
    #[inline]
    fn string(&mut self) -> Result<&'a [u8], TransportError> {
        let len = match self.format {
            Format::THeader => self.varint()? as usize,
            Format::TTHeader => usize::from(self.u16()?),
        };
        let bytes = self.bytes.get(self.at..self.at.saturating_add(len)).ok_or_else(|| self.short("a string"))?;
        self.at += len;
        Ok(bytes)
    }

    /// A count of entries, each at least `min` bytes: one that cannot fit is refused before
    /// anything is read.
    #[inline]
    fn count(&mut self, min: usize) -> Result<usize, TransportError> {
        let at = self.at;
        let n = match self.format {
            Format::THeader => self.varint()? as usize,
            Format::TTHeader => usize::from(self.u16()?),
        };
        if n.saturating_mul(min) > self.bytes.len() - self.at {
            return Err(error(self.format, at, format!("{n} headers do not fit the header section")));
        }
        if n > MAX_HEADERS {
            return Err(error(self.format, at, format!("{n} headers in one block, beyond the {MAX_HEADERS} taken")));
        }
        Ok(n)
    }
}

/// One info header as the section holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Entry<'a> {
    /// A string-keyed header.
    Str(&'a [u8], &'a [u8]),
    /// An integer-keyed header (TTHeader).
    Int(u16, &'a [u8]),
    /// TTHeader's ACL token, kept under [`ACL_TOKEN_KEY`].
    AclToken(&'a [u8]),
}

/// The info headers from a cursor's position to the end of the section, in order. Padding
/// (type 0) or a type this library does not know ends them, as in Apache's readers; an
/// error ends them too.
pub(super) struct InfoHeaders<'a> {
    section: Section<'a>,
    /// The string (`true`) or integer headers left in the current block.
    left: (bool, usize),
    done: bool,
}

impl<'a> InfoHeaders<'a> {
    pub fn new(section: Section<'a>) -> InfoHeaders<'a> {
        InfoHeaders { section, left: (true, 0), done: false }
    }

    #[inline]
    fn step(&mut self) -> Result<Option<Entry<'a>>, TransportError> {
        let s = &mut self.section;
        loop {
            match self.left {
                (strings, n) if n > 0 => {
                    self.left = (strings, n - 1);
                    return Ok(Some(if strings {
                        let key = s.string()?;
                        Entry::Str(key, s.string()?)
                    } else {
                        let key = s.u16()?;
                        Entry::Int(key, s.string()?)
                    }));
                }
                _ if s.is_done() => return Ok(None),
                _ => {}
            }
            match (s.format, s.int()?) {
                (Format::THeader, INFO_KEY_VALUE | INFO_PERSISTENT_KEY_VALUE) | (Format::TTHeader, INFO_KEY_VALUE) => {
                    self.left = (true, s.count(2)?);
                }
                (Format::TTHeader, INFO_INT_KEY_VALUE) => self.left = (false, s.count(4)?),
                (Format::TTHeader, INFO_ACL_TOKEN) => return Ok(Some(Entry::AclToken(s.string()?))),
                _ => return Ok(None),
            }
        }
    }
}

impl<'a> Iterator for InfoHeaders<'a> {
    type Item = Result<Entry<'a>, TransportError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.step().transpose();
        self.done = !matches!(next, Some(Ok(_)));
        next
    }
}

/// Info headers kept as their encoding: those of a frame [`check_info`] accepted, or those a
/// client encodes once for every call ([`WireHeaders::encoded`]).
#[derive(Clone, Debug)]
pub(crate) struct WireHeaders {
    format: Format,
    /// Bytes ending where the last info header does (a frame's, up to there).
    section: Bytes,
    /// Where the first info header begins.
    start: usize,
}

impl WireHeaders {
    /// Info headers `encoding` holds, all of it, in `format`: what
    /// [`write_info`](super::frame) wrote.
    #[cfg(feature = "client")]
    pub(super) fn encoded(format: Format, encoding: Bytes) -> WireHeaders {
        WireHeaders { format, section: encoding, start: 0 }
    }

    /// The format they are encoded in.
    pub(super) fn format(&self) -> Format {
        self.format
    }

    /// The headers, in the order the frame holds them.
    pub(super) fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        let section = Section { format: self.format, bytes: &self.section, at: self.start };
        // Checked when read: no entry fails, and stopping at one would be the reader's rule.
        InfoHeaders::new(section).map_while(Result::ok)
    }

    /// Their encoding, when it is in `format`: written as is into another frame.
    pub(super) fn encoding(&self, format: Format) -> Option<&[u8]> {
        (self.format == format).then(|| &self.section[self.start..])
    }

    /// `part` of an entry as a `Bytes` sharing the frame.
    pub(super) fn share(&self, part: &[u8]) -> Bytes {
        self.section.slice_ref(part)
    }
}

/// Checks the info headers of `frame` from `start` to `end` (the end of its header section):
/// `None` when there are none, else the headers kept in place.
pub(super) fn check_info(
    format: Format,
    frame: &Bytes,
    start: usize,
    end: usize,
) -> Result<Option<WireHeaders>, TransportError> {
    let mut walker = InfoHeaders::new(Section { format, bytes: &frame[..end], at: start });
    let mut last = start;
    while let Some(entry) = walker.next() {
        entry?;
        last = walker.section.at;
    }
    Ok((last > start).then(|| WireHeaders { format, section: frame.slice(..last), start }))
}
