//! The client as a [`tower_service::Service`] of [`Call`]s: a [`Channel`](crate::Channel)
//! for the typed clients, and what tower's middleware (timeout, retry, rate limit, load
//! balancing) wraps.

use std::task::{Context, Poll};

use super::Client;
use crate::channel::{Call, CallError, Reply, ReplyFuture};

/// Calls go out on the shared connection; the response is the [`Reply`] (`None` for a oneway
/// message). Ready unless the connection is closed (or closing), when `poll_ready` fails
/// with [`CallError::NotSent`], which tells a balancer to drop this endpoint and a caller
/// that the call may go elsewhere.
///
/// ```
/// use std::time::Duration;
/// use thrift_net::{service, Call, Client, ClientConfig, Server};
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
/// let stack = ServiceBuilder::new().timeout(Duration::from_secs(5)).service(client);
///
/// // The typed client over the stack...
/// assert_eq!(echo::Client::new(stack.clone()).echo("hi".into()).await?, "hi");
///
/// // ...or a call by hand, its reply decoded by hand.
/// let call = Call::new("Echo", "echo", echo::EchoArgs { s: "ho".into() });
/// let reply = stack.oneshot(call).await?.expect("a call has a reply");
/// let value = reply.into_result::<thrift_core::__private::Returns<String>, thrift_core::NoException>()?;
/// assert_eq!(value, "ho");
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// # }).unwrap();
/// # }
/// ```
impl tower_service::Service<Call> for Client {
    type Response = Option<Reply>;
    type Error = CallError;
    type Future = ReplyFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(match self.is_closed() {
            true => Err(self.inner.shared.not_sent_error()),
            false => Ok(()),
        })
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let client = self.clone();
        Box::pin(async move { client.send(&call).await })
    }
}
