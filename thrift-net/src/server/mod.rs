//! The server side: what a service receives and answers ([`Request`], [`Response`]), the
//! [`Multiplexed`] router, and (feature `server`) the [`Server`] that accepts connections,
//! tells each one's wire format from its first bytes, and answers requests concurrently.

mod failure;
mod multiplex;
mod named;
mod peer;
mod request;
mod response;

#[cfg(feature = "server")]
mod bind;
#[cfg(feature = "server")]
mod budget;
#[cfg(feature = "server")]
mod codec;
#[cfg(feature = "server")]
mod config;
#[cfg(feature = "server")]
mod connection;
#[cfg(all(feature = "server", feature = "metrics"))]
mod export;
// The HTTP server accepts connections through it too.
#[cfg(any(feature = "server", feature = "http"))]
pub(crate) mod listener;
#[cfg(feature = "server")]
mod metrics;
#[cfg(feature = "server")]
mod open;
#[cfg(feature = "server")]
mod receiving;
#[cfg(feature = "server")]
mod reject;
#[cfg(feature = "server")]
mod replies;
#[cfg(feature = "server")]
mod shutdown;

pub use failure::OVERLOADED;
pub use multiplex::{Multiplexed, MultiplexedBuilder};
pub(crate) use named::ready_call;
pub use named::{respond, BoxError, NamedService, ThriftService};
pub use peer::Peer;
pub use request::{Request, CLIENT_TIMEOUT};
pub use response::Response;

#[cfg(feature = "server")]
pub use bind::{Server, ServerHandle};
#[cfg(feature = "server")]
pub use config::ServerBuilder;
#[cfg(feature = "server")]
pub use metrics::Metrics;
#[cfg(feature = "server")]
pub use shutdown::Shutdown;

/// The message of the `TApplicationException` (kind `UNKNOWN`) a [`Server`] answers a
/// request with when it read the request after its shutdown began: the request was not
/// run, so it is safe to send again, to another server.
/// [`CallError::is_retry_safe`](crate::CallError::is_retry_safe) tells it apart, and a
/// [`Client`](crate::Client) receiving it sends nothing more on that connection.
pub const SHUTTING_DOWN: &str = "the server is shutting down; the request was not processed";

/// The message of the `TApplicationException` (kind `UNKNOWN`) a [`Server`] answers the
/// first request of a connection with when it is at its connection limit
/// (`ServerBuilder::max_connections`), then closes the connection: the request was not run,
/// so it is safe to send again, to another server.
/// [`CallError::is_retry_safe`](crate::CallError::is_retry_safe) tells it apart, a
/// [`Client`](crate::Client) receiving it sends nothing more on that connection, and a
/// [`Pool`](crate::Pool) counts it as a refused connection to that endpoint.
pub const AT_CAPACITY: &str = "the server is at its connection limit; the request was not processed";
