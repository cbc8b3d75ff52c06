//! The server side of the contract the `#[service]` macro generates code against: a
//! [`Service`] turns each [`Incoming`] request into an [`Outgoing`] reply.

use std::future::Future;

use bytes::Bytes;
use thrift_core::__private::{Exceptions, MethodResult, ReturnField};
use thrift_core::{
    ApplicationException, ApplicationExceptionKind, DecodeOwned, Encode, Limits, MessageHeader, MessageType, Protocol,
    Reader,
};

use crate::detect::{ProtocolKind, Transport};
use crate::framing::{encode_message, Framing};
use crate::header::Headers;
use crate::message::Message;

/// The message of the `TApplicationException` (kind `UNKNOWN`) a [`Server`](crate::Server)
/// answers a request with when it read the request after its shutdown began: the request
/// was not run, so it is safe to send again, to another server.
/// [`CallError::is_retry_safe`](crate::CallError::is_retry_safe) tells it apart, and a
/// [`Client`](crate::Client) receiving it sends nothing more on that connection.
pub const SHUTTING_DOWN: &str = "the server is shutting down; the request was not processed";

/// The message of the `TApplicationException` (kind `UNKNOWN`) a [`Server`](crate::Server)
/// answers the first request of a connection with when it is at its
/// [connection limit](crate::ServerBuilder::max_connections), then closes the connection:
/// the request was not run, so it is safe to send again, to another server.
/// [`CallError::is_retry_safe`](crate::CallError::is_retry_safe) tells it apart, a
/// [`Client`](crate::Client) receiving it sends nothing more on that connection, and a
/// [`Pool`](crate::Pool) counts it as a refused connection to that endpoint.
pub const AT_CAPACITY: &str = "the server is at its connection limit; the request was not processed";

/// A Thrift service: what `#[service]` implements for its generated `…Server` type.
///
/// The server calls it once per request, concurrently for requests on one connection.
pub trait Service: Send + Sync + 'static {
    /// The IDL name of the service (the multiplexed protocol's `Service:` prefix).
    const NAME: &'static str;

    /// Handles one request. Unknown methods, undecodable arguments and failed handlers all
    /// become replies (`TApplicationException`s), never errors of the connection.
    fn call(&self, request: Incoming) -> impl Future<Output = Outgoing> + Send + '_;
}

/// Runs `$body` with `$p` bound to the protocol type of `$kind`.
macro_rules! with_protocol {
    ($kind:expr, $p:ident => $body:expr) => {
        match $kind {
            $crate::ProtocolKind::Binary | $crate::ProtocolKind::BinaryNonStrict => {
                type $p = thrift_core::Binary;
                $body
            }
            $crate::ProtocolKind::Compact => {
                type $p = thrift_core::Compact;
                $body
            }
        }
    };
}
pub(crate) use with_protocol;

/// One request as the server received it: the whole message, its envelope read.
#[derive(Clone, Debug)]
pub struct Incoming {
    message: Bytes,
    protocol: ProtocolKind,
    framing: Framing,
    kind: MessageType,
    seqid: i32,
    /// Where the method name starts and ends in `message`; `method_start` skips a
    /// multiplexed `Service:` prefix.
    name_start: usize,
    method_start: usize,
    name_end: usize,
    body_start: usize,
    limits: Limits,
}

impl Incoming {
    /// Reads the envelope of `message`, a whole message as a transport yields it.
    /// Replies will be written in the same protocol, with a frame header when `framed`.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use thrift_core::{Binary, Limits, MessageHeader, MessageType};
    /// use thrift_net::{Incoming, Message, ProtocolKind};
    ///
    /// let header = MessageHeader { name: "Calc:add", kind: MessageType::Call, seqid: 4 };
    /// let mut buf = Vec::new();
    /// Message::new(header, &7i32).encode::<Binary, _>(&mut buf);
    /// let request = Incoming::parse(Bytes::from(buf), ProtocolKind::Binary, false, Limits::default()).unwrap();
    /// assert_eq!((request.service(), request.method(), request.seqid()), (Some("Calc"), "add", 4));
    /// assert_eq!(request.decode_args::<i32>().unwrap(), 7);
    /// ```
    pub fn parse(message: Bytes, protocol: ProtocolKind, framed: bool, limits: Limits) -> thrift_core::Result<Self> {
        Incoming::framed_as(message, protocol, Framing::plain(framed), limits)
    }

    /// Reads the envelope of `message`, which arrived framed as `framing` says (a header
    /// frame names its own protocol, which overrides `protocol`).
    pub(crate) fn framed_as(
        message: Bytes,
        protocol: ProtocolKind,
        framing: Framing,
        limits: Limits,
    ) -> thrift_core::Result<Self> {
        let protocol = framing.protocol().unwrap_or(protocol);
        let (kind, seqid, name_start, name_end, body_start) = {
            let mut r = Reader::from_bytes(&message).with_limits(limits);
            let header = with_protocol!(protocol, P => P::read_message_begin(&mut r)?);
            let name_start = header.name.as_ptr() as usize - message.as_ptr() as usize;
            (header.kind, header.seqid, name_start, name_start + header.name.len(), r.position())
        };
        let name = &message[name_start..name_end];
        let method_start = name.iter().position(|&b| b == b':').map_or(name_start, |i| name_start + i + 1);
        Ok(Incoming { message, protocol, framing, kind, seqid, name_start, method_start, name_end, body_start, limits })
    }

    /// The method name, without a multiplexed `Service:` prefix.
    pub fn method(&self) -> &str {
        std::str::from_utf8(&self.message[self.method_start..self.name_end]).unwrap_or_default()
    }

    /// The multiplexed protocol's service name, when the call has a `Service:` prefix.
    pub fn service(&self) -> Option<&str> {
        (self.method_start > self.name_start)
            .then(|| std::str::from_utf8(&self.message[self.name_start..self.method_start - 1]).unwrap_or_default())
    }

    /// The sequence id the reply must carry.
    pub fn seqid(&self) -> i32 {
        self.seqid
    }

    /// Call or oneway (or, from a confused peer, another type).
    pub fn kind(&self) -> MessageType {
        self.kind
    }

    /// The protocol of the request, and of the reply.
    pub fn protocol(&self) -> ProtocolKind {
        self.protocol
    }

    /// The transport the request came on, and the reply goes back on.
    pub fn transport(&self) -> Transport {
        self.framing.transport()
    }

    /// The headers of the request's THeader or TTHeader frame (none on other transports).
    ///
    /// ```
    /// use bytes::Bytes;
    /// use thrift_core::{Binary, Limits, MessageHeader, MessageType};
    /// use thrift_net::{Incoming, Message, ProtocolKind, Transport};
    ///
    /// let header = MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 };
    /// let mut buf = Vec::new();
    /// Message::new(header, &0i32).encode::<Binary, _>(&mut buf); // a real body is an args struct
    /// let request = Incoming::parse(Bytes::from(buf), ProtocolKind::Binary, true, Limits::default()).unwrap();
    /// assert_eq!(request.transport(), Transport::Framed);
    /// assert!(request.headers().is_empty());
    /// ```
    pub fn headers(&self) -> &Headers {
        match &self.framing {
            Framing::Header(info) => &info.headers,
            _ => Headers::none(),
        }
    }

    /// How the request was framed.
    #[cfg(feature = "server")]
    pub(crate) fn framing(&self) -> &Framing {
        &self.framing
    }

    /// The whole message, envelope included.
    pub fn message(&self) -> &Bytes {
        &self.message
    }

    /// Decodes the arguments struct, which must end where the message does. `Bytes`
    /// fields share the message's buffer.
    pub fn decode_args<T: DecodeOwned>(&self) -> thrift_core::Result<T> {
        let body = self.message.slice(self.body_start..);
        with_protocol!(self.protocol, P => thrift_core::from_bytes_with_limits::<P, T>(&body, &self.limits))
    }

    /// The reply for a handler's outcome: the result struct, or a `TApplicationException`
    /// when the error is one rather than a declared exception.
    #[doc(hidden)]
    pub fn reply_result<R: ReturnField, E: Exceptions>(&self, result: Result<R::Value, E>) -> Outgoing {
        if let Err(e) = &result {
            if let Some(app) = e.as_application_exception() {
                return self.exception(app);
            }
        }
        self.reply(&MethodResult::<R, E>::from_result(result.map(R::from_value)))
    }

    /// A `REPLY` message carrying `body`.
    pub fn reply<T: Encode + ?Sized>(&self, body: &T) -> Outgoing {
        self.respond(MessageType::Reply, body)
    }

    /// An `EXCEPTION` message carrying `exception`.
    pub fn exception(&self, exception: &ApplicationException) -> Outgoing {
        self.respond(MessageType::Exception, exception)
    }

    /// `PROTOCOL_ERROR`: the arguments could not be decoded.
    #[doc(hidden)]
    pub fn protocol_error(&self, error: thrift_core::Error) -> Outgoing {
        tracing::debug!(method = self.method(), seqid = self.seqid, %error, "undecodable arguments");
        let message = format!("cannot decode the arguments of {}: {error}", self.method());
        self.exception(&ApplicationException::new(ApplicationExceptionKind::ProtocolError, message))
    }

    /// The `INTERNAL_ERROR` answer (none for a oneway request): the handler panicked or ran
    /// out of time.
    #[cfg(any(feature = "server", feature = "http"))]
    pub(crate) fn internal_error(&self, message: String) -> Option<Bytes> {
        self.exception(&ApplicationException::new(ApplicationExceptionKind::InternalError, message)).into_bytes()
    }

    /// `UNKNOWN_METHOD`: no method by that name.
    #[doc(hidden)]
    pub fn unknown_method(&self) -> Outgoing {
        let message = format!("unknown method {}", self.method());
        self.exception(&ApplicationException::new(ApplicationExceptionKind::UnknownMethod, message))
    }

    /// No reply, as for a oneway method.
    #[doc(hidden)]
    pub fn no_reply(&self) -> Outgoing {
        Outgoing(None)
    }

    fn respond<T: Encode + ?Sized>(&self, kind: MessageType, body: &T) -> Outgoing {
        if self.kind == MessageType::Oneway {
            // Apache never answers a oneway message, not even with an error.
            return Outgoing(None);
        }
        let header = MessageHeader { name: self.method(), kind, seqid: self.seqid };
        let message = Message::new(header, body);
        // Framed as the request was: a header frame echoes the request's flags, sequence id,
        // protocol and compression, without its headers.
        match with_protocol!(self.protocol, P => encode_message::<P, T>(&message, &self.framing, Headers::none())) {
            Ok(bytes) => Outgoing(Some(bytes)),
            // A reply frame carries no headers, and compresses only when the request was
            // compressed and so could be read: nothing is left to fail.
            Err(e) => {
                tracing::error!(%e, "the reply cannot be framed; not answered");
                Outgoing(None)
            }
        }
    }
}

/// A service's answer to one request: the encoded reply, ready for the socket (frame
/// header included), or nothing for a oneway message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing(Option<Bytes>);

impl Outgoing {
    /// The bytes to write, if any.
    pub fn into_bytes(self) -> Option<Bytes> {
        self.0
    }

    /// Whether there is nothing to send.
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }
}
