//! JSON to binary protocol bytes, guided by a [`Shape`], under [`Limits`].
//!
//! A recursive-descent parser whose recursion is bounded by `max_depth`; every declared
//! count is checked against `max_container_len` and the bytes left (each element takes at
//! least one byte of JSON), and the output never grows ahead of the input read (at most
//! eight bytes of binary per byte of JSON), so hostile input allocates in proportion to
//! itself.

use std::borrow::Cow;

use super::Shape;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::protocol::MessageHeader;
use crate::wire::MessageType;

/// The wire type id of a JSON type tag.
fn ttype_of(tag: &[u8]) -> Option<u8> {
    Some(match tag {
        b"tf" => 2,
        b"i8" => 3,
        b"dbl" => 4,
        b"i16" => 6,
        b"i32" => 8,
        b"i64" => 10,
        b"str" => 11,
        b"rec" => 12,
        b"map" => 13,
        b"set" => 14,
        b"lst" => 15,
        b"uid" => 16,
        _ => return None,
    })
}

/// A cursor over JSON input.
pub(super) struct Parser<'a> {
    input: &'a [u8],
    pos: usize,
    depth: u16,
    limits: Limits,
}

impl<'a> Parser<'a> {
    pub(super) fn new(input: &'a [u8], limits: &Limits) -> Parser<'a> {
        Parser { input, pos: 0, depth: 0, limits: *limits }
    }

    pub(super) fn position(&self) -> usize {
        self.pos
    }

    pub(super) fn set_position(&mut self, pos: usize) {
        self.pos = pos.min(self.input.len());
    }

    fn invalid(&self, what: &str) -> Error {
        Error::at(ErrorKind::InvalidData(format!("JSON: {what}")), self.pos)
    }

    fn truncated(&self) -> Error {
        Error::at(ErrorKind::Truncated { needed: 1, remaining: 0 }, self.pos)
    }

    fn remaining(&self) -> usize {
        self.input.len() - self.pos
    }

    /// Skips JSON whitespace (Apache writes none, but a hand-written message may have it).
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.input.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Result<u8> {
        self.ws();
        self.input.get(self.pos).copied().ok_or_else(|| self.truncated())
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        if self.peek()? != c {
            return Err(self.invalid(&format!("expected '{}'", c as char)));
        }
        self.pos += 1;
        Ok(())
    }

    /// Fails unless only whitespace is left.
    pub(super) fn end(&mut self) -> Result<()> {
        self.ws();
        match self.remaining() {
            0 => Ok(()),
            n => Err(Error::at(ErrorKind::TrailingBytes(n), self.pos)),
        }
    }

    /// The `]` closing a message, then the end.
    pub(super) fn message_end(&mut self) -> Result<()> {
        self.expect(b']')?;
        self.end()
    }

    /// `[1,"name",type,seqid,`, the name borrowed.
    pub(super) fn message_begin(&mut self) -> Result<MessageHeader<'a>> {
        self.expect(b'[')?;
        if self.integer()? != super::VERSION {
            return Err(Error::at(ErrorKind::BadEnvelope("JSON protocol version is not 1"), self.pos));
        }
        self.expect(b',')?;
        self.expect(b'"')?;
        let start = self.pos;
        let Some(len) = self.input[start..].iter().position(|&b| b == b'"' || b == b'\\') else {
            return Err(self.truncated());
        };
        if self.input[start + len] == b'\\' {
            return Err(Error::at(ErrorKind::BadEnvelope("escaped method name"), start + len));
        }
        if len > self.limits.max_string_len {
            let kind = ErrorKind::LengthTooLarge {
                len: len as u64,
                limit: self.limits.max_string_len as u64,
                what: "max_string_len",
            };
            return Err(Error::at(kind, start));
        }
        let name = std::str::from_utf8(&self.input[start..start + len])
            .map_err(|_| Error::at(ErrorKind::InvalidUtf8, start))?;
        self.pos = start + len + 1;
        self.expect(b',')?;
        let kind = self.integer()?;
        let kind = u8::try_from(kind)
            .ok()
            .and_then(MessageType::from_u8)
            .ok_or_else(|| Error::at(ErrorKind::BadEnvelope("unknown message type"), self.pos))?;
        self.expect(b',')?;
        let seqid = self.integer()?;
        let seqid = i32::try_from(seqid).map_err(|_| self.invalid("sequence id out of range"))?;
        self.expect(b',')?;
        Ok(MessageHeader { name, kind, seqid })
    }

    /// The characters of a number: `+-.0-9eE`.
    fn numeric(&mut self) -> &'a [u8] {
        let start = self.pos;
        while let Some(b'+' | b'-' | b'.' | b'0'..=b'9' | b'e' | b'E') = self.input.get(self.pos) {
            self.pos += 1;
        }
        &self.input[start..self.pos]
    }

    /// An integer, quoted or not (Apache quotes map keys and field ids).
    fn integer(&mut self) -> Result<i64> {
        let quoted = self.peek()? == b'"';
        if quoted {
            self.pos += 1;
        }
        let start = self.pos;
        let digits = self.numeric();
        let v = std::str::from_utf8(digits).ok().and_then(|s| s.parse::<i64>().ok());
        let Some(v) = v else {
            self.pos = start;
            return Err(if self.remaining() == 0 { self.truncated() } else { self.invalid("expected an integer") });
        };
        if quoted {
            self.expect_raw(b'"')?;
        }
        Ok(v)
    }

    /// `c` at once, no whitespace before it.
    fn expect_raw(&mut self, c: u8) -> Result<()> {
        match self.input.get(self.pos) {
            Some(&b) if b == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.invalid(&format!("expected '{}'", c as char))),
            None => Err(self.truncated()),
        }
    }

    /// An integer that must fit `bits` bits.
    fn int_of(&mut self, bits: u32) -> Result<i64> {
        let at = self.pos;
        let v = self.integer()?;
        let (min, max) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
        if !(min..=max).contains(&i128::from(v)) {
            return Err(Error::at(ErrorKind::InvalidData(format!("JSON: {v} does not fit in i{bits}")), at));
        }
        Ok(v)
    }

    fn double(&mut self) -> Result<f64> {
        let at = self.pos;
        let text: Cow<'a, [u8]> = if self.peek()? == b'"' { self.string()? } else { Cow::Borrowed(self.numeric()) };
        let v = match &*text {
            b"NaN" => Some(f64::NAN),
            b"Infinity" => Some(f64::INFINITY),
            b"-Infinity" => Some(f64::NEG_INFINITY),
            t if !t.is_empty() && t.iter().all(|b| b"+-.0123456789eE".contains(b)) => {
                std::str::from_utf8(t).ok().and_then(|s| s.parse::<f64>().ok())
            }
            _ => None,
        };
        v.ok_or_else(|| {
            if self.remaining() == 0 {
                self.truncated()
            } else {
                Error::at(ErrorKind::InvalidData("JSON: expected a double".into()), at)
            }
        })
    }

    /// A quoted string, its escapes undone: borrowed when it has none.
    fn string(&mut self) -> Result<Cow<'a, [u8]>> {
        self.expect(b'"')?;
        let start = self.pos;
        let max = self.limits.max_string_len;
        // Fast path: no escapes.
        let Some(len) = self.input[start..].iter().position(|&b| b == b'"' || b == b'\\') else {
            self.pos = self.input.len();
            return Err(self.truncated());
        };
        if self.input[start + len] == b'"' {
            if len > max {
                return Err(self.string_too_long(len, start));
            }
            self.pos = start + len + 1;
            return Ok(Cow::Borrowed(&self.input[start..start + len]));
        }
        let mut out = self.input[start..start + len].to_vec();
        self.pos = start + len;
        loop {
            if out.len() > max {
                return Err(self.string_too_long(out.len(), start));
            }
            let Some(&b) = self.input.get(self.pos) else { return Err(self.truncated()) };
            self.pos += 1;
            match b {
                b'"' => return Ok(Cow::Owned(out)),
                b'\\' => {
                    let Some(&e) = self.input.get(self.pos) else { return Err(self.truncated()) };
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            let c = match unit {
                                0xd800..=0xdbff => {
                                    // A high surrogate: a low one must follow.
                                    if self.input.get(self.pos..self.pos + 2) != Some(b"\\u") {
                                        return Err(self.invalid("expected a low surrogate"));
                                    }
                                    self.pos += 2;
                                    let low = self.hex4()?;
                                    if !(0xdc00..=0xdfff).contains(&low) {
                                        return Err(self.invalid("expected a low surrogate"));
                                    }
                                    char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))
                                }
                                0xdc00..=0xdfff => None,
                                _ => char::from_u32(unit),
                            };
                            let Some(c) = c else { return Err(self.invalid("unpaired surrogate")) };
                            let mut buf = [0; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(self.invalid("unknown escape")),
                    }
                }
                _ => out.push(b),
            }
        }
    }

    fn string_too_long(&self, len: usize, at: usize) -> Error {
        let limit = self.limits.max_string_len as u64;
        Error::at(ErrorKind::LengthTooLarge { len: len as u64, limit, what: "max_string_len" }, at)
    }

    fn hex4(&mut self) -> Result<u32> {
        let Some(digits) = self.input.get(self.pos..self.pos + 4) else {
            self.pos = self.input.len();
            return Err(self.truncated());
        };
        let mut v = 0;
        for &d in digits {
            let Some(x) = (d as char).to_digit(16) else { return Err(self.invalid("bad \\u escape")) };
            v = v << 4 | x;
        }
        self.pos += 4;
        Ok(v)
    }

    /// A type tag: `"i32"` and the like.
    fn tag(&mut self) -> Result<u8> {
        let at = self.pos;
        let tag = self.string()?;
        ttype_of(&tag).ok_or_else(|| Error::at(ErrorKind::InvalidData("JSON: unknown type tag".into()), at))
    }

    /// A declared element count: not negative, within the limit and the bytes left.
    fn count(&mut self) -> Result<usize> {
        let at = self.pos;
        let n = self.integer()?;
        if n < 0 {
            return Err(Error::at(ErrorKind::NegativeLength(n), at));
        }
        let max = self.limits.max_container_len;
        if n as u64 > max as u64 {
            return Err(Error::at(
                ErrorKind::LengthTooLarge { len: n as u64, limit: max as u64, what: "max_container_len" },
                at,
            ));
        }
        // Every element takes at least one byte and a separator.
        let fit = self.remaining() / 2 + 1;
        if n as u64 > fit as u64 {
            return Err(Error::at(
                ErrorKind::LengthTooLarge { len: n as u64, limit: fit as u64, what: "bytes remaining" },
                at,
            ));
        }
        Ok(n as usize)
    }

    /// One value of wire type `ttype`, written in binary to `out`. Numbers are read quoted or
    /// not, wherever they are (Apache quotes map keys).
    pub(super) fn value(&mut self, ttype: u8, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
        match ttype {
            2 => {
                let v = self.integer()?;
                out.push(u8::from(v != 0));
            }
            3 => out.push(self.int_of(8)? as i8 as u8),
            6 => out.extend_from_slice(&(self.int_of(16)? as i16).to_be_bytes()),
            8 => out.extend_from_slice(&(self.int_of(32)? as i32).to_be_bytes()),
            10 => out.extend_from_slice(&self.integer()?.to_be_bytes()),
            4 => out.extend_from_slice(&self.double()?.to_bits().to_be_bytes()),
            11 => {
                let at = self.pos;
                let s = self.string()?;
                let bytes = if shape.is_binary() {
                    Cow::Owned(
                        unbase64(&s)
                            .ok_or_else(|| Error::at(ErrorKind::InvalidData("JSON: invalid base64".into()), at))?,
                    )
                } else {
                    s
                };
                out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
                out.extend_from_slice(&bytes);
            }
            16 => {
                let at = self.pos;
                let s = self.string()?;
                let u = std::str::from_utf8(&s).ok().and_then(|s| s.parse::<crate::Uuid>().ok());
                let u = u.ok_or_else(|| Error::at(ErrorKind::InvalidData("JSON: invalid uuid".into()), at))?;
                out.extend_from_slice(&u.0);
            }
            12..=15 => {
                if self.depth >= self.limits.max_depth {
                    return Err(Error::at(ErrorKind::DepthExceeded(self.limits.max_depth), self.pos));
                }
                self.depth += 1;
                match ttype {
                    12 => self.fields(shape, out)?,
                    13 => self.map(shape, out)?,
                    _ => self.list(shape, out)?,
                }
                self.depth -= 1;
            }
            other => return Err(Error::at(ErrorKind::InvalidType(other), self.pos)),
        }
        Ok(())
    }

    fn fields(&mut self, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
        self.expect(b'{')?;
        if self.peek()? == b'}' {
            self.pos += 1;
            out.push(0);
            return Ok(());
        }
        loop {
            let at = self.pos;
            let id = self.integer()?;
            let id =
                i16::try_from(id).map_err(|_| Error::at(ErrorKind::InvalidData("JSON: bad field id".into()), at))?;
            self.expect(b':')?;
            self.expect(b'{')?;
            let t = self.tag()?;
            self.expect(b':')?;
            out.push(t);
            out.extend_from_slice(&id.to_be_bytes());
            self.value(t, shape.field(id), out)?;
            self.expect(b'}')?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    out.push(0);
                    return Ok(());
                }
                _ => return Err(self.invalid("expected ',' or '}'")),
            }
        }
    }

    fn list(&mut self, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
        self.expect(b'[')?;
        let t = self.tag()?;
        self.expect(b',')?;
        let n = self.count()?;
        out.push(t);
        out.extend_from_slice(&(n as u32).to_be_bytes());
        let elem = shape.elem();
        for _ in 0..n {
            self.expect(b',')?;
            self.value(t, elem, out)?;
        }
        self.expect(b']')
    }

    fn map(&mut self, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
        self.expect(b'[')?;
        let k = self.tag()?;
        self.expect(b',')?;
        let v = self.tag()?;
        self.expect(b',')?;
        let n = self.count()?;
        self.expect(b',')?;
        self.expect(b'{')?;
        out.push(k);
        out.push(v);
        out.extend_from_slice(&(n as u32).to_be_bytes());
        let (ks, vs) = shape.entries();
        for i in 0..n {
            if i > 0 {
                self.expect(b',')?;
            }
            self.value(k, ks, out)?;
            self.expect(b':')?;
            self.value(v, vs, out)?;
        }
        self.expect(b'}')?;
        self.expect(b']')
    }
}

/// Decodes standard base64, padded or not (Apache's Java and C++ write none, Python pads).
pub(super) fn unbase64(text: &[u8]) -> Option<Vec<u8>> {
    let text = text.strip_suffix(b"==").or_else(|| text.strip_suffix(b"=")).unwrap_or(text);
    if text.len() % 4 == 1 {
        return None;
    }
    let sextet = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= sextet(c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}
