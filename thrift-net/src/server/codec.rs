//! The request codec for a connection's detected wire: framed (either protocol; the frame
//! says where a message ends), buffered in its protocol, or THeader/TTHeader frames.

use bytes::{Bytes, BytesMut};
use thrift_core::{Binary, Compact, Limits};
use tokio_util::codec::Decoder;

use crate::buffered::BufferedCodec;
use crate::error::TransportError;
use crate::framed::FramedCodec;
use crate::framing::Framing;
use crate::header::HeaderCodec;
use crate::json_codec::JsonCodec;
use crate::wire::{ProtocolKind, Transport, Wire};

/// Whole requests out of the bytes of one connection, as its first bytes said to read them.
pub(crate) enum WireCodec {
    Framed(FramedCodec<Binary>),
    BufferedCompact(BufferedCodec<Compact>),
    /// Strict and non-strict envelopes alike (the limits say which are taken).
    BufferedBinary(BufferedCodec<Binary>),
    BufferedJson(JsonCodec),
    /// THeader or TTHeader: each frame says which, and its protocol.
    Header(HeaderCodec),
}

impl WireCodec {
    pub fn new(wire: Wire, limits: &Limits) -> WireCodec {
        match wire {
            Wire { transport: Transport::Framed, .. } => WireCodec::Framed(FramedCodec::with_limits(limits)),
            Wire { transport: Transport::Header | Transport::TTHeader | Transport::FramedHeader, .. } => {
                WireCodec::Header(HeaderCodec::with_limits(limits))
            }
            Wire { protocol: ProtocolKind::Json, .. } => WireCodec::BufferedJson(JsonCodec::with_limits(*limits)),
            Wire { protocol: ProtocolKind::Compact, .. } => {
                WireCodec::BufferedCompact(BufferedCodec::with_limits(*limits))
            }
            _ => WireCodec::BufferedBinary(BufferedCodec::with_limits(*limits)),
        }
    }
}

impl Decoder for WireCodec {
    /// A whole message, and how it came framed.
    type Item = (Bytes, Framing);
    type Error = TransportError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, TransportError> {
        Ok(match self {
            WireCodec::Framed(c) => c.decode(src)?.map(|m| (m, Framing::Framed)),
            WireCodec::BufferedCompact(c) => c.decode(src)?.map(|m| (m, Framing::Bare)),
            WireCodec::BufferedBinary(c) => c.decode(src)?.map(|m| (m, Framing::Bare)),
            WireCodec::BufferedJson(c) => c.decode(src)?.map(|m| (m, Framing::Bare)),
            WireCodec::Header(c) => c.decode(src)?.map(|(info, message)| (message, Framing::Header(info))),
        })
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, TransportError> {
        Ok(match self {
            WireCodec::Framed(c) => c.decode_eof(src)?.map(|m| (m, Framing::Framed)),
            WireCodec::BufferedCompact(c) => c.decode_eof(src)?.map(|m| (m, Framing::Bare)),
            WireCodec::BufferedBinary(c) => c.decode_eof(src)?.map(|m| (m, Framing::Bare)),
            WireCodec::BufferedJson(c) => c.decode_eof(src)?.map(|m| (m, Framing::Bare)),
            WireCodec::Header(c) => c.decode_eof(src)?.map(|(info, message)| (message, Framing::Header(info))),
        })
    }
}
