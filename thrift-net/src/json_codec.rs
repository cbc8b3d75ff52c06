//! The buffered transport of the JSON protocol.

use bytes::{Bytes, BytesMut};
use thrift_core::Limits;
use tokio_util::codec::Decoder;

use crate::error::{Phase, TransportError, TransportErrorKind};

/// The buffered transport for the JSON protocol: messages back to back, each one JSON array
/// `[1,"name",type,seqid,{...}]`, split where its outer bracket closes (found by
/// `thrift_core::json::MessageScanner`, outside strings, within `max_message_len` and the
/// depth limit). Decoding yields whole messages (they are written as
/// [`Framing::Bare`](crate::framing::Framing::Bare) writes any message).
#[derive(Debug)]
pub(crate) struct JsonCodec {
    scanner: thrift_core::json::MessageScanner,
    /// Stream offset of the current message's first byte, for error messages.
    consumed: u64,
}

impl JsonCodec {
    /// A codec applying `limits`' message length and depth.
    pub(crate) fn with_limits(limits: Limits) -> Self {
        let scanner = thrift_core::json::MessageScanner::new(limits.max_message_len, limits.max_depth);
        JsonCodec { scanner, consumed: 0 }
    }
}

impl Decoder for JsonCodec {
    type Item = Bytes;
    type Error = TransportError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        match self.scanner.scan(src) {
            Ok(Some(len)) => {
                self.scanner.reset();
                self.consumed += len as u64;
                Ok(Some(src.split_to(len).freeze()))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(TransportError::from_walk(Phase::SkipDecoder, &e).with_stream_offset(self.consumed)),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        match self.decode(src)? {
            Some(msg) => Ok(Some(msg)),
            None if src.is_empty() => Ok(None),
            None => Err(TransportError::new(Phase::SkipDecoder, TransportErrorKind::Truncated { buffered: src.len() })
                .at(self.scanner.position())
                .with_stream_offset(self.consumed)),
        }
    }
}
