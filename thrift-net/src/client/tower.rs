//! The client as a [`tower_service::Service`] of pre-encoded calls, so tower's middleware
//! (timeout, retry, rate limit, load balancing) wraps it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{Client, RawRequest};
use crate::channel::{CallError, Reply};

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
/// # fn main() {
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::new().bind("127.0.0.1:0", echo::Server::new(Parrot)).await?;
/// let client = Client::connect(server.local_addr(), ClientConfig::default()).await?;
/// let args = RawRequest::encode_args(ProtocolKind::Binary, &echo::EchoArgs { s: "hi".into() });
/// let service = ServiceBuilder::new().timeout(Duration::from_secs(5)).service(client);
/// let reply = service.oneshot(RawRequest::call("Echo", "echo", args)).await?.expect("a call has a reply");
/// let value = reply.into_result::<thrift_core::__private::Returns<String>, thrift_core::NoException>()?;
/// assert_eq!(value, "hi");
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// # }).unwrap();
/// # }
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
