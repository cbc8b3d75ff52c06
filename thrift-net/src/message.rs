//! A whole RPC message: envelope and body, written at its exact size and read zero-copy.

use bytes::{BufMut, Bytes};
use thrift_core::{Decode, Encode, Limits, MessageHeader, Protocol, Reader};

use crate::protocol::with_protocol;
use crate::wire::ProtocolKind;

/// An RPC message to write: its envelope and its body (the args or result struct).
///
/// The codecs write it with one allocation of its exact encoded length (plus the frame
/// header on the framed transport).
///
/// ```
/// use thrift_core::{Binary, MessageHeader, MessageType};
/// use thrift_net::codec::Message;
///
/// let header = MessageHeader { name: "add", kind: MessageType::Call, seqid: 1 };
/// let body = 7i32; // any Encode value; real messages carry an args struct
/// let msg = Message::new(header, &body);
/// let mut buf = Vec::new();
/// msg.encode::<Binary, _>(&mut buf);
/// assert_eq!(buf.len(), msg.encoded_len::<Binary>());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Message<'a, T: ?Sized> {
    /// The envelope: method name, message type, sequence id.
    pub header: MessageHeader<'a>,
    /// The body: the args struct of a call, the result struct of a reply.
    pub body: &'a T,
}

impl<'a, T: Encode + ?Sized> Message<'a, T> {
    /// A message with this envelope and body.
    pub fn new(header: MessageHeader<'a>, body: &'a T) -> Self {
        Message { header, body }
    }

    /// The exact number of bytes [`Message::encode`] writes.
    #[inline]
    pub fn encoded_len<P: Protocol>(&self) -> usize {
        P::message_begin_len(&self.header) + self.body.encoded_len::<P>()
    }

    /// Writes the envelope, then the body.
    #[inline]
    pub fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_message_begin(buf, &self.header);
        self.body.encode::<P, B>(buf);
    }
}

/// Decodes one complete message as a transport yields it: the envelope, then a body of type
/// `T` that must end exactly where the message does. `Bytes` fields of the body share
/// `msg`'s buffer and borrowed fields point into it.
///
/// # Errors
/// A malformed envelope or body, or bytes left over after the body.
///
/// ```
/// use bytes::Bytes;
/// use thrift_core::{Compact, MessageHeader, MessageType};
/// use thrift_net::codec::{decode_message, Message};
///
/// let header = MessageHeader { name: "echo", kind: MessageType::Reply, seqid: 9 };
/// let mut buf = Vec::new();
/// Message::new(header, "hi").encode::<Compact, _>(&mut buf);
/// let msg = Bytes::from(buf);
/// let (h, body): (_, &str) = decode_message::<Compact, _>(&msg, &Default::default()).unwrap();
/// assert_eq!((h, body), (header, "hi"));
/// ```
pub fn decode_message<'de, P: Protocol, T: Decode<'de>>(
    msg: &'de Bytes,
    limits: &Limits,
) -> thrift_core::Result<(MessageHeader<'de>, T)> {
    let mut r = Reader::from_bytes(msg).with_limits(*limits);
    let header = P::read_message_begin(&mut r)?;
    Ok((header, r.decode_rest::<P, T>()?))
}

/// The envelope of `message`, a whole message in `protocol`, and where its body starts: how
/// the server reads a request and the clients a reply.
pub(crate) fn read_envelope(
    message: &Bytes,
    protocol: ProtocolKind,
    limits: Limits,
) -> thrift_core::Result<(MessageHeader<'_>, usize)> {
    let mut r = Reader::from_bytes(message).with_limits(limits);
    let header = with_protocol!(protocol, P => P::read_message_begin(&mut r)?);
    Ok((header, r.position()))
}

/// The method name a call goes out under: `Service:method` for a multiplexed server (when
/// the service is named), the bare method otherwise.
#[cfg(feature = "client")]
pub(crate) fn call_name<'a>(multiplexed: bool, service: &str, method: &'a str) -> std::borrow::Cow<'a, str> {
    if multiplexed && !service.is_empty() {
        std::borrow::Cow::Owned(format!("{service}:{method}"))
    } else {
        std::borrow::Cow::Borrowed(method)
    }
}
