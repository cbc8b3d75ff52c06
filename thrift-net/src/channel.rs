//! The client side of the contract the `#[service]` macro generates code against: a
//! [`Channel`] carries calls, a [`Reply`] becomes the method's typed result.

use std::future::Future;

use bytes::Bytes;
use thrift_core::__private::{Exceptions, MethodResult, ReturnField};
use thrift_core::{ApplicationException, ApplicationExceptionKind, Limits, MessageType};

pub use crate::call::Call;
pub use crate::call_error::{CallError, CallSite, EndpointDown, Unavailable};
use crate::header::Headers;
use crate::message::read_envelope;
use crate::protocol::with_protocol;
use crate::server::{BoxError, Peer};
use crate::wire::ProtocolKind;

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
/// oneway method does. The future owns its clone (it borrows nothing), which keeps it
/// `Send` over any stack. Errors name the call.
#[doc(hidden)]
pub fn send<C: Channel>(channel: &C, call: Call) -> impl Future<Output = Result<Option<Reply>, CallError>> + Send {
    let mut channel = channel.clone();
    async move {
        let names = call.names();
        let sent = async move {
            std::future::poll_fn(|cx| channel.poll_ready(cx)).await.map_err(CallError::from_layer)?;
            channel.call(call).await.map_err(CallError::from_layer)
        };
        sent.await.map_err(|e| e.located(&names.site()))
    }
}

/// Sends `call` as [`send`] does and decodes its reply: what a generated client's method
/// does. Errors name the call, and the endpoint that answered.
#[doc(hidden)]
pub fn call<C: Channel, R: ReturnField, E: Exceptions + Send>(
    channel: &C,
    call: Call,
) -> impl Future<Output = Result<R::Value, CallError<E>>> + Send
where
    R::Value: Send,
{
    let names = call.names();
    let sent = send(channel, call);
    async move {
        let reply = sent.await.map_err(CallError::widen)?.ok_or_else(|| {
            let message = "the channel answered a call with no reply";
            let exception = ApplicationException::new(ApplicationExceptionKind::MissingResult, message);
            CallError::Application(exception, names.site())
        })?;
        reply.into_result::<R, E>().map_err(|e| e.located(&names.site()))
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
    peer: Option<Peer>,
    /// A header frame's headers, boxed: most replies have none, and replies are moved.
    headers: Option<Box<Headers>>,
}

/// What a reply's envelope says: its message type and sequence id, and where its body starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReplyParts {
    pub kind: MessageType,
    pub seqid: i32,
    pub body_start: usize,
}

impl Reply {
    /// Reads the envelope of `message`, a whole reply as a transport yields it, from no
    /// known [peer](Reply::peer) until [`Reply::with_peer`] names one.
    pub fn parse(message: Bytes, protocol: ProtocolKind, limits: Limits) -> thrift_core::Result<Self> {
        let (header, body_start) = read_envelope(&message, protocol, limits)?;
        let parts = ReplyParts { kind: header.kind, seqid: header.seqid, body_start };
        Ok(Reply::from_parts(message, protocol, parts, limits))
    }

    /// A reply whose envelope was read already (into `parts`).
    pub(crate) fn from_parts(message: Bytes, protocol: ProtocolKind, parts: ReplyParts, limits: Limits) -> Reply {
        let ReplyParts { kind, seqid, body_start } = parts;
        Reply { message, protocol, kind, seqid, body_start, limits, peer: None, headers: None }
    }

    /// The same reply, as come from `peer`: the endpoint its errors name.
    pub fn with_peer(mut self, peer: Peer) -> Reply {
        self.peer = Some(peer);
        self
    }

    /// [`Reply::with_peer`] when the peer is known.
    #[cfg(feature = "client")]
    pub(crate) fn with_known_peer(self, peer: Option<&Peer>) -> Reply {
        match peer {
            Some(peer) => self.with_peer(peer.clone()),
            None => self,
        }
    }

    /// The same reply, with the headers of the frame it came in.
    #[cfg(feature = "client")]
    pub(crate) fn with_headers(mut self, headers: Headers) -> Reply {
        self.headers = (!headers.is_empty()).then(|| Box::new(headers));
        self
    }

    /// The headers of the THeader or TTHeader frame the reply came in (none on other
    /// transports): what the server's handler set with
    /// [`Request::set_reply_header`](crate::Request::set_reply_header), or what fbthrift and
    /// Kitex servers send. A typed client's caller reads them through a layer on its
    /// channel, e.g. tower's `map_response`.
    pub fn headers(&self) -> &Headers {
        self.headers.as_deref().unwrap_or(Headers::none())
    }

    /// The endpoint that sent the reply, when the channel knew it.
    pub fn peer(&self) -> Option<&Peer> {
        self.peer.as_ref()
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
        let site = || CallSite::default().at_known(self.peer.as_ref());
        match self.kind {
            MessageType::Reply => {}
            MessageType::Exception => {
                let exception =
                    self.decode_body::<ApplicationException>().map_err(|e| CallError::Protocol(e, site()))?;
                return Err(CallError::Application(exception, site()));
            }
            other => {
                let message = format!("expected a reply, got a {other:?} message");
                let exception = ApplicationException::new(ApplicationExceptionKind::InvalidMessageType, message);
                return Err(CallError::Application(exception, site()));
            }
        }
        match self.decode_body::<MethodResult<R, E>>().map_err(|e| CallError::Protocol(e, site()))? {
            MethodResult::Ok(v) => Ok(v.into_value()),
            MethodResult::Err(e) => Err(CallError::Exception(e)),
            MethodResult::Missing => Err(CallError::Application(
                ApplicationException::new(
                    ApplicationExceptionKind::MissingResult,
                    "the reply carries neither a result nor a declared exception",
                ),
                site(),
            )),
        }
    }
}
