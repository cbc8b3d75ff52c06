//! The buffered (unframed) transport: messages back to back with no length, split by the
//! resumable skip-decoding [`Scanner`].

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::{Binary, Encode, Limits, Protocol, Scan, Scanner};
use tokio_util::codec::{Decoder, Encoder};

use crate::error::{Phase, TransportError, TransportErrorKind};
use crate::message::Message;

/// Buffer growth while a message arrives is capped at what is already buffered (and at least
/// this), so a declared length alone never makes the codec allocate.
const MIN_RESERVE: usize = 8 * 1024;

/// A tokio-util codec for Apache Thrift's buffered transport (`TBufferedTransport`), where
/// messages follow each other with no length prefix.
///
/// Decoding walks each message with a [`Scanner`] for protocol `P` to find where it ends,
/// resuming where it stopped as more bytes arrive, then yields the whole message (envelope
/// and body) as [`Bytes`] split off the read buffer without copying, for the derived code to
/// decode zero-copy. Depth, string, container and message-size limits apply while scanning.
/// Encoding writes a [`Message`] at its exact encoded length.
///
/// ```
/// use bytes::BytesMut;
/// use thrift_core::{ApplicationException as Exc, ApplicationExceptionKind as Kind, Binary, MessageHeader, MessageType};
/// use thrift_net::codec::{decode_message, BufferedCodec, Message};
/// use tokio_util::codec::{Decoder, Encoder};
///
/// let mut codec = BufferedCodec::<Binary>::new();
/// let header = MessageHeader { name: "log", kind: MessageType::Exception, seqid: 4 };
/// let (a, b) = (Exc::new(Kind::InternalError, "a"), Exc::new(Kind::UnknownMethod, "bb"));
/// let mut wire = BytesMut::new();
/// codec.encode(Message::new(header, &a), &mut wire)?;
/// codec.encode(Message::new(header, &b), &mut wire)?; // back to back, no lengths
///
/// let first = codec.decode(&mut wire)?.expect("a whole message");
/// let second = codec.decode(&mut wire)?.expect("a whole message");
/// assert!(codec.decode(&mut wire)?.is_none());
/// let limits = Default::default();
/// assert_eq!(decode_message::<Binary, Exc>(&first, &limits).unwrap(), (header, a));
/// assert_eq!(decode_message::<Binary, Exc>(&second, &limits).unwrap(), (header, b));
/// # Ok::<(), thrift_net::TransportError>(())
/// ```
#[derive(Debug)]
pub struct BufferedCodec<P = Binary> {
    scanner: Scanner<P>,
    /// Stream offset of the current message's first byte, for error messages.
    consumed: u64,
}

impl<P: Protocol> Default for BufferedCodec<P> {
    fn default() -> Self {
        BufferedCodec::with_limits(Limits::default())
    }
}

impl<P: Protocol> BufferedCodec<P> {
    /// A codec with the default [`Limits`] (Apache's).
    pub fn new() -> Self {
        Self::default()
    }

    /// A codec applying `limits` while scanning.
    pub fn with_limits(limits: Limits) -> Self {
        BufferedCodec { scanner: Scanner::new(limits), consumed: 0 }
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        self.scanner.limits()
    }

    /// Bytes the scanner has examined over every message so far; see
    /// [`Scanner::bytes_examined`].
    pub fn bytes_examined(&self) -> u64 {
        self.scanner.bytes_examined()
    }

    /// The error for a stream that ended with `buffered` bytes of an unfinished message:
    /// where the scanner stood in it.
    #[cold]
    fn truncated(&self, buffered: usize) -> TransportError {
        let s = &self.scanner;
        TransportError::new(Phase::SkipDecoder, TransportErrorKind::Truncated { buffered })
            .at(s.position())
            .with_depth(s.depth())
            .with_field_id(s.field_id())
            .with_stream_offset(self.consumed)
    }
}

impl<P: Protocol> Decoder for BufferedCodec<P> {
    type Item = Bytes;
    type Error = TransportError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        if src.is_empty() {
            return Ok(None);
        }
        match self.scanner.scan(src) {
            Ok(Scan::Complete(len)) => {
                self.scanner.reset();
                self.consumed += len as u64;
                Ok(Some(src.split_to(len).freeze()))
            }
            Ok(Scan::NeedMore(need)) => {
                let missing = need.saturating_sub(src.len());
                src.reserve(missing.min(src.len().max(MIN_RESERVE)));
                Ok(None)
            }
            Err(e) => Err(TransportError::from_walk(Phase::SkipDecoder, &e).with_stream_offset(self.consumed)),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, TransportError> {
        match self.decode(src)? {
            Some(msg) => Ok(Some(msg)),
            None if src.is_empty() => Ok(None),
            None => Err(self.truncated(src.len())),
        }
    }
}

impl<P: Protocol, T: Encode + ?Sized> Encoder<Message<'_, T>> for BufferedCodec<P> {
    type Error = TransportError;

    fn encode(&mut self, msg: Message<'_, T>, dst: &mut BytesMut) -> Result<(), TransportError> {
        put_message(self.scanner.limits().max_message_len, msg.encoded_len::<P>(), dst, |dst| msg.encode::<P, _>(dst))
    }
}

/// Writes a message already encoded (for instance one read from a framed connection).
impl<P: Protocol> Encoder<Bytes> for BufferedCodec<P> {
    type Error = TransportError;

    fn encode(&mut self, msg: Bytes, dst: &mut BytesMut) -> Result<(), TransportError> {
        put_message(self.scanner.limits().max_message_len, msg.len(), dst, |dst| dst.put_slice(&msg))
    }
}

/// Appends one bare message of `len` bytes, which `write_message` puts, to `dst` in one
/// reservation of the exact size. The one place the buffered transport's rule is applied:
/// the codec's encoders and the server's and client's whole messages all come here.
///
/// # Errors
/// `MessageTooLarge` when `len` exceeds `max_message_len`; nothing is written then.
pub(crate) fn put_message(
    max_message_len: usize,
    len: usize,
    dst: &mut BytesMut,
    write_message: impl FnOnce(&mut BytesMut),
) -> Result<(), TransportError> {
    if len > max_message_len {
        let kind = TransportErrorKind::MessageTooLarge { len: len as u64, max: max_message_len };
        return Err(TransportError::new(Phase::Encode, kind));
    }
    crate::room::for_message(dst, len);
    let start = dst.len();
    write_message(dst);
    debug_assert_eq!(dst.len() - start, len, "a message's length must be known before it is written");
    Ok(())
}
