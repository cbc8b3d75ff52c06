//! The client side of the contract the `#[service]` macro generates code against: a
//! [`Channel`] carries calls, a [`Reply`] becomes the method's typed result.

use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use thrift_core::__private::{Exceptions, MethodResult, ReturnField};
use thrift_core::{ApplicationException, ApplicationExceptionKind, Limits, MessageType, Reader};

pub use crate::call::Call;
use crate::detect::ProtocolKind;
use crate::error::TransportError;
use crate::protocol::with_protocol;
use crate::server::BoxError;

/// Something calls go over: a [`tower::Service`](tower_service::Service) of [`Call`]s that
/// answers each with its [`Reply`] (`None` for a oneway message, once written).
///
/// A pipelining [`Client`](crate::Client) connection, a [`Pool`](crate::Pool), a
/// [`LocalChannel`](crate::LocalChannel) and an HTTP client are channels, and so is any
/// stack of tower layers over one (`ServiceBuilder::new().timeout(..).service(pool)`):
/// every `Clone + Send + Sync` service of [`Call`]s with a `Send` future and an error that
/// converts to a [`BoxError`]. The typed clients the `#[service]` macro generates are
/// generic over it; they clone the channel for each call, so a channel's clones should
/// share its state, as tower's services do.
///
/// Errors come back as [`CallError`]s: one the channel made itself as it is, tower's
/// timeout as [`CallError::Timeout`], any other layer's as [`CallError::Layer`].
pub trait Channel:
    tower_service::Service<Call, Response = Option<Reply>, Error: Into<BoxError>, Future: Send>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<S> Channel for S where
    S: tower_service::Service<Call, Response = Option<Reply>, Error: Into<BoxError>, Future: Send>
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// The future of this crate's channels (`Client`, `Pool`, `LocalChannel`, `HttpClient`):
/// what a type such as tower's `Buffer<Call, ReplyFuture>` names.
pub type ReplyFuture = std::pin::Pin<Box<dyn Future<Output = Result<Option<Reply>, CallError>> + Send + 'static>>;

/// Sends `call` over a clone of `channel` once it is ready: what a generated client's
/// method does before it decodes the reply. The future owns its clone (it borrows nothing),
/// which keeps it `Send` over any stack.
#[doc(hidden)]
pub fn send<C: Channel>(channel: &C, call: Call) -> impl Future<Output = Result<Option<Reply>, CallError>> + Send {
    let mut channel = channel.clone();
    async move {
        std::future::poll_fn(|cx| channel.poll_ready(cx)).await.map_err(CallError::from_layer)?;
        channel.call(call).await.map_err(CallError::from_layer)
    }
}

/// As [`send`], for a call that must have a reply.
#[doc(hidden)]
pub fn send_call<C: Channel>(channel: &C, call: Call) -> impl Future<Output = Result<Reply, CallError>> + Send {
    let method = call.method_name();
    let sent = send(channel, call);
    async move {
        sent.await?.ok_or_else(|| {
            let message = format!("{method}: the channel answered a call with no reply");
            CallError::Application(ApplicationException::new(ApplicationExceptionKind::MissingResult, message))
        })
    }
}

/// Why a call failed. `E` is the method's declared exception type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError<E = thrift_core::NoException> {
    /// The handler threw one of the method's declared exceptions.
    #[error("declared exception: {0:?}")]
    Exception(E),
    /// The server answered with a `TApplicationException`.
    #[error("{0}")]
    Application(ApplicationException),
    /// The reply could not be decoded.
    #[error("undecodable reply: {0}")]
    Protocol(thrift_core::Error),
    /// The connection failed or closed before the reply came. The call may have reached the
    /// server (and run there): retry it only if it is idempotent.
    #[error("transport: {0}")]
    Transport(TransportError),
    /// The call was never written: its connection was closed, broken or closing (the server
    /// said it is shutting down) before its turn came. Safe to send again elsewhere.
    #[error("not sent: {0}")]
    NotSent(TransportError),
    /// No reply within the call's timeout: the channel's own (its limit), or a tower
    /// timeout layer's (`None`: the layer's error does not say its limit).
    #[error("no reply within {}", match .0 { Some(limit) => format!("{limit:?}"), None => "the timeout".to_string() })]
    Timeout(Option<Duration>),
    /// The channel had no connection to offer in time (a pool's wait timeout, every
    /// endpoint down).
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// A tower layer between the typed client and the channel failed the call (a load
    /// shedder, a rate limiter, a circuit breaker, your own).
    #[error("{0}")]
    Layer(BoxError),
}

impl CallError {
    /// The same error as the error type of a method declaring exceptions `E` (a channel
    /// error never holds a declared exception).
    #[doc(hidden)]
    pub fn widen<E>(self) -> CallError<E> {
        match self {
            CallError::Exception(never) => match never {},
            CallError::Application(e) => CallError::Application(e),
            CallError::Protocol(e) => CallError::Protocol(e),
            CallError::Transport(e) => CallError::Transport(e),
            CallError::NotSent(e) => CallError::NotSent(e),
            CallError::Timeout(d) => CallError::Timeout(d),
            CallError::Unavailable(why) => CallError::Unavailable(why),
            CallError::Layer(e) => CallError::Layer(e),
        }
    }

    /// The error a channel's stack failed a call with: a channel's own `CallError` as it
    /// is, tower's timeout as [`CallError::Timeout`], anything else as [`CallError::Layer`].
    fn from_layer(error: impl Into<BoxError>) -> Self {
        let error = error.into();
        let error = match error.downcast::<CallError>() {
            Ok(own) => return *own,
            Err(other) => other,
        };
        match error.is::<tower::timeout::error::Elapsed>() {
            true => CallError::Timeout(None),
            false => CallError::Layer(error),
        }
    }
}

impl<E> CallError<E> {
    /// Whether the call certainly did not run on the server, so sending it again (to
    /// another connection or endpoint) cannot run it twice: it was [never
    /// sent](CallError::NotSent), no connection was [available](CallError::Unavailable), a
    /// client-side load shedder refused it, or
    /// the server refused it unrun while shutting down, at its connection limit or
    /// overloaded (the [`SHUTTING_DOWN`](crate::SHUTTING_DOWN) and
    /// [`AT_CAPACITY`](crate::AT_CAPACITY) exceptions, and any `LOADSHEDDING` one, such as
    /// [`OVERLOADED`](crate::OVERLOADED)).
    pub fn is_retry_safe(&self) -> bool {
        match self {
            CallError::NotSent(_) | CallError::Unavailable(_) => true,
            CallError::Layer(e) => e.is::<tower::load_shed::error::Overloaded>(),
            CallError::Application(e) => {
                is_shutting_down(e) || is_at_capacity(e) || e.kind == ApplicationExceptionKind::Loadshedding
            }
            _ => false,
        }
    }
}

/// Whether `e` is the exception a server answers with, unrun, while shutting down.
pub(crate) fn is_shutting_down(e: &ApplicationException) -> bool {
    e.kind == ApplicationExceptionKind::Unknown && e.message == crate::SHUTTING_DOWN
}

/// Whether `e` is the exception a server answers with, unrun, at its connection limit.
pub(crate) fn is_at_capacity(e: &ApplicationException) -> bool {
    e.kind == ApplicationExceptionKind::Unknown && e.message == crate::AT_CAPACITY
}

impl<E> From<TransportError> for CallError<E> {
    fn from(e: TransportError) -> Self {
        CallError::Transport(e)
    }
}

/// A reply as a channel received it: the whole message, its envelope read.
#[derive(Clone, Debug)]
pub struct Reply {
    message: Bytes,
    protocol: ProtocolKind,
    kind: MessageType,
    seqid: i32,
    body_start: usize,
    limits: Limits,
}

impl Reply {
    /// Reads the envelope of `message`, a whole reply as a transport yields it.
    pub fn parse(message: Bytes, protocol: ProtocolKind, limits: Limits) -> thrift_core::Result<Self> {
        let (kind, seqid, body_start) = {
            let mut r = Reader::from_bytes(&message).with_limits(limits);
            let header = with_protocol!(protocol, P => P::read_message_begin(&mut r)?);
            (header.kind, header.seqid, r.position())
        };
        Ok(Reply { message, protocol, kind, seqid, body_start, limits })
    }

    /// The sequence id, which pairs the reply with its call.
    pub fn seqid(&self) -> i32 {
        self.seqid
    }

    /// Reply or exception.
    pub fn kind(&self) -> MessageType {
        self.kind
    }

    /// The whole message, envelope included.
    pub fn message(&self) -> &Bytes {
        &self.message
    }

    /// The `TApplicationException` an exception message carries, if it is one and decodes.
    #[cfg(feature = "client")]
    pub(crate) fn application_exception(&self) -> Option<ApplicationException> {
        (self.kind == MessageType::Exception).then(|| self.decode_body::<ApplicationException>().ok()).flatten()
    }

    fn decode_body<T: thrift_core::DecodeOwned>(&self) -> thrift_core::Result<T> {
        let body = self.message.slice(self.body_start..);
        with_protocol!(self.protocol, P => P::from_bytes_with_limits::<T>(&body, &self.limits))
    }

    /// The method's outcome: its value, a declared exception, or the server's
    /// `TApplicationException`.
    #[doc(hidden)]
    pub fn into_result<R: ReturnField, E: Exceptions>(self) -> Result<R::Value, CallError<E>> {
        match self.kind {
            MessageType::Reply => {}
            MessageType::Exception => {
                let exception = self.decode_body::<ApplicationException>().map_err(CallError::Protocol)?;
                return Err(CallError::Application(exception));
            }
            other => {
                let message = format!("expected a reply, got a {other:?} message");
                let exception = ApplicationException::new(ApplicationExceptionKind::InvalidMessageType, message);
                return Err(CallError::Application(exception));
            }
        }
        match self.decode_body::<MethodResult<R, E>>().map_err(CallError::Protocol)? {
            MethodResult::Ok(v) => Ok(v.into_value()),
            MethodResult::Err(e) => Err(CallError::Exception(e)),
            MethodResult::Missing => Err(CallError::Application(ApplicationException::new(
                ApplicationExceptionKind::MissingResult,
                "the reply carries neither a result nor a declared exception",
            ))),
        }
    }
}
