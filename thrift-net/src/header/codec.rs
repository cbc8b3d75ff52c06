//! Whole header frames out of a byte stream.

use bytes::{Bytes, BytesMut};
use thrift_core::Limits;
use tokio_util::codec::Decoder;

use super::frame::{self, FrameInfo};
#[cfg(feature = "client")]
use super::Headers;
use crate::error::TransportError;
#[cfg(feature = "client")]
use crate::error::{Phase, TransportErrorKind};
use crate::framed::FramedCodec;
#[cfg(feature = "client")]
use crate::wire::ProtocolKind;

/// Reads THeader and TTHeader frames: the length prefix as the framed transport reads it
/// (checked against the frame limit before anything more is buffered), then the header.
#[derive(Debug)]
pub(crate) struct HeaderCodec {
    frames: FramedCodec,
    limits: Limits,
}

impl HeaderCodec {
    pub fn with_limits(limits: &Limits) -> HeaderCodec {
        HeaderCodec { frames: FramedCodec::with_limits(limits), limits: *limits }
    }
}

impl Decoder for HeaderCodec {
    /// What the frame says, and its payload: one whole message.
    type Item = (FrameInfo, Bytes);
    type Error = TransportError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, TransportError> {
        match self.frames.decode(src)? {
            Some(frame) => frame::read(frame, &self.limits).map(Some),
            None => Ok(None),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, TransportError> {
        match self.frames.decode_eof(src)? {
            Some(frame) => frame::read(frame, &self.limits).map(Some),
            None => Ok(None),
        }
    }
}

#[cfg(feature = "client")]
pub(crate) use reply::ReplyCodec;

#[cfg(feature = "client")]
mod reply {
    use super::*;

    /// A client's reply reader: the payload of each frame, which must be in the protocol the
    /// client speaks, and the frame's headers.
    #[derive(Debug)]
    pub(crate) struct ReplyCodec {
        frames: HeaderCodec,
        protocol: ProtocolKind,
    }

    impl ReplyCodec {
        pub fn new(protocol: ProtocolKind, limits: &Limits) -> ReplyCodec {
            ReplyCodec { frames: HeaderCodec::with_limits(limits), protocol }
        }

        fn payload(&self, frame: Option<(FrameInfo, Bytes)>) -> Result<Option<(Bytes, Headers)>, TransportError> {
            let Some((info, payload)) = frame else { return Ok(None) };
            // Binary replies are read alike, whichever envelope the call was written with.
            let strict = |p| if p == ProtocolKind::BinaryNonStrict { ProtocolKind::Binary } else { p };
            if strict(info.protocol) != strict(self.protocol) {
                let what = format!("a reply in the {:?} protocol to a call in {:?}", info.protocol, self.protocol);
                return Err(TransportError::new(Phase::Header, TransportErrorKind::Header(what)));
            }
            Ok(Some((payload, info.headers)))
        }
    }

    impl Decoder for ReplyCodec {
        /// A reply, and the headers its frame carried.
        type Item = (Bytes, Headers);
        type Error = TransportError;

        fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, TransportError> {
            let frame = self.frames.decode(src)?;
            self.payload(frame)
        }

        fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, TransportError> {
            let frame = self.frames.decode_eof(src)?;
            self.payload(frame)
        }
    }
}
