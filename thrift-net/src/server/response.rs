//! A service's answer to one request, and how one is made: in the request's protocol, with
//! its sequence id, framed as the request was.

use bytes::{Bytes, BytesMut};
use thrift_core::__private::{Exceptions, MethodResult, ReturnField};
use thrift_core::{ApplicationException, ApplicationExceptionKind, Encode, MessageHeader, MessageType};

use super::request::Request;
use crate::header::Headers;
use crate::message::Message;
use crate::protocol::with_protocol;

impl Request {
    /// The reply for a handler's outcome: the result struct, or a `TApplicationException`
    /// when the error is one rather than a declared exception.
    #[doc(hidden)]
    pub fn reply_result<R: ReturnField, E: Exceptions>(&self, result: Result<R::Value, E>) -> Response {
        if let Err(e) = &result {
            if let Some(app) = e.as_application_exception() {
                return self.exception(app);
            }
        }
        self.reply(&MethodResult::<R, E>::from_result(result.map(R::from_value)))
    }

    /// A `REPLY` message carrying `body`.
    pub fn reply<T: Encode + ?Sized>(&self, body: &T) -> Response {
        self.respond(MessageType::Reply, body)
    }

    /// An `EXCEPTION` message carrying `exception`.
    pub fn exception(&self, exception: &ApplicationException) -> Response {
        self.respond(MessageType::Exception, exception)
    }

    /// `PROTOCOL_ERROR`: the arguments could not be decoded.
    #[doc(hidden)]
    pub fn protocol_error(&self, error: thrift_core::Error) -> Response {
        tracing::debug!(method = self.method(), seqid = self.seqid, %error, "undecodable arguments");
        let message = format!("cannot decode the arguments of {}: {error}", self.method());
        self.exception(&ApplicationException::new(ApplicationExceptionKind::ProtocolError, message))
    }

    /// The answer for a request its service could not handle (none for a oneway request):
    /// the handler panicked, ran out of time, or a layer turned the request away.
    #[cfg(any(feature = "server", feature = "http"))]
    pub(crate) fn failed(&self, kind: ApplicationExceptionKind, message: String) -> Option<Bytes> {
        self.exception(&ApplicationException::new(kind, message)).into_bytes()
    }

    /// `UNKNOWN_METHOD`: no method by that name.
    #[doc(hidden)]
    pub fn unknown_method(&self) -> Response {
        // The whole name, `Service:` prefix and all: what the caller asked for.
        let message = format!("unknown method {}", self.name);
        self.exception(&ApplicationException::new(ApplicationExceptionKind::UnknownMethod, message))
    }

    /// No reply, as for a oneway method.
    #[doc(hidden)]
    pub fn no_reply(&self) -> Response {
        Response(None)
    }

    fn respond<T: Encode + ?Sized>(&self, kind: MessageType, body: &T) -> Response {
        if self.kind == MessageType::Oneway {
            // Apache never answers a oneway message, not even with an error.
            return Response(None);
        }
        let header = MessageHeader { name: self.method(), kind, seqid: self.seqid };
        let message = Message::new(header, body);
        // Framed as the request was: a header frame echoes the request's flags, sequence id,
        // protocol and compression, with the headers the handler set rather than the request's.
        let headers = self.reply_headers.take();
        let headers = headers.as_deref().unwrap_or(Headers::none());
        let mut buf = BytesMut::new();
        let encoded = with_protocol!(self.protocol, P => P::encode_message::<T>(
            &message,
            &self.framing,
            headers,
            &self.limits,
            &mut buf
        ));
        match encoded {
            Ok(()) => Response(Some(buf.freeze())),
            // A reply beyond the limits (which the caller, with the same limits, would refuse
            // and drop the connection for), or with headers too long for its frame format, is
            // answered with what went wrong, so the caller hears of it now rather than at its
            // timeout.
            Err(e) if kind != MessageType::Exception => {
                tracing::warn!(method = self.method(), seqid = self.seqid, %e, "the reply cannot be sent");
                let message = format!("the reply of {} cannot be sent: {e}", self.method());
                self.exception(&ApplicationException::new(ApplicationExceptionKind::InternalError, message))
            }
            Err(e) => {
                tracing::error!(%e, "the exception cannot be framed; not answered");
                Response(None)
            }
        }
    }
}

/// A service's answer to one request: the encoded reply, ready for the socket (frame
/// header included), or nothing for a oneway message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response(Option<Bytes>);

impl Response {
    /// The bytes to write, if any.
    pub fn into_bytes(self) -> Option<Bytes> {
        self.0
    }

    /// Whether there is nothing to send.
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }
}
