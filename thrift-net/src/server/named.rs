//! What a Thrift service is to the server: a `tower::Service` of [`Request`]s with a name.

use std::future::Future;

use super::{Request, Response};

/// A boxed error, as tower's layers return them.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The IDL name of a service: the multiplexed protocol's `Service:` prefix. The `…::Server`
/// types `#[service]` generates implement it, beside `tower::Service<Request>`.
pub trait NamedService {
    /// The IDL name.
    const NAME: &'static str;
}

/// What a [`Server`](crate::Server) serves: any `tower::Service` of [`Request`]s answering
/// [`Response`]s that can be cloned for each request and sent across tasks, such as a
/// generated `…::Server` wrapped in tower's layers.
///
/// Its errors become `TApplicationException`s: tower's `Elapsed` (the timeout layer) is
/// `TIMEOUT`, its `Overloaded` (the load-shed layer) is `LOADSHEDDING` with the
/// [`OVERLOADED`](super::OVERLOADED) message (safe to send again elsewhere), an
/// `ApplicationException` is answered as it is, anything else is `INTERNAL_ERROR`.
/// Implemented for every such service; not to be implemented by hand.
pub trait ThriftService:
    tower_service::Service<Request, Response = Response, Error = Self::Failure, Future = Self::Answer>
    + Clone
    + Send
    + 'static
{
    /// The service's error.
    type Failure: Into<BoxError> + Send;
    /// The service's future.
    type Answer: Future<Output = Result<Response, Self::Failure>> + Send + 'static;
}

impl<S> ThriftService for S
where
    S: tower_service::Service<Request, Response = Response> + Clone + Send + 'static,
    S::Error: Into<BoxError> + Send,
    S::Future: Send + 'static,
{
    type Failure = S::Error;
    type Answer = S::Future;
}

/// Waits until `service` is ready, then calls it with `request`: how the server, the
/// router and the in-process channel drive a [`ThriftService`], by value (a clone per
/// request, so the future owns all it needs) or as `&mut`.
///
/// Not an `async fn`: those keep a second copy of their arguments in their future.
#[allow(clippy::manual_async_fn)]
pub(crate) fn ready_call<S>(mut service: S, request: Request) -> impl Future<Output = Result<Response, BoxError>>
where
    S: tower_service::Service<Request, Response = Response>,
    S::Error: Into<BoxError>,
{
    async move {
        std::future::poll_fn(|cx| service.poll_ready(cx)).await.map_err(Into::into)?;
        service.call(request).await.map_err(Into::into)
    }
}

/// Answers `request` with `service`, as a server does: waits until the service is ready,
/// calls it, and answers a failure with its `TApplicationException` (see [`ThriftService`]).
/// For serving loops of your own.
///
/// ```
/// use bytes::Bytes;
/// use thrift_core::{Binary, Limits, MessageHeader, MessageType};
/// use thrift_net::codec::{Message, ProtocolKind};
/// use thrift_net::server::{respond, Request};
///
/// #[thrift_net::service]
/// trait Echo {
///     async fn echo(&self, #[thrift(id = 1)] s: String) -> String;
/// }
/// struct Parrot;
/// impl Echo for Parrot {
///     async fn echo(&self, s: String) -> String { s }
/// }
///
/// # fn main() {
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let header = MessageHeader { name: "echo", kind: MessageType::Call, seqid: 7 };
/// let mut call = Vec::new();
/// Message::new(header, &echo::EchoArgs { s: "hi".into() }).encode::<Binary, _>(&mut call);
/// let request = Request::parse(Bytes::from(call), ProtocolKind::Binary, false, Limits::default()).unwrap();
/// let reply = respond(&mut echo::Server::new(Parrot), request).await;
/// assert!(reply.into_bytes().is_some());
/// # });
/// # }
/// ```
pub async fn respond<S: ThriftService>(service: &mut S, request: Request) -> Response {
    let answering = request.clone();
    match ready_call(service, request).await {
        Ok(response) => response,
        Err(error) => answering.answer_failure(&error),
    }
}
