//! The transports' error: what failed, in which phase, and where in the message.

use std::fmt;
use std::io;

/// The stage of the transport that failed; the first word of every message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Phase {
    /// Reading a framed transport's 4-byte length prefix.
    Frame,
    /// Walking a buffered message to find its end (envelope or body).
    SkipDecoder,
    /// Telling the transport and protocol from a connection's first bytes.
    Detect,
    /// Reading a THeader or TTHeader frame's header.
    Header,
    /// Writing a message.
    Encode,
    /// The socket itself.
    Io,
}

impl Phase {
    /// The phase's name as it prefixes messages.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Frame => "framed",
            Phase::SkipDecoder => "skip-decoder",
            Phase::Detect => "protocol detection",
            Phase::Header => "header frame",
            Phase::Encode => "encode",
            Phase::Io => "io",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What went wrong, without where; see [`TransportError`] for the place.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// A frame length prefix that is negative.
    #[error("negative frame length {0}")]
    NegativeFrameLength(i32),
    /// A frame length prefix of zero: no message fits in it.
    #[error("empty frame")]
    EmptyFrame,
    /// A frame (read or written) longer than the maximum frame size. When the four bytes
    /// read as a length are the start of another protocol (`HTTP`, `GET `, a TLS record), the
    /// message says so: that is usually the mistake.
    #[error("frame of {len} bytes exceeds the maximum frame size {max}{}", not_thrift_hint(.len))]
    FrameTooLarge {
        /// The frame's length.
        len: u64,
        /// The limit ([`Limits::max_frame_len`](thrift_core::Limits::max_frame_len)).
        max: usize,
    },
    /// A message that is, or declares it will be, longer than the message size limit.
    #[error("message would reach {len} bytes, beyond the maximum message size {max}")]
    MessageTooLarge {
        /// How long the message is or would be at least.
        len: u64,
        /// The limit ([`Limits::max_message_len`](thrift_core::Limits::max_message_len)).
        max: usize,
    },
    /// A malformed message, or one beyond a limit, as `thrift-core`'s walker (the
    /// [`Scanner`](thrift_core::Scanner)) reported it: a bad token, a depth, string,
    /// container or message-size limit broken.
    #[error("{what}: {kind}")]
    Protocol {
        /// Which token was being read (`"field header"`, `"list header"`, `"envelope"`,
        /// `"i32"`...), as [`thrift_core::Error::token`].
        what: &'static str,
        /// The walker's complaint.
        kind: thrift_core::ErrorKind,
    },
    /// The stream ended part way through a message.
    #[error("stream ended mid-message after {buffered} bytes")]
    Truncated {
        /// The bytes of the unfinished message that had arrived.
        buffered: usize,
    },
    /// A THeader or TTHeader frame whose header is malformed, beyond a limit, or asks for
    /// what this build cannot do (an unknown transform or protocol id).
    #[error("{0}")]
    Header(String),
    /// An HTTP exchange that failed: the request could not be made, or the answer was not a
    /// `200 OK` with a body within the limits.
    #[error("{0}")]
    Http(String),
    /// First bytes that match no transport and protocol this library speaks.
    #[error("unrecognized protocol: {0}")]
    Unrecognized(&'static str),
    /// First bytes that more than one transport and protocol could explain.
    #[error("ambiguous protocol: {0}")]
    Ambiguous(String),
    /// The socket failed.
    #[error("{0}")]
    Io(#[source] io::Error),
}

/// What a frame length really is when its four bytes begin another protocol's traffic.
fn not_thrift_hint(len: &u64) -> String {
    let bytes = (*len as u32).to_be_bytes();
    let what = match &bytes {
        b"HTTP" => "an HTTP response: the peer is an HTTP server",
        b"GET " | b"POST" | b"PUT " | b"HEAD" => "an HTTP request: the peer speaks HTTP",
        [0x16, 0x03, ..] | [0x15, 0x03, ..] => "a TLS record: the peer expects TLS",
        _ if *len > u64::from(u32::MAX) => return String::new(),
        _ if bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') => {
            return format!(
                " (its length bytes read as text {:?}: is the peer speaking Thrift?)",
                String::from_utf8_lossy(&bytes)
            );
        }
        _ => return String::new(),
    };
    format!(" (its length bytes {:?} are {what}, not Thrift)", String::from_utf8_lossy(&bytes))
}

/// An error of a transport codec or of protocol detection: what failed, in which
/// [`Phase`], at which offset in the message, how deep and in which field.
///
/// Displayed as `skip-decoder: field header: invalid type id 0x1f at offset 1234, depth 3 (field id 7)`.
/// Offsets count from the start of the message (for `skip-decoder`) or of the bytes looked
/// at (for `framed` and `protocol detection`); the stream offset of that start, when a codec
/// knows it, follows.
pub struct TransportError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    phase: Phase,
    kind: TransportErrorKind,
    offset: Option<usize>,
    depth: Option<usize>,
    field_id: Option<i16>,
    stream_offset: Option<u64>,
}

impl TransportError {
    /// An error of `kind` in `phase`, with no place yet.
    #[cold]
    pub fn new(phase: Phase, kind: TransportErrorKind) -> TransportError {
        TransportError(Box::new(Inner { phase, kind, offset: None, depth: None, field_id: None, stream_offset: None }))
    }

    /// Sets the byte offset (from the start of the message or of the bytes looked at).
    #[cold]
    pub fn at(mut self, offset: usize) -> TransportError {
        self.0.offset = Some(offset);
        self
    }

    /// Sets the nesting depth (1 inside the message's top-level struct).
    #[cold]
    pub fn with_depth(mut self, depth: usize) -> TransportError {
        self.0.depth = Some(depth);
        self
    }

    /// Sets the id of the field being read (or last read) in the innermost struct.
    #[cold]
    pub fn with_field_id(mut self, id: Option<i16>) -> TransportError {
        self.0.field_id = id;
        self
    }

    /// Sets the offset in the whole stream of the message (or frame) the error is in.
    #[cold]
    pub fn with_stream_offset(mut self, offset: u64) -> TransportError {
        self.0.stream_offset = Some(offset);
        self
    }

    /// The phase that failed.
    pub fn phase(&self) -> Phase {
        self.0.phase
    }

    /// What went wrong.
    pub fn kind(&self) -> &TransportErrorKind {
        &self.0.kind
    }

    /// The byte offset where it went wrong, when known.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// The nesting depth where it went wrong, when known.
    pub fn depth(&self) -> Option<usize> {
        self.0.depth
    }

    /// The id of the field being read (or last read) in the innermost struct, when known.
    pub fn field_id(&self) -> Option<i16> {
        self.0.field_id
    }

    /// The stream offset of the start of the message the error is in, when known.
    pub fn stream_offset(&self) -> Option<u64> {
        self.0.stream_offset
    }

    /// Whether the socket failed, rather than the bytes on it being wrong.
    pub fn is_io(&self) -> bool {
        matches!(self.0.kind, TransportErrorKind::Io(_))
    }
}

impl TransportError {
    /// The transport's error for an error of `thrift-core`'s walker in `phase`: its kind
    /// under the token it was reading, with its offset, depth and field id. The one place a
    /// walker error becomes a transport error.
    #[cold]
    pub(crate) fn from_walk(phase: Phase, e: &thrift_core::Error) -> TransportError {
        let kind = TransportErrorKind::Protocol { what: e.token().unwrap_or("message"), kind: e.kind().clone() };
        let mut out = TransportError::new(phase, kind);
        out.0.offset = e.offset();
        out.0.depth = e.depth();
        out.with_field_id(e.field_id())
    }
}

impl From<io::Error> for TransportError {
    fn from(e: io::Error) -> Self {
        TransportError::new(Phase::Io, TransportErrorKind::Io(e))
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &*self.0;
        write!(f, "{}: {}", e.phase, e.kind)?;
        if let Some(offset) = e.offset {
            write!(f, " at offset {offset}")?;
        }
        if let Some(depth) = e.depth {
            f.write_str(if e.offset.is_some() { ", " } else { " at " })?;
            write!(f, "depth {depth}")?;
        }
        if let Some(id) = e.field_id {
            write!(f, " (field id {id})")?;
        }
        if let Some(stream) = e.stream_offset {
            write!(f, " in the message at stream offset {stream}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TransportError({self})")
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_length_that_is_another_protocol_is_named() {
        let e = |len: u64| TransportErrorKind::FrameTooLarge { len, max: 16_384_000 }.to_string();
        assert_eq!(
            e(1_213_486_160),
            "frame of 1213486160 bytes exceeds the maximum frame size 16384000 \
             (its length bytes \"HTTP\" are an HTTP response: the peer is an HTTP server, not Thrift)"
        );
        assert!(e(u64::from(u32::from_be_bytes(*b"GET "))).contains("an HTTP request"));
        assert!(e(u64::from(u32::from_be_bytes([0x16, 0x03, 0x01, 0x02]))).contains("a TLS record"));
        assert!(e(u64::from(u32::from_be_bytes(*b"SSH-"))).contains("read as text \"SSH-\""));
        assert_eq!(e(20_000_000), "frame of 20000000 bytes exceeds the maximum frame size 16384000");
    }

    #[test]
    fn display_names_phase_place_depth_and_field() {
        let kind =
            TransportErrorKind::Protocol { what: "field header", kind: thrift_core::ErrorKind::InvalidType(0x1f) };
        let e = TransportError::new(Phase::SkipDecoder, kind).at(1234).with_depth(3).with_field_id(Some(7));
        assert_eq!(
            e.to_string(),
            "skip-decoder: field header: invalid type id 0x1f at offset 1234, depth 3 (field id 7)"
        );
    }

    #[test]
    fn walker_errors_keep_their_place() {
        use thrift_core::{skip, Binary, Reader, TType};
        // A struct whose field 3 is a list of -1 elements.
        let input = [0x0f, 0x00, 0x03, 0x08, 0xff, 0xff, 0xff, 0xff];
        let core = skip::<Binary>(&mut Reader::new(&input), TType::Struct).unwrap_err();
        let e = TransportError::from_walk(Phase::SkipDecoder, &core);
        assert!(matches!(e.kind(), TransportErrorKind::Protocol { what: "list header", .. }), "{e}");
        assert_eq!((e.offset(), e.depth(), e.field_id()), (Some(3), Some(1), Some(3)));
        assert_eq!(e.to_string(), "skip-decoder: list header: negative length -1 at offset 3, depth 1 (field id 3)");
    }

    #[test]
    fn io_errors_convert_and_keep_their_source() {
        let e: TransportError = io::Error::new(io::ErrorKind::ConnectionReset, "reset").into();
        assert!(e.is_io());
        assert_eq!(e.phase(), Phase::Io);
        assert_eq!(e.to_string(), "io: reset");
        assert!(std::error::Error::source(&e).is_some());
    }
}
