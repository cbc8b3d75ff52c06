//! The request codec for a connection's detected wire: framed (either protocol; the frame
//! says where a message ends), or buffered in its protocol.

use bytes::{Bytes, BytesMut};
use thrift_core::{Binary, Compact, Limits};
use tokio_util::codec::Decoder;

use crate::buffered::BufferedCodec;
use crate::detect::{ProtocolKind, Transport, Wire};
use crate::error::TransportError;
use crate::framed::FramedCodec;

/// Whole requests out of the bytes of one connection, as its first bytes said to read them.
pub(crate) enum WireCodec {
    Framed(FramedCodec<Binary>),
    BufferedCompact(BufferedCodec<Compact>),
    /// Strict and non-strict envelopes alike (the limits say which are taken).
    BufferedBinary(BufferedCodec<Binary>),
}

impl WireCodec {
    pub fn new(wire: Wire, limits: &Limits) -> WireCodec {
        match wire {
            Wire { transport: Transport::Framed, .. } => WireCodec::Framed(FramedCodec::with_limits(limits)),
            Wire { protocol: ProtocolKind::Compact, .. } => {
                WireCodec::BufferedCompact(BufferedCodec::with_limits(*limits))
            }
            _ => WireCodec::BufferedBinary(BufferedCodec::with_limits(*limits)),
        }
    }
}

impl Decoder for WireCodec {
    type Item = Bytes;
    type Error = TransportError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        match self {
            WireCodec::Framed(c) => c.decode(src),
            WireCodec::BufferedCompact(c) => c.decode(src),
            WireCodec::BufferedBinary(c) => c.decode(src),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        match self {
            WireCodec::Framed(c) => c.decode_eof(src),
            WireCodec::BufferedCompact(c) => c.decode_eof(src),
            WireCodec::BufferedBinary(c) => c.decode_eof(src),
        }
    }
}
