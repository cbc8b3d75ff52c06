//! Reading and writing one THeader or TTHeader frame: the fixed part, the header section
//! (protocol id, transforms, info headers, padding) and the payload.
//!
//! ```text
//! LENGTH u32 | MAGIC u16 | FLAGS u16 | SEQID i32 | HEADER WORDS u16 | header section | payload
//! ```
//!
//! `LENGTH` counts what follows it; the header section is `HEADER WORDS` × 4 bytes. The two
//! formats differ only in their magic and in how the header section is written: THeader
//! (Apache, fbthrift) with varints, TTHeader (CloudWeGo) with `u8` ids and `u16` lengths.
//!
//! Apache's header protocol over its framed transport (`THeaderProtocol(TFramedTransport)`,
//! what its cross-test programs run for `--protocol header --transport framed`) puts each
//! whole frame, length and all, inside a framed-transport frame: read here too, and answered
//! the same way. It cannot be mistaken for a plain frame: the inner length is the outer one
//! less four, while a plain frame's first four bytes (magic and flags) read as a length
//! beyond any frame limit.

// Without a server or a client nothing reads header frames.
#![cfg_attr(not(any(feature = "server", feature = "client")), allow(dead_code))]

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::Limits;

use super::headers::Headers;
use super::section::{check_info, Section, ACL_TOKEN_KEY, INFO_ACL_TOKEN, INFO_INT_KEY_VALUE, INFO_KEY_VALUE};
use crate::error::{Phase, TransportError, TransportErrorKind};
use crate::wire::ProtocolKind;

/// The magic of Apache's THeader.
pub(crate) const THEADER_MAGIC: u16 = 0x0FFF;
/// The magic of CloudWeGo's TTHeader.
pub(crate) const TTHEADER_MAGIC: u16 = 0x1000;
/// Magic, flags, sequence id and header words: the bytes between the length and the header
/// section.
pub(crate) const FIXED_LEN: usize = 10;

/// THeader's transform id of zlib (TTHeader defines none this library knows).
const ZLIB: u32 = 1;
/// Which of the two header formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Format {
    THeader,
    TTHeader,
}

impl Format {
    pub fn magic(self) -> u16 {
        match self {
            Format::THeader => THEADER_MAGIC,
            Format::TTHeader => TTHEADER_MAGIC,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::THeader => "THeader",
            Format::TTHeader => "TTHeader",
        }
    }
}

/// What a frame says besides its payload; a reply echoes a request's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FrameInfo {
    pub format: Format,
    pub flags: u16,
    pub seqid: i32,
    /// The protocol of the payload.
    pub protocol: ProtocolKind,
    /// The payload is zlib-compressed (THeader's transform 1).
    pub zlib: bool,
    /// The frame sits inside a framed-transport frame.
    pub nested: bool,
    /// The payload is itself framed (a length, then the message): what volo-thrift's default
    /// codec, "TTHeader + framed", writes.
    pub framed_payload: bool,
    pub headers: Headers,
}

/// The protocol id of `protocol` in both formats.
fn protocol_id(protocol: ProtocolKind) -> u32 {
    match protocol {
        ProtocolKind::Compact => 2,
        ProtocolKind::Binary | ProtocolKind::BinaryNonStrict => 0,
        // THeader's `T_JSON_PROTOCOL` (fbthrift's too); TTHeader has no JSON.
        ProtocolKind::Json => 1,
    }
}

/// The protocol a protocol id of `format` names.
pub(crate) fn protocol_of(format: Format, id: u32) -> Option<ProtocolKind> {
    match (format, id) {
        (_, 0) => Some(ProtocolKind::Binary),
        (_, 2) => Some(ProtocolKind::Compact),
        (Format::THeader, 1) => Some(ProtocolKind::Json),
        _ => None,
    }
}

pub(super) fn error(format: Format, at: usize, what: String) -> TransportError {
    TransportError::new(Phase::Header, TransportErrorKind::Header(format!("{}: {what}", format.name()))).at(at)
}

/// Reads a frame whose length prefix is gone: `frame` is the `LENGTH` bytes after it, already
/// within the frame limit. Answers what the frame says and its payload (inflated, within
/// `limits.max_frame_len`, when zlib-compressed), which shares `frame`'s buffer otherwise.
pub(crate) fn read(frame: Bytes, limits: &Limits) -> Result<(FrameInfo, Bytes), TransportError> {
    let nested = starts_with_its_length(&frame);
    let frame = if nested { frame.slice(4..) } else { frame };
    let Some(fixed) = frame.get(..FIXED_LEN) else {
        let kind = TransportErrorKind::Header(format!(
            "a frame of {} bytes is shorter than a header frame's fixed {FIXED_LEN}",
            frame.len()
        ));
        return Err(TransportError::new(Phase::Header, kind).at(0));
    };
    let magic = u16::from_be_bytes([fixed[0], fixed[1]]);
    let format = match magic {
        THEADER_MAGIC => Format::THeader,
        TTHEADER_MAGIC => Format::TTHeader,
        other => {
            let kind = TransportErrorKind::Header(format!(
                "magic {other:#06x} is neither THeader's {THEADER_MAGIC:#06x} nor TTHeader's {TTHEADER_MAGIC:#06x}"
            ));
            return Err(TransportError::new(Phase::Header, kind).at(0));
        }
    };
    let flags = u16::from_be_bytes([fixed[2], fixed[3]]);
    let seqid = i32::from_be_bytes([fixed[4], fixed[5], fixed[6], fixed[7]]);
    let header_len = usize::from(u16::from_be_bytes([fixed[8], fixed[9]])) * 4;
    let end = FIXED_LEN + header_len;
    if end > frame.len() {
        let what = format!("a header section of {header_len} bytes does not fit a frame of {} bytes", frame.len());
        return Err(error(format, 8, what));
    }
    let mut section = Section { format, bytes: &frame[..end], at: FIXED_LEN };
    let id = section.int()?;
    let protocol = protocol_of(format, id).ok_or_else(|| {
        let known = match format {
            Format::THeader => "binary (0), JSON (1) nor compact (2)",
            Format::TTHeader => "binary (0) nor compact (2)",
        };
        error(format, FIXED_LEN, format!("protocol id {id} is neither {known}"))
    })?;
    let mut zlib = false;
    for _ in 0..section.int()? {
        let at = section.at;
        match section.int()? {
            ZLIB if format == Format::THeader => zlib = true,
            other => return Err(error(format, at, format!("unknown transform id {other}"))),
        }
    }
    let headers = Headers::from_wire(check_info(format, &frame, section.at, end)?);
    let payload = frame.slice(end..);
    let payload =
        if zlib { inflate(&payload, limits.max_frame_len).map_err(|w| error(format, end, w))? } else { payload };
    // A length that covers exactly the rest: a framed payload. (No message begins so: a
    // strict or compact envelope begins 80 or 82, and a non-strict name cannot fill the
    // whole message.)
    let framed_payload = starts_with_its_length(&payload);
    let payload = if framed_payload { payload.slice(4..) } else { payload };
    Ok((FrameInfo { format, flags, seqid, protocol, zlib, nested, framed_payload, headers }, payload))
}

/// Whether `bytes` begin with a 4-byte length covering exactly the rest: a frame inside.
fn starts_with_its_length(bytes: &[u8]) -> bool {
    bytes.get(..4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize) == Some(bytes.len().wrapping_sub(4))
}

/// A whole frame in one buffer of its exact size (see [`write_into`]).
#[cfg(test)]
pub(crate) fn write(
    info: &FrameInfo,
    headers: &Headers,
    max_frame_len: usize,
    payload_len: usize,
    write_payload: impl FnOnce(&mut BytesMut),
) -> Result<Bytes, TransportError> {
    let mut buf = BytesMut::new();
    write_into(info, headers, max_frame_len, payload_len, &mut buf, write_payload)?;
    Ok(buf.freeze())
}

/// Appends a whole frame to `dst`, length prefix included: `info`'s fixed part with
/// `headers`, and a payload of `payload_len` bytes that `write_payload` writes. `dst` grows
/// once, by the frame's exact size, unless the payload is compressed; on an error nothing
/// is appended.
///
/// # Errors
/// A frame longer than `max_frame_len` (checked as a reader checks it: what follows the
/// length), headers too long for the format (a section beyond 256 KiB, a TTHeader string
/// beyond 64 KiB), or zlib asked of a build without the `zlib` feature.
pub(crate) fn write_into(
    info: &FrameInfo,
    headers: &Headers,
    max_frame_len: usize,
    payload_len: usize,
    dst: &mut BytesMut,
    write_payload: impl FnOnce(&mut BytesMut),
) -> Result<(), TransportError> {
    let framed = if info.framed_payload { 4 } else { 0 };
    if !info.zlib {
        return write_frame(info, headers, max_frame_len, framed + payload_len, dst, |buf| {
            if info.framed_payload {
                buf.put_u32(payload_len as u32);
            }
            write_payload(buf)
        });
    }
    // A reader bounds the inflated payload by the frame limit too.
    if framed + payload_len > max_frame_len {
        return Err(frame_too_large(framed + payload_len, max_frame_len));
    }
    let mut plain = BytesMut::with_capacity(framed + payload_len);
    if info.framed_payload {
        plain.put_u32(payload_len as u32);
    }
    write_payload(&mut plain);
    let compressed = deflate(&plain).map_err(|what| error(info.format, 0, what))?;
    write_frame(info, headers, max_frame_len, compressed.len(), dst, |buf| buf.put_slice(&compressed))
}

fn write_frame(
    info: &FrameInfo,
    headers: &Headers,
    max_frame_len: usize,
    payload_len: usize,
    buf: &mut BytesMut,
    write_payload: impl FnOnce(&mut BytesMut),
) -> Result<(), TransportError> {
    let outer = if info.nested { 4 } else { 0 };
    // The section is measured by writing it to a counter, so every length is known (and
    // checked) before anything is written, and the buffer grows once, by the frame's exact
    // size: a fresh one frozen into `Bytes` allocates nothing more.
    let mut measured = SectionLen(0);
    write_section(info, headers, &mut measured)?;
    let words = measured.0.div_ceil(4);
    let Ok(words_u16) = u16::try_from(words) else {
        return Err(error(info.format, 0, "the header section too long for the format".into()));
    };
    let len = FIXED_LEN + words * 4 + payload_len;
    // Nested, the outer frame holds this one's length too.
    if outer + len > max_frame_len {
        return Err(frame_too_large(outer + len, max_frame_len));
    }
    crate::room::for_message(buf, outer + 4 + len);
    let start = buf.len();
    if info.nested {
        buf.put_u32(len as u32 + 4);
    }
    buf.put_u32(len as u32);
    buf.put_u16(info.format.magic());
    buf.put_u16(info.flags);
    buf.put_i32(info.seqid);
    buf.put_u16(words_u16);
    write_section(info, headers, buf)?;
    buf.put_bytes(0, words * 4 - measured.0);
    write_payload(buf);
    debug_assert_eq!(buf.len() - start, outer + 4 + len);
    Ok(())
}

fn frame_too_large(len: usize, max: usize) -> TransportError {
    TransportError::new(Phase::Encode, TransportErrorKind::FrameTooLarge { len: len as u64, max })
}

/// Where a header section is written: a frame's buffer, or a [`SectionLen`] that measures it.
trait SectionOut {
    fn write_u8(&mut self, b: u8);
    fn write_u16(&mut self, v: u16);
    fn write_slice(&mut self, bytes: &[u8]);
}

impl SectionOut for BytesMut {
    #[inline]
    fn write_u8(&mut self, b: u8) {
        BufMut::put_u8(self, b)
    }
    #[inline]
    fn write_u16(&mut self, v: u16) {
        BufMut::put_u16(self, v)
    }
    #[inline]
    fn write_slice(&mut self, bytes: &[u8]) {
        BufMut::put_slice(self, bytes)
    }
}

/// The length of what would be written.
struct SectionLen(usize);

impl SectionOut for SectionLen {
    #[inline]
    fn write_u8(&mut self, _: u8) {
        self.0 += 1;
    }
    #[inline]
    fn write_u16(&mut self, _: u16) {
        self.0 += 2;
    }
    #[inline]
    fn write_slice(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

/// Writes the header section of `info` and `headers`, unpadded.
#[inline]
fn write_section<O: SectionOut>(info: &FrameInfo, headers: &Headers, out: &mut O) -> Result<(), TransportError> {
    // The protocol id, the transform count and each transform: one byte each in both formats.
    out.write_u8(protocol_id(info.protocol) as u8);
    out.write_u8(u8::from(info.zlib));
    if info.zlib {
        out.write_u8(ZLIB as u8);
    }
    match headers.encoding(info.format) {
        Some(encoding) => {
            out.write_slice(encoding);
            Ok(())
        }
        None => write_info(info.format, headers, out),
    }
}

/// `headers` encoded once for `format`: frames that carry them copy the encoding (a client's
/// headers, the same on every call of a handle). Headers the format cannot hold are kept as
/// they are: integer keys on THeader (which writes none, and their getters still show), and
/// values too long for it (for writing the frame to refuse).
#[cfg(feature = "client")]
pub(crate) fn encode_headers(format: Format, headers: Headers) -> Headers {
    let drops_ints = format == Format::THeader && headers.iter_int().next().is_some();
    if drops_ints || headers.is_empty() || headers.encoding(format).is_some() {
        return headers;
    }
    let mut measured = SectionLen(0);
    if write_info(format, &headers, &mut measured).is_err() {
        return headers;
    }
    let mut encoding = BytesMut::with_capacity(measured.0);
    match write_info(format, &headers, &mut encoding) {
        Ok(()) => Headers::from_wire(Some(super::section::WireHeaders::encoded(format, encoding.freeze()))),
        Err(_) => headers,
    }
}

/// Writes the info headers of `headers` in `format`.
fn write_info<O: SectionOut>(format: Format, headers: &Headers, out: &mut O) -> Result<(), TransportError> {
    if headers.is_empty() {
        // The common reply.
        return Ok(());
    }
    let too_long = |what: &str| error(format, 0, format!("{what} too long for the format"));
    let put_int = |out: &mut O, v: u32| match format {
        Format::THeader => put_varint(out, v),
        Format::TTHeader => out.write_u8(v as u8),
    };
    let put_len = |out: &mut O, len: usize| -> Result<(), TransportError> {
        match format {
            Format::THeader => put_varint(out, u32::try_from(len).map_err(|_| too_long("a header"))?),
            Format::TTHeader => out.write_u16(u16::try_from(len).map_err(|_| too_long("a header or header count"))?),
        }
        Ok(())
    };
    // TTHeader carries the ACL token in a block of its own.
    let strings = || headers.iter().filter(|(k, _)| format == Format::THeader || *k != ACL_TOKEN_KEY.as_bytes());
    let count = strings().count();
    if count > 0 {
        put_int(out, INFO_KEY_VALUE);
        put_len(out, count)?;
        for (k, v) in strings() {
            put_len(out, k.len())?;
            out.write_slice(k);
            put_len(out, v.len())?;
            out.write_slice(v);
        }
    }
    if format == Format::TTHeader {
        let count = headers.iter_int().count();
        if count > 0 {
            out.write_u8(INFO_INT_KEY_VALUE as u8);
            put_len(out, count)?;
            for (k, v) in headers.iter_int() {
                out.write_u16(k);
                put_len(out, v.len())?;
                out.write_slice(v);
            }
        }
        if let Some(token) = headers.get_bytes(ACL_TOKEN_KEY.as_bytes()) {
            out.write_u8(INFO_ACL_TOKEN as u8);
            put_len(out, token.len())?;
            out.write_slice(token);
        }
    }
    Ok(())
}

#[inline]
fn put_varint(out: &mut impl SectionOut, mut v: u32) {
    while v >= 0x80 {
        out.write_u8(v as u8 | 0x80);
        v >>= 7;
    }
    out.write_u8(v as u8);
}

#[cfg(feature = "zlib")]
fn inflate(compressed: &[u8], max: usize) -> Result<Bytes, String> {
    use std::io::Read;
    let mut out = Vec::new();
    // One byte past the limit tells "too long" from "exactly the limit".
    let mut reader = flate2::read::ZlibDecoder::new(compressed).take(max as u64 + 1);
    reader.read_to_end(&mut out).map_err(|e| format!("the zlib payload does not inflate: {e}"))?;
    if out.len() > max {
        return Err(format!("the zlib payload inflates beyond the maximum frame size {max}"));
    }
    Ok(Bytes::from(out))
}

#[cfg(not(feature = "zlib"))]
fn inflate(_compressed: &[u8], _max: usize) -> Result<Bytes, String> {
    Err("a zlib-compressed payload, and thrift-net was built without its `zlib` feature".into())
}

#[cfg(feature = "zlib")]
fn deflate(plain: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(plain).and_then(|()| encoder.finish()).map_err(|e| format!("zlib compression failed: {e}"))
}

#[cfg(not(feature = "zlib"))]
fn deflate(_plain: &[u8]) -> Result<Vec<u8>, String> {
    Err("zlib compression asked, and thrift-net was built without its `zlib` feature".into())
}
