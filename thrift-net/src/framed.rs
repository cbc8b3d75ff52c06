//! The framed transport: each message preceded by its length as a 4-byte big-endian integer.

use std::marker::PhantomData;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use thrift_core::{Binary, Encode, Limits, Protocol};
use tokio_util::codec::{Decoder, Encoder};

use crate::error::{Phase, TransportError, TransportErrorKind};
use crate::message::Message;

/// Bytes of the length prefix.
const HEADER_LEN: usize = 4;

/// Buffer growth while a frame arrives is capped at what is already buffered (and at least
/// this), so a declared length alone never makes the codec allocate: memory follows the
/// bytes that actually came.
const MIN_RESERVE: usize = 8 * 1024;

/// A tokio-util codec for Apache Thrift's framed transport (`TFramedTransport`).
///
/// Decoding yields each frame's payload, one whole message, as [`Bytes`] sharing the read
/// buffer. The length prefix is checked against the maximum frame size as soon as its four
/// bytes are in, before anything more is buffered. Encoding writes the prefix and the
/// message into one buffer reserved at the exact encoded length; `P` is the protocol it
/// encodes [`Message`]s with (decoding does not depend on it).
///
/// ```
/// use bytes::BytesMut;
/// use thrift_core::{Compact, MessageHeader, MessageType};
/// use thrift_net::codec::{FramedCodec, Message};
/// use tokio_util::codec::{Decoder, Encoder};
///
/// let mut codec = FramedCodec::<Compact>::new();
/// let mut buf = BytesMut::new();
/// let header = MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 };
/// codec.encode(Message::new(header, &42i32), &mut buf)?; // a real body is an args struct
/// assert_eq!(buf[..4], [0, 0, 0, 9]);
/// let msg = codec.decode(&mut buf)?.expect("a whole frame");
/// let (h, v): (_, i32) = thrift_net::codec::decode_message::<Compact, _>(&msg, &Default::default()).unwrap();
/// assert_eq!((h, v), (header, 42));
/// # Ok::<(), thrift_net::TransportError>(())
/// ```
#[derive(Debug)]
pub struct FramedCodec<P = Binary> {
    max_frame_len: usize,
    /// The payload length once its prefix is consumed.
    pending: Option<usize>,
    /// Stream offset of the next frame's prefix, for error messages.
    consumed: u64,
    // fn() -> P: the codec holds no P, so it is Send, Sync and Unpin whatever P is.
    protocol: PhantomData<fn() -> P>,
}

impl<P> Default for FramedCodec<P> {
    fn default() -> Self {
        FramedCodec::with_max_frame_len(Limits::DEFAULT_MAX_FRAME_LEN)
    }
}

impl<P> FramedCodec<P> {
    /// A codec with Apache's maximum frame size (16,384,000 bytes).
    pub fn new() -> Self {
        Self::default()
    }

    /// A codec with the maximum frame size of `limits`.
    pub fn with_limits(limits: &Limits) -> Self {
        Self::with_max_frame_len(limits.max_frame_len)
    }

    /// A codec with this maximum frame size (payload bytes, prefix excluded).
    pub fn with_max_frame_len(max_frame_len: usize) -> Self {
        FramedCodec { max_frame_len, pending: None, consumed: 0, protocol: PhantomData }
    }

    /// The maximum frame size.
    pub fn max_frame_len(&self) -> usize {
        self.max_frame_len
    }

    fn error(&self, kind: TransportErrorKind) -> TransportError {
        TransportError::new(Phase::Frame, kind).at(0).with_stream_offset(self.consumed)
    }
}

/// Appends one frame to `dst`: the length of a `len`-byte payload, then the payload that
/// `write_payload` puts, in one reservation of the exact size. The one place the framed
/// transport's prefix is written: the codec's encoders and the server's and client's whole
/// messages all come here.
///
/// # Errors
/// `FrameTooLarge` when `len` exceeds `max_frame_len` (or what the prefix can say); nothing
/// is written then.
pub(crate) fn put_frame(
    max_frame_len: usize,
    len: usize,
    dst: &mut BytesMut,
    write_payload: impl FnOnce(&mut BytesMut),
) -> Result<(), TransportError> {
    if len > max_frame_len || len > i32::MAX as usize {
        let kind = TransportErrorKind::FrameTooLarge { len: len as u64, max: max_frame_len };
        return Err(TransportError::new(Phase::Encode, kind));
    }
    crate::room::for_message(dst, HEADER_LEN + len);
    dst.put_u32(len as u32);
    let start = dst.len();
    write_payload(dst);
    debug_assert_eq!(dst.len() - start, len, "a payload's length must be known before it is written");
    Ok(())
}

impl<P> Decoder for FramedCodec<P> {
    type Item = Bytes;
    type Error = TransportError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        let len = match self.pending {
            Some(len) => len,
            None => {
                let Some(prefix) = src.get(..HEADER_LEN) else {
                    src.reserve(HEADER_LEN - src.len());
                    return Ok(None);
                };
                let raw = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
                if raw < 0 {
                    return Err(self.error(TransportErrorKind::NegativeFrameLength(raw)));
                }
                if raw == 0 {
                    return Err(self.error(TransportErrorKind::EmptyFrame));
                }
                let len = raw as usize;
                if len > self.max_frame_len {
                    let max = self.max_frame_len;
                    return Err(self.error(TransportErrorKind::FrameTooLarge { len: len as u64, max }));
                }
                src.advance(HEADER_LEN);
                self.consumed += HEADER_LEN as u64;
                self.pending = Some(len);
                len
            }
        };
        if src.len() < len {
            let missing = len - src.len();
            src.reserve(missing.min(src.len().max(MIN_RESERVE)));
            return Ok(None);
        }
        self.pending = None;
        self.consumed += len as u64;
        Ok(Some(src.split_to(len).freeze()))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None if src.is_empty() && self.pending.is_none() => Ok(None),
            None => {
                let buffered = src.len() + if self.pending.is_some() { HEADER_LEN } else { 0 };
                let start = self.consumed - if self.pending.is_some() { HEADER_LEN as u64 } else { 0 };
                let e = TransportError::new(Phase::Frame, TransportErrorKind::Truncated { buffered });
                Err(e.at(buffered).with_stream_offset(start))
            }
        }
    }
}

impl<P: Protocol, T: Encode + ?Sized> Encoder<Message<'_, T>> for FramedCodec<P> {
    type Error = TransportError;

    fn encode(&mut self, msg: Message<'_, T>, dst: &mut BytesMut) -> Result<(), TransportError> {
        put_frame(self.max_frame_len, msg.encoded_len::<P>(), dst, |dst| msg.encode::<P, _>(dst))
    }
}

/// Frames a message already encoded (for instance one read from a buffered connection).
impl<P> Encoder<Bytes> for FramedCodec<P> {
    type Error = TransportError;

    fn encode(&mut self, msg: Bytes, dst: &mut BytesMut) -> Result<(), TransportError> {
        put_frame(self.max_frame_len, msg.len(), dst, |dst| dst.put_slice(&msg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thrift_core::{MessageHeader, MessageType};

    fn header() -> MessageHeader<'static> {
        MessageHeader { name: "ping", kind: MessageType::Call, seqid: 3 }
    }

    #[test]
    fn encodes_prefix_and_message_in_one_exact_buffer() {
        let mut codec = FramedCodec::<Binary>::new();
        let mut dst = BytesMut::new();
        let body = 0x0102_0304i32;
        codec.encode(Message::new(header(), &body), &mut dst).unwrap();
        let len = Message::new(header(), &body).encoded_len::<Binary>();
        assert_eq!(dst.len(), 4 + len);
        assert_eq!(dst[..4], (len as u32).to_be_bytes());
        assert_eq!(dst.capacity(), 4 + len, "one reservation of the exact size");
        let frame = codec.decode(&mut dst).unwrap().unwrap();
        assert_eq!(frame.len(), len);
        assert!(dst.is_empty());
    }

    #[test]
    fn frame_size_is_checked_from_the_prefix_alone() {
        let mut codec = FramedCodec::<Binary>::with_max_frame_len(100);
        let mut src = BytesMut::from(&[0, 0, 0, 101][..]);
        let e = codec.decode(&mut src).unwrap_err();
        assert!(matches!(e.kind(), TransportErrorKind::FrameTooLarge { len: 101, max: 100 }), "{e}");
        assert_eq!(e.to_string(), "framed: frame of 101 bytes exceeds the maximum frame size 100 at offset 0 in the message at stream offset 0");
        let mut src = BytesMut::from(&[0xff, 0xff, 0xff, 0xfe][..]);
        assert!(matches!(codec.decode(&mut src).unwrap_err().kind(), TransportErrorKind::NegativeFrameLength(-2)));
        let mut src = BytesMut::from(&[0, 0, 0, 0][..]);
        assert!(matches!(codec.decode(&mut src).unwrap_err().kind(), TransportErrorKind::EmptyFrame));
    }

    #[test]
    fn a_declared_length_does_not_reserve_the_whole_frame() {
        let mut codec = FramedCodec::<Binary>::new();
        let mut src = BytesMut::from(&(16_000_000u32).to_be_bytes()[..]);
        assert!(codec.decode(&mut src).unwrap().is_none());
        assert!(src.capacity() <= 64 * 1024, "reserved {} bytes for 4 received", src.capacity());
    }

    #[test]
    fn partial_frames_wait_and_eof_mid_frame_is_an_error() {
        let mut codec = FramedCodec::<Binary>::new();
        let mut src = BytesMut::from(&[0, 0, 0, 3, 1, 2][..]);
        assert!(codec.decode(&mut src).unwrap().is_none());
        let e = codec.decode_eof(&mut src).unwrap_err();
        assert!(matches!(e.kind(), TransportErrorKind::Truncated { buffered: 6 }), "{e}");
        src.extend_from_slice(&[3]);
        assert_eq!(&codec.decode(&mut src).unwrap().unwrap()[..], [1, 2, 3]);
        assert!(codec.decode_eof(&mut src).unwrap().is_none());
    }

    #[test]
    fn encoding_past_the_frame_limit_fails() {
        let mut codec = FramedCodec::<Binary>::with_max_frame_len(8);
        let e = codec.encode(Bytes::from_static(&[0; 9]), &mut BytesMut::new()).unwrap_err();
        assert_eq!(e.phase(), Phase::Encode);
    }
}
