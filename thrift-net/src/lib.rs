//! Tokio transports, server, client and connection pool for `thrift-core`.
//!
//! The transports are tokio-util codecs that turn a byte stream into whole messages, each a
//! [`bytes::Bytes`] the derived code decodes zero-copy (see [`decode_message`]):
//!
//! - [`FramedCodec`]: Apache's framed transport, a 4-byte big-endian length before each
//!   message, checked against the maximum frame size from the prefix alone.
//! - [`BufferedCodec`]: Apache's buffered transport, messages back to back with no length.
//!   A resumable skip-decoding [`Scanner`] walks the protocol to find where each message
//!   ends, without decoding values and without re-walking when bytes trickle in.
//! - [`detect`] tells which of the two, and which protocol, a connection speaks from its first
//!   bytes.
//!
//! Errors are [`TransportError`]s naming the phase and the place:
//! `skip-decoder: invalid field type 0x1f at offset 1234, depth 3 (field id 7)`.
//!
//! # Services
//!
//! [`service`] turns a trait of `async fn`s into a Thrift service: a `…Server` type that a
//! [`Server`] serves, and a typed `…Client` that calls it over any [`Channel`], such as a
//! pipelining [`Client`] connection.
//!
//! - The [`Server`] tells each connection's transport and protocol from its first bytes and
//!   replies in kind; it handles the requests of one connection concurrently, answers
//!   unknown methods, undecodable arguments and panicking handlers with
//!   `TApplicationException`s, bounds connections, requests in flight, frame sizes and idle
//!   peers, shuts down gracefully, and counts what it does ([`ServerHandle::metrics`]).
//!   A [`Multiplexed`] router serves several services on one port.
//! - One [`Client`] connection carries any number of concurrent calls, matched to their
//!   replies by sequence id; it is `Clone + Send + Sync`, has a per-call timeout, fails its
//!   waiting calls at once when the connection breaks, and is a `tower::Service` of
//!   [`RawRequest`]s.
//!
//! ```
//! use std::time::Duration;
//! use thrift_core::ThriftStruct;
//! use thrift_net::{service, CallError, Client, ClientConfig, Server};
//!
//! #[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
//! struct HelloRequest {
//!     #[thrift(id = 1)]
//!     name: String,
//! }
//!
//! #[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
//! struct HelloResponse {
//!     #[thrift(id = 1)]
//!     message: String,
//! }
//!
//! #[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
//! #[thrift(exception)]
//! struct NoName {
//!     #[thrift(id = 1)]
//!     reason: String,
//! }
//!
//! #[service(name = "HelloService")]
//! trait HelloService {
//!     #[thrift(name = "sayHello")]
//!     async fn say_hello(&self, #[thrift(id = 1)] req: HelloRequest) -> Result<HelloResponse, NoName>;
//! }
//!
//! struct Greeter;
//!
//! impl HelloService for Greeter {
//!     async fn say_hello(&self, req: HelloRequest) -> Result<HelloResponse, NoName> {
//!         if req.name.is_empty() {
//!             return Err(NoName { reason: "who?".into() });
//!         }
//!         Ok(HelloResponse { message: format!("hello, {}", req.name) })
//!     }
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let server = Server::builder().max_connections(1000).read_idle_timeout(Duration::from_secs(30)).build();
//!     let handle = server.bind("127.0.0.1:0", HelloServiceServer::new(Greeter)).await?;
//!
//!     // One connection for every caller: clones share it, calls on it run concurrently.
//!     let connection = Client::connect(handle.local_addr(), ClientConfig::default()).await?;
//!     let client = HelloServiceClient::new(connection);
//!     let (ada, bob) = tokio::join!(
//!         client.say_hello(HelloRequest { name: "ada".into() }),
//!         client.say_hello(HelloRequest { name: "bob".into() }),
//!     );
//!     assert_eq!((ada?.message, bob?.message), ("hello, ada".into(), "hello, bob".into()));
//!
//!     // The declared exception comes back typed.
//!     match client.say_hello(HelloRequest::default()).await {
//!         Err(CallError::Exception(NoName { reason })) => assert_eq!(reason, "who?"),
//!         other => panic!("expected the declared exception, got {other:?}"),
//!     }
//!
//!     assert!(handle.shutdown(Duration::from_secs(5)).await.is_graceful());
//!     Ok(())
//! }
//! ```

#![forbid(unsafe_code)]

mod buffered;
mod channel;
mod client;
mod detect;
mod error;
mod framed;
mod incoming;
mod message;
mod pool;
mod scan;
mod server;

pub use buffered::BufferedCodec;
pub use channel::{CallError, Channel, Reply};
pub use client::{Client, ClientConfig, RawRequest};
pub use detect::{detect, Detection, ProtocolKind, Transport, Wire, DETECT_MAX_NAME_LEN};
pub use error::{Phase, TransportError, TransportErrorKind};
pub use framed::FramedCodec;
pub use incoming::{Incoming, Outgoing, Service};
pub use message::{decode_message, Message};
pub use pool::{Balance, EndpointMetrics, Maintenance, MaintenanceTask, Mode, Pool, PoolConfig};
pub use scan::{Scan, Scanner};
pub use server::{Metrics, Multiplexed, MultiplexedBuilder, Server, ServerBuilder, ServerHandle, Shutdown};

/// The wire format this crate carries; generated service code refers to it through here.
pub use thrift_core;
/// Turns a trait of `async fn`s into a Thrift service; see the crate documentation.
pub use thrift_derive::service;
