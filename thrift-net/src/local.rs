//! A channel straight into a service, without a socket: for testing handlers through their
//! typed client.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use thrift_core::{Limits, MessageHeader, MessageType};

use crate::channel::{Call, CallError, CallSite, Reply, ReplyFuture, Unavailable};
use crate::framing::Framing;
use crate::header::Headers;
use crate::server::{respond, Peer, Request, ThriftService};
use crate::wire::ProtocolKind;

/// A [`Channel`](crate::Channel) that hands each call to a [`ThriftService`] in the same
/// process: the call is encoded, parsed as a server would receive it, dispatched, and its
/// reply decoded, so a handler is exercised through exactly the bytes a socket would carry.
///
/// ```
/// use thrift_core::ThriftStruct;
/// use thrift_net::{service, LocalChannel, ProtocolKind};
///
/// #[service(name = "Echo")]
/// trait Echo {
///     async fn echo(&self, #[thrift(id = 1)] text: String) -> String;
/// }
///
/// struct Parrot;
/// impl Echo for Parrot {
///     async fn echo(&self, text: String) -> String {
///         text
///     }
/// }
///
/// # fn main() {
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let client = echo::Client::new(LocalChannel::new(echo::Server::new(Parrot), ProtocolKind::Compact));
/// assert_eq!(client.echo("polly".into()).await.unwrap(), "polly");
/// # });
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct LocalChannel<S> {
    service: S,
    protocol: ProtocolKind,
    seqid: Arc<AtomicI32>,
}

impl<S: ThriftService> LocalChannel<S> {
    /// A channel into `service`, speaking `protocol`.
    pub fn new(service: S, protocol: ProtocolKind) -> Self {
        LocalChannel { service, protocol, seqid: Arc::new(AtomicI32::new(1)) }
    }

    /// The service calls go to.
    pub fn service(&self) -> &S {
        &self.service
    }

    fn request(&self, call: &Call, kind: MessageType) -> Result<Request, CallError> {
        let header = MessageHeader { name: call.method(), kind, seqid: self.seqid.fetch_add(1, Ordering::Relaxed) };
        let bytes = call.encode(self.protocol, header, &Framing::Bare, Headers::none(), &Limits::default())?;
        Request::parse(bytes, self.protocol, false, Limits::default()).map_err(|e| CallError::Protocol(e, local()))
    }

    /// Dispatches a call and reads its reply.
    async fn answer(mut service: S, protocol: ProtocolKind, request: Request) -> Result<Option<Reply>, CallError> {
        match respond(&mut service, request).await.into_bytes() {
            Some(reply) => {
                Reply::parse(reply, protocol, Limits::default()).map(Some).map_err(|e| CallError::Protocol(e, local()))
            }
            None => Err(CallError::Unavailable(Unavailable::NoReply, local())),
        }
    }
}

/// Where a local channel's calls go, as its errors name it.
fn local() -> CallSite {
    CallSite::default().at(Peer::Local)
}

/// A call's reply comes back once the service answered; a oneway message completes once
/// handed over, as on a socket: the handler runs in a task of its own.
impl<S: ThriftService + Sync> tower_service::Service<Call> for LocalChannel<S> {
    type Response = Option<Reply>;
    type Error = CallError;
    type Future = ReplyFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let kind = if call.is_oneway() { MessageType::Oneway } else { MessageType::Call };
        let request = self.request(&call, kind).map_err(|e| e.located(&local()));
        let (service, protocol) = (self.service.clone(), self.protocol);
        Box::pin(async move {
            let request = request?;
            if kind == MessageType::Oneway {
                tokio::spawn(async move { respond(&mut { service }, request).await });
                return Ok(None);
            }
            Self::answer(service, protocol, request).await
        })
    }
}
