//! Choosing the protocol for a [`ProtocolKind`](crate::ProtocolKind) known only at run time:
//! binary and compact are `thrift_core` protocols; JSON rides on binary through
//! `thrift_core::json`'s transcoder.

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::{DecodeOwned, Encode, Limits, MessageHeader, Protocol, Reader};

use crate::error::TransportError;
use crate::framing::Framing;
use crate::header::Headers;
use crate::message::Message;

/// What the connection code does with a protocol, the same calls for all three.
pub(crate) trait WireProtocol {
    /// Reads a message envelope, leaving `r` at the body.
    fn read_message_begin<'de>(r: &mut Reader<'de>) -> thrift_core::Result<MessageHeader<'de>>;
    /// Decodes a message body (what follows the envelope) spanning all of `body`.
    fn from_bytes_with_limits<T: DecodeOwned>(body: &Bytes, limits: &Limits) -> thrift_core::Result<T>;
    /// Encodes a value as a message body.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    fn to_vec<T: Encode + ?Sized>(value: &T) -> Vec<u8>;
    /// Encodes and frames a whole message, within `limits`, appended to `dst` (see
    /// [`Framing::encode_into`]).
    fn encode_message<T: Encode + ?Sized>(
        message: &Message<'_, T>,
        framing: &Framing,
        headers: &Headers,
        limits: &Limits,
        dst: &mut BytesMut,
    ) -> Result<(), TransportError>;
}

/// A `thrift_core` protocol.
pub(crate) struct Core<P>(P);

impl<P: Protocol> WireProtocol for Core<P> {
    #[inline]
    fn read_message_begin<'de>(r: &mut Reader<'de>) -> thrift_core::Result<MessageHeader<'de>> {
        P::read_message_begin(r)
    }
    #[inline]
    fn from_bytes_with_limits<T: DecodeOwned>(body: &Bytes, limits: &Limits) -> thrift_core::Result<T> {
        thrift_core::from_bytes_with_limits::<P, T>(body, limits)
    }
    #[inline]
    fn to_vec<T: Encode + ?Sized>(value: &T) -> Vec<u8> {
        thrift_core::to_vec::<P, T>(value)
    }
    #[inline]
    fn encode_message<T: Encode + ?Sized>(
        message: &Message<'_, T>,
        framing: &Framing,
        headers: &Headers,
        limits: &Limits,
        dst: &mut BytesMut,
    ) -> Result<(), TransportError> {
        framing.encode_into(headers, limits, message.encoded_len::<P>(), dst, |buf| message.encode::<P, _>(buf))
    }
}

/// Apache's `TJSONProtocol`: a message is `[1,"name",type,seqid,{body}]`; the body is
/// transcoded to and from binary by `thrift_core::json`.
pub(crate) struct Json;

impl WireProtocol for Json {
    fn read_message_begin<'de>(r: &mut Reader<'de>) -> thrift_core::Result<MessageHeader<'de>> {
        thrift_core::json::read_message_begin(r)
    }
    fn from_bytes_with_limits<T: DecodeOwned>(body: &Bytes, limits: &Limits) -> thrift_core::Result<T> {
        thrift_core::json::decode_body::<T>(body, limits)
    }
    fn to_vec<T: Encode + ?Sized>(value: &T) -> Vec<u8> {
        thrift_core::json::to_vec(value)
    }
    fn encode_message<T: Encode + ?Sized>(
        message: &Message<'_, T>,
        framing: &Framing,
        headers: &Headers,
        limits: &Limits,
        dst: &mut BytesMut,
    ) -> Result<(), TransportError> {
        // JSON's length is known only once written: written aside, then framed (one copy).
        let mut json = Vec::new();
        thrift_core::json::write_message(&message.header, message.body, &mut json);
        framing.encode_into(headers, limits, json.len(), dst, |buf| buf.put_slice(&json))
    }
}

/// Runs `$body` with `$p` bound to the [`WireProtocol`] of `$kind`.
macro_rules! with_protocol {
    ($kind:expr, $p:ident => $body:expr) => {
        match $kind {
            $crate::ProtocolKind::Binary | $crate::ProtocolKind::BinaryNonStrict => {
                use $crate::protocol::WireProtocol as _;
                type $p = $crate::protocol::Core<thrift_core::Binary>;
                $body
            }
            $crate::ProtocolKind::Compact => {
                use $crate::protocol::WireProtocol as _;
                type $p = $crate::protocol::Core<thrift_core::Compact>;
                $body
            }
            $crate::ProtocolKind::Json => {
                use $crate::protocol::WireProtocol as _;
                type $p = $crate::protocol::Json;
                $body
            }
        }
    };
}
pub(crate) use with_protocol;
