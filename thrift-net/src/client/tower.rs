//! The client as a [`tower_service::Service`] of pre-encoded calls, so tower's middleware
//! (timeout, retry, rate limit, load balancing) wraps it.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::{Encode, Idl, Protocol, TType, ThriftType};

use super::Client;
use crate::channel::{CallError, Reply};
use crate::detect::ProtocolKind;
use crate::incoming::with_protocol;

/// One call for the [`tower_service::Service`] face of a [`Client`]: names, and the args
/// struct already encoded in the client's protocol. Cheap to clone (the args are shared),
/// so tower's retry layer can resend it.
///
/// ```
/// use thrift_net::{ProtocolKind, RawRequest};
///
/// #[derive(thrift_core::ThriftStruct)]
/// struct AddArgs {
///     #[thrift(id = 1)] a: i32,
///     #[thrift(id = 2)] b: i32,
/// }
/// let args = RawRequest::encode_args(ProtocolKind::Binary, &AddArgs { a: 1, b: 2 });
/// let request = RawRequest::call("Calculator", "add", args);
/// assert!(!request.oneway);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRequest {
    /// The service name: the `Service:` prefix when the client is multiplexed (empty: none).
    pub service: Cow<'static, str>,
    /// The method name.
    pub method: Cow<'static, str>,
    /// A oneway message: no reply is waited for.
    pub oneway: bool,
    /// The encoded args struct, in the client's protocol.
    pub args: Bytes,
}

impl RawRequest {
    /// A call, answered with a [`Reply`].
    pub fn call(service: impl Into<Cow<'static, str>>, method: impl Into<Cow<'static, str>>, args: Bytes) -> Self {
        RawRequest { service: service.into(), method: method.into(), oneway: false, args }
    }

    /// A oneway message, answered with nothing once written.
    pub fn oneway(service: impl Into<Cow<'static, str>>, method: impl Into<Cow<'static, str>>, args: Bytes) -> Self {
        RawRequest { oneway: true, ..RawRequest::call(service, method, args) }
    }

    /// Encodes an args struct in `protocol`, in one buffer of its exact size.
    pub fn encode_args<A: Encode + ?Sized>(protocol: ProtocolKind, args: &A) -> Bytes {
        with_protocol!(protocol, P => encode_exact::<P, A>(args))
    }
}

fn encode_exact<P: Protocol, A: Encode + ?Sized>(args: &A) -> Bytes {
    let mut buf = BytesMut::with_capacity(args.encoded_len::<P>());
    args.encode::<P, _>(&mut buf);
    buf.freeze()
}

/// Bytes already encoded, written as they are where a message body goes.
pub(super) struct RawArgs<'a>(pub &'a [u8]);

impl ThriftType for RawArgs<'_> {
    const TTYPE: TType = TType::Struct;
    fn idl_type(_: &mut Idl) -> String {
        "struct".into()
    }
}

impl Encode for RawArgs<'_> {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        buf.put_slice(self.0);
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.len()
    }
}

/// Calls go out on the shared connection; the response is the [`Reply`] (`None` for a oneway
/// message). Ready unless the connection is closed, when `poll_ready` fails with the
/// transport error, which tells a balancer to drop this endpoint.
///
/// ```
/// use std::time::Duration;
/// use thrift_net::{service, Client, ClientConfig, ProtocolKind, RawRequest, Server};
/// use tower::{ServiceBuilder, ServiceExt};
///
/// #[service(name = "Echo")]
/// trait Echo {
///     async fn echo(&self, #[thrift(id = 1)] s: String) -> String;
/// }
/// struct Parrot;
/// impl Echo for Parrot {
///     async fn echo(&self, s: String) -> String { s }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::new().bind("127.0.0.1:0", EchoServer::new(Parrot)).await?;
/// let client = Client::connect(server.local_addr(), ClientConfig::default()).await?;
/// let args = RawRequest::encode_args(ProtocolKind::Binary, &EchoEchoArgs { s: "hi".into() });
/// let service = ServiceBuilder::new().timeout(Duration::from_secs(5)).service(client);
/// let reply = service.oneshot(RawRequest::call("Echo", "echo", args)).await?.expect("a call has a reply");
/// let value = reply.into_result::<thrift_core::Returns<String>, thrift_core::NoException>()?;
/// assert_eq!(value, "hi");
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// # }).unwrap();
/// ```
impl tower_service::Service<RawRequest> for Client {
    type Response = Option<Reply>;
    type Error = CallError;
    type Future = Pin<Box<dyn Future<Output = Result<Option<Reply>, CallError>> + Send + 'static>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(match self.is_closed() {
            true => Err(self.inner.shared.closed_error()),
            false => Ok(()),
        })
    }

    fn call(&mut self, request: RawRequest) -> Self::Future {
        let client = self.clone();
        Box::pin(async move { client.call_raw(request).await })
    }
}
