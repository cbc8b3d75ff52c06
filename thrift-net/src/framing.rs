//! How one message is put on the wire: bare (buffered), after its length (framed), or in a
//! THeader or TTHeader frame. A server answers each request framed as it came.

use std::sync::Arc;

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::{Encode, Protocol};

use crate::error::TransportError;
use crate::header::{self, FrameInfo, Headers};
use crate::message::Message;
use crate::wire::{ProtocolKind, Transport};

/// How a message is delimited, with what a header frame says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(not(any(feature = "server", feature = "client")), allow(dead_code))]
pub(crate) enum Framing {
    Bare,
    Framed,
    Header(Arc<FrameInfo>),
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
}

/// A message encoded in one allocation of its exact size (unless compressed), framed as
/// `framing` says; a header frame carries `headers` (its info's own are what was read).
///
/// # Errors
/// Only for a header frame whose headers do not fit its format, or that asks for zlib in a
/// build without it.
pub(crate) fn encode_message<P: Protocol, T: Encode + ?Sized>(
    message: &Message<'_, T>,
    framing: &Framing,
    headers: &Headers,
) -> Result<Bytes, TransportError> {
    let len = message.encoded_len::<P>();
    let prefix = match framing {
        Framing::Bare => 0,
        Framing::Framed => 4,
        Framing::Header(info) => return header::write(info, headers, len, |buf| message.encode::<P, _>(buf)),
    };
    let mut buf = BytesMut::with_capacity(prefix + len);
    if prefix == 4 {
        buf.put_u32(len as u32);
    }
    message.encode::<P, _>(&mut buf);
    debug_assert_eq!(buf.len(), prefix + len);
    Ok(buf.freeze())
}
