//! How one message is put on the wire: bare (buffered), after its length (framed), or in a
//! THeader or TTHeader frame. A server answers each request framed as it came.

use bytes::BytesMut;
use thrift_core::Limits;

use crate::buffered::put_message;
use crate::error::TransportError;
use crate::framed::put_frame;
use crate::header::{self, FrameInfo, Headers};
use crate::wire::{ProtocolKind, Transport};

/// How a message is delimited, with what a header frame says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(not(any(feature = "server", feature = "client")), allow(dead_code))]
pub(crate) enum Framing {
    Bare,
    Framed,
    Header(FrameInfo),
}

impl Framing {
    /// The framing of a transport without headers.
    pub fn plain(framed: bool) -> Framing {
        if framed {
            Framing::Framed
        } else {
            Framing::Bare
        }
    }

    pub fn transport(&self) -> Transport {
        match self {
            Framing::Bare => Transport::Buffered,
            Framing::Framed => Transport::Framed,
            Framing::Header(info) => match info.format {
                header::Format::THeader if info.nested => Transport::FramedHeader,
                header::Format::THeader => Transport::Header,
                header::Format::TTHeader => Transport::TTHeader,
            },
        }
    }

    /// The protocol a header frame names; `None` without one.
    pub fn protocol(&self) -> Option<ProtocolKind> {
        match self {
            Framing::Header(info) => Some(info.protocol),
            _ => None,
        }
    }

    /// The same framing without the headers a header frame brought, which answering it
    /// does not need: a copy that allocates nothing.
    #[cfg(feature = "server")]
    pub fn without_headers(&self) -> Framing {
        match self {
            Framing::Bare => Framing::Bare,
            Framing::Framed => Framing::Framed,
            // Every field but the headers is `Copy`.
            Framing::Header(info) => Framing::Header(FrameInfo { headers: Headers::new(), ..*info }),
        }
    }

    #[cfg(feature = "server")]
    /// Where the message starts in `written`, bytes this framing wrote; `None` when it is
    /// compressed.
    pub fn message_offset(&self, written: &[u8]) -> Option<usize> {
        match self {
            Framing::Bare => Some(0),
            Framing::Framed => Some(4),
            Framing::Header(info) if info.zlib => None,
            Framing::Header(info) => {
                let fixed_end = if info.nested { 8 } else { 4 } + header::FIXED_LEN;
                let words = written.get(fixed_end - 2..fixed_end)?;
                let framed = if info.framed_payload { 4 } else { 0 };
                Some(fixed_end + usize::from(u16::from_be_bytes([words[0], words[1]])) * 4 + framed)
            }
        }
    }

    /// Appends one whole message to `dst`: a body of `len` bytes that `write_body` puts,
    /// framed as this framing says; `dst` grows once, by the message's exact size (unless
    /// compressed), so a fresh buffer frozen into `Bytes` allocates nothing more, and a
    /// connection may reuse one buffer for every message. A header frame carries `headers`
    /// (its info's own are what was read). The framed and buffered rules are the codecs' own
    /// ([`put_frame`], [`put_message`]), so a server's reply, a client's call and a
    /// [`FramedCodec`](crate::codec::FramedCodec) user's frame are written alike.
    ///
    /// # Errors
    /// A message or frame beyond `limits` (what the peer, with the same limits, would refuse
    /// and drop the connection for), header frame headers that do not fit its format, or
    /// zlib asked of a build without it. On an error nothing is appended.
    pub(crate) fn encode_into(
        &self,
        headers: &Headers,
        limits: &Limits,
        len: usize,
        dst: &mut BytesMut,
        write_body: impl FnOnce(&mut BytesMut),
    ) -> Result<(), TransportError> {
        match self {
            Framing::Bare => put_message(limits.max_message_len, len, dst, write_body),
            Framing::Framed => put_frame(limits.max_frame_len, len, dst, write_body),
            Framing::Header(info) => header::write_into(info, headers, limits.max_frame_len, len, dst, write_body),
        }
    }
}
