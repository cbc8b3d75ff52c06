//! A channel straight into a service, without a socket: for testing handlers through their
//! typed client.

use std::sync::atomic::{AtomicI32, Ordering};

use thrift_core::{Encode, Limits, MessageHeader, MessageType};

use crate::channel::{CallError, Channel, Reply};
use crate::detect::ProtocolKind;
use crate::framing::{encode_message, Framing};
use crate::header::Headers;
use crate::message::Message;
use crate::protocol::with_protocol;
use crate::server::{respond, Request, ThriftService};

/// A [`Channel`] that hands each call to a [`ThriftService`] in the same process: the call is
/// encoded, parsed as a server would receive it, dispatched, and its reply decoded, so a
/// handler is exercised through exactly the bytes a socket would carry.
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
#[derive(Debug)]
pub struct LocalChannel<S> {
    service: S,
    protocol: ProtocolKind,
    seqid: AtomicI32,
}

impl<S: ThriftService> LocalChannel<S> {
    /// A channel into `service`, speaking `protocol`.
    pub fn new(service: S, protocol: ProtocolKind) -> Self {
        LocalChannel { service, protocol, seqid: AtomicI32::new(1) }
    }

    /// The service calls go to.
    pub fn service(&self) -> &S {
        &self.service
    }

    fn request<A: Encode>(&self, method: &str, kind: MessageType, args: &A) -> Result<Request, CallError> {
        let header = MessageHeader { name: method, kind, seqid: self.seqid.fetch_add(1, Ordering::Relaxed) };
        let message = Message::new(header, args);
        let bytes =
            with_protocol!(self.protocol, P => encode_message::<P, A>(&message, &Framing::Bare, Headers::none()))
                .map_err(CallError::Transport)?;
        Request::parse(bytes, self.protocol, false, Limits::default()).map_err(CallError::Protocol)
    }
}

impl<S: ThriftService + Sync> Channel for LocalChannel<S> {
    async fn call<A: Encode + Sync>(
        &self,
        _: &'static str,
        method: &'static str,
        args: &A,
    ) -> Result<Reply, CallError> {
        let request = self.request(method, MessageType::Call, args)?;
        match respond(&mut self.service.clone(), request).await.into_bytes() {
            Some(reply) => Reply::parse(reply, self.protocol, Limits::default()).map_err(CallError::Protocol),
            None => Err(CallError::Unavailable(format!("{method}: the service sent no reply to a call"))),
        }
    }

    /// Completes once the message is handed over, as on a socket: the handler runs in a
    /// task of its own.
    async fn oneway<A: Encode + Sync>(&self, _: &'static str, method: &'static str, args: &A) -> Result<(), CallError> {
        let request = self.request(method, MessageType::Oneway, args)?;
        let mut service = self.service.clone();
        tokio::spawn(async move { respond(&mut service, request).await });
        Ok(())
    }
}
