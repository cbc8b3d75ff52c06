//! Tokio transports, server, client and connection pool for `thrift-core`.
//!
//! The transports are tokio-util codecs that turn a byte stream into whole messages, each a
//! [`bytes::Bytes`] the derived code decodes zero-copy (see [`decode_message`](codec::decode_message)):
//!
//! - [`FramedCodec`](codec::FramedCodec): Apache's framed transport, a 4-byte big-endian length before each
//!   message, checked against the maximum frame size from the prefix alone.
//! - [`BufferedCodec`](codec::BufferedCodec): Apache's buffered transport, messages back to back with no length.
//!   A resumable skip-decoding [`Scanner`](codec::Scanner) walks the protocol to find where each message
//!   ends, without decoding values and without re-walking when bytes trickle in.
//! - THeader and TTHeader ([`Transport::Header`], [`Transport::TTHeader`]): each message in
//!   a frame that also carries its protocol, sequence id and key/value [`Headers`]; what
//!   fbthrift, Apache's header clients, volo-thrift and Kitex speak.
//! - [`detect`](codec::detect()) tells which transport, and which protocol, a connection speaks from its first
//!   bytes.
//!
//! Errors are [`TransportError`]s naming the phase and the place:
//! `skip-decoder: field header: invalid type id 0x1f at offset 1234, depth 3 (field id 7)`.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `server` | on | [`Server`], [`Multiplexed`] |
//! | `client` | on | the pipelining [`Client`] connection |
//! | `pool` | on | the connection [`Pool`] (implies `client`) |
//! | `tls` | off | TLS on rustls (`ring`): `Server::bind_tls`, `Client::connect_tls`, PEM helpers in `tls` |
//! | `zlib` | off | Apache's zlib transport (`ZlibStream`, `ServerBuilder::zlib`, `ClientConfig::zlib`) and THeader's zlib transform (compressed header requests are refused without it) |
//! | `metrics` | off | the server and pool report through the `metrics` facade (names and labels in `metrics_names`), `ServerBuilder::metrics_labels`, `PoolConfig::metrics_labels` |
//!
//! With none of them the crate is the codecs, [`detect`](codec::detect()), the [`service`] macro's contract
//! ([`Channel`], [`Request`], [`Response`], [`NamedService`]), the [`Multiplexed`] router
//! and the in-process [`LocalChannel`].
//!
//! # Layout
//!
//! [`codec`] holds the transports' codecs and detection, [`server`] the server side
//! ([`Request`], [`Response`], the [`Server`] and its builder), [`client`] the pipelining
//! connection, [`pool`] the connection pool and discovery, `http` and `tls` (features) those
//! transports. The root re-exports what most programs name: the [`service`] macro, the
//! client contract ([`Call`], [`Channel`], [`Reply`], [`CallError`]), and the main type of
//! each module.
//!
//! # Services
//!
//! [`service`] turns a trait of `async fn`s into a Thrift service: a `tower::Service` of
//! [`Request`]s (`hello_service::Server`) that a [`Server`] serves, and a typed client
//! (`hello_service::Client`) that calls it over any [`Channel`]: any `tower::Service` of
//! [`Call`]s, such as a pipelining [`Client`] connection, a [`Pool`], or either under
//! tower's layers.
//!
//! - The client side is tower too: `hello_service::Client::new(ServiceBuilder::new()
//!   .timeout(..).rate_limit(..).service(pool))` calls through the stack. Each [`Call`]
//!   carries its arguments as a typed value, encoded once by the channel at the bottom in
//!   the protocol it speaks, and says whether its method is idempotent, so a retry policy
//!   can tell. Errors stay typed: the declared exceptions, the channel's own
//!   [`CallError`]s, tower's timeout as [`CallError::Timeout`], other layers' as
//!   [`CallError::Layer`].
//! - Services are tower services, and the [`Server`] takes tower's layers
//!   ([`ServerBuilder::layer`]): timeout, concurrency limit, load shedding, rate limiting,
//!   your own. Their errors reach the caller as `TApplicationException`s: tower's timeout
//!   as `TIMEOUT`, load shedding as `LOADSHEDDING` ([`OVERLOADED`](server::OVERLOADED), safe to retry
//!   elsewhere: [`CallError::is_retry_safe`]).
//! - A handler that wants its request's context takes `#[thrift(context)] request:
//!   &Request`: the [peer](Request::peer), [transport](Request::transport),
//!   [protocol](Request::protocol), [headers](Request::headers),
//!   [arrival](Request::arrived) and [deadline](Request::deadline) (from a TTHeader's or
//!   THeader's timeout). Handlers may be shared: `Arc<T>` and `&'static T` are handlers.
//!
//! - The [`Server`] tells each connection's transport and protocol from its first bytes and
//!   replies in kind; it handles the requests of one connection concurrently, answers
//!   unknown methods, undecodable arguments and panicking handlers with
//!   `TApplicationException`s, bounds connections, requests in flight, frame sizes and idle
//!   peers, shuts down gracefully, and counts what it does ([`ServerHandle::metrics`]).
//!   A [`Multiplexed`] router serves several services on one port. It listens on TCP
//!   ([`Server::bind`]) or a Unix domain socket ([`Server::bind_unix`]; the client's side is
//!   [`Client::connect_unix`]).
//! - One [`Client`] connection carries any number of concurrent calls, matched to their
//!   replies by sequence id; it is `Clone + Send + Sync`, has a per-call timeout, fails its
//!   waiting calls at once when the connection breaks, and is a `tower::Service` of
//!   [`Call`]s.
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
//!     // Tower's layers wrap every request: here no call may run past two seconds.
//!     let server = Server::builder()
//!         .max_connections(1000)
//!         .read_idle_timeout(Duration::from_secs(30))
//!         .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(2)))
//!         .build();
//!     let handle = server.bind("127.0.0.1:0", hello_service::Server::new(Greeter)).await?;
//!
//!     // One connection for every caller: clones share it, calls on it run concurrently.
//!     let connection = Client::connect(handle.local_addr(), ClientConfig::default()).await?;
//!     let client = hello_service::Client::new(connection);
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
//!
//! # Connection pool
//!
//! A [`Pool`] is a [`Channel`] over one or several endpoints, so the same typed client runs
//! over one connection or a pool: `hello_service::Client::new(pool.clone())`. Checkouts are
//! bounded by a semaphore (waits are served in turn), an idle connection's health is checked
//! before it is lent, a connection goes back when its call ends, and the pool runs no
//! background task of its own. It has what users of Java's commons-pool2 and of Kitex look
//! for:
//!
//! | [`PoolConfig`] | commons-pool2 / Kitex | what it does |
//! | --- | --- | --- |
//! | `max_total` | `maxTotal` | hard cap on connections open to one endpoint |
//! | `max_idle` | `maxIdle`, `MaxIdlePerAddress` | a connection returned beyond it is closed |
//! | `min_idle` | `minIdle` | opened ahead of need by [`Pool::maintain`] |
//! | `max_idle_global` | `MaxIdleGlobal` | the same cap over all endpoints |
//! | `idle_timeout` | `MaxIdleTimeout` | idle longer: closed at checkout, on return, or by `maintain` |
//! | `max_lifetime` | HikariCP `maxLifetime` | older: closed instead of handed out |
//! | `connect_timeout` | `ConnectTimeout` | bounds opening a connection |
//! | `wait_timeout` | `maxWait` | bounds a call's wait for a busy endpoint |
//! | `test_on_checkout` | `testOnBorrow` | skips a connection whose peer closed it, with no round trip |
//! | `lifo` | `lifo` | the most recently returned idle connection first (else the oldest) |
//!
//! A connection that saw a timeout, a transport or protocol error, or whose call was
//! dropped midway, is discarded, never returned. An endpoint that refuses a connection is
//! ejected and retried after a backoff that doubles up to a limit; a call whose connection
//! could not be opened moves to another endpoint (nothing was sent), and when none is left
//! it fails at once with [`CallError::Unavailable`]. Calls choose endpoints by power of two
//! choices on calls in flight, or round robin ([`Balance`](pool::Balance)); [`Pool::set_endpoints`]
//! replaces the list at runtime. [`Pool::metrics`] counts,
//! per endpoint, connections active and idle, calls waiting and in flight, connections
//! created and destroyed, and timeouts.
//!
//! Endpoints can also come from service discovery: [`Pool::discover`] follows a stream of
//! tower's [`Change`](pool::Change) (a DNS SRV, Consul, etcd or Kubernetes watcher), and [`Pool::resolve`]
//! looks host names up again on an interval ([`Resolve`](pool::Resolve) plugs in another resolver, such as
//! hickory). A removed endpoint drains: no new calls, its calls in flight finish.
//!
//! ```no_run
//! use std::time::Duration;
//! use thrift_net::{Pool, PoolConfig};
//! use thrift_net::pool::Change;
//!
//! # async fn run() -> std::io::Result<()> {
//! // By host name, looked up every 30 s; returns once the first answer is in.
//! let (pool, _dns) = Pool::resolve(["thrift.internal:9090"], Duration::from_secs(30), PoolConfig::default()).await?;
//!
//! // From any change stream: here a channel a watcher task feeds.
//! let (tx, rx) = tokio::sync::mpsc::channel::<Result<Change<String, _>, std::io::Error>>(16);
//! # struct Rx<T>(tokio::sync::mpsc::Receiver<T>);
//! # impl<T> futures_core::Stream for Rx<T> {
//! #     type Item = T;
//! #     fn poll_next(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<T>> { self.0.poll_recv(cx) }
//! # }
//! let (pool, discovery) = Pool::discover(Rx(rx), PoolConfig::default());
//! tx.send(Ok(Change::Insert("node-1".to_string(), "10.0.0.1:9090".parse().unwrap()))).await.unwrap();
//! discovery.ready().await; // the first change is applied
//! tx.send(Ok(Change::Remove("node-1".to_string()))).await.unwrap(); // drains node-1
//! # drop(pool); Ok(()) }
//! ```
//!
//! Two modes ([`Mode`](pool::Mode)) behind the same API. **Exclusive** (the default): one call per
//! connection at a time, checked out of the endpoint's idle queue. **Shared**: a few pipelined
//! connections per endpoint, each call on the least busy. Measured with
//! `cargo bench -p thrift-benches --bench pool` (client and server on one 2-core machine
//! shared with other work; best of five rounds alternating the modes), shared mode with 2
//! connections does 1.15 to 1.6 times the calls per second of exclusive mode against this
//! crate's server, which handles a connection's requests concurrently: 44, 47 and 52 K
//! calls/s at 16, 64 and 256 callers, against 36 to 38 K, 36 to 38 K and 33 to 35 K for
//! exclusive mode with one connection per caller or 8 in all. But most Thrift servers
//! (Apache's `TSimpleServer`, `TThreadPoolServer`, `TNonblockingServer`...) handle one
//! request per connection at a time: pipelined calls are still answered correctly, in
//! order, but one after another, so a slow call holds up every call behind it. Against such
//! a server, with 1 ms of work per call and 64 callers, exclusive mode with a connection
//! per caller does 21.6 K calls/s and shared mode 0.92 K. Exclusive is the default: where
//! shared mode wins it does at most 1.6 times the calls, where it loses it does a twentieth.
//! Choose shared for servers known to handle pipelined requests concurrently (this crate's,
//! Kitex).

#![forbid(unsafe_code)]

#[cfg(any(feature = "server", feature = "http"))]
mod accept;
mod buffered;
mod call;
mod call_error;
mod channel;
#[cfg(feature = "client")]
pub mod client;
mod detect;
mod error;
mod framed;
mod framing;
mod header;
#[cfg(feature = "http")]
pub mod http;
#[cfg(any(feature = "server", feature = "client"))]
mod json_codec;
#[cfg(any(feature = "server", feature = "client"))]
mod keepalive;
mod local;
mod message;
#[cfg(feature = "metrics")]
pub mod metrics_names;
#[cfg(any(feature = "server", feature = "http"))]
mod panics;
#[cfg(feature = "pool")]
pub mod pool;
mod protocol;
mod room;
pub mod server;
#[cfg(feature = "client")]
mod setters;
#[cfg(any(feature = "server", feature = "client"))]
mod signal;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(all(test, any(feature = "server", feature = "client")))]
mod wake_count;
mod wire;
#[cfg(feature = "zlib")]
mod zlib;

pub use channel::{Call, CallError, CallSite, Channel, EndpointDown, Reply, ReplyFuture, Unavailable};
#[cfg(feature = "client")]
pub use client::{Client, ClientConfig};
pub use error::{Phase, TransportError, TransportErrorKind};
pub use header::Headers;
pub use local::LocalChannel;
#[cfg(feature = "pool")]
pub use pool::{Pool, PoolConfig};
#[cfg(feature = "server")]
pub use server::{Multiplexed, Server, ServerBuilder, ServerHandle};
pub use server::{NamedService, Request, Response, ThriftService};
pub use wire::{ProtocolKind, Transport};

/// The wire format this crate carries; generated service code refers to it through here.
pub use thrift_core;
/// Turns a trait of `async fn`s into a Thrift service.
///
/// The trait stays as written (each `async fn` returns a `Send` future), and is implemented
/// for `Arc<T>` and `&'static T` of every handler `T`. Beside it, a module named after it in
/// snake case (`HelloService` → `hello_service`) holds what the macro generates:
///
/// - `Server<H>`: a `tower::Service` of [`Request`]s and a [`NamedService`], dispatching
///   each call to the handler `H` (shared by the clones tower makes); `Server::new(h)`,
///   `Server::from_arc(arc)`. Serve it with a [`Server`], wrap it in tower layers, route it
///   with [`Multiplexed`].
/// - `Client<C>`: a typed client over any [`Channel`]: a [`Client`] connection, a
///   [`Pool`], a [`LocalChannel`], an HTTP client.
/// - one `…Args` struct per method (`SayHelloArgs`), the `Definition` of the service for
///   [`thrift_core::Idl`], and `IDEMPOTENT_METHODS`, the IDL names of the methods marked
///   idempotent.
///
/// Declare the trait at module level (not inside a function body): the generated module
/// names the trait's argument and result types through `use super::*`.
///
/// | attribute | on | what it does |
/// | --- | --- | --- |
/// | `name = "HelloService"` | `#[service(..)]` | the IDL name (the multiplexed `Service:` prefix); default: the trait's name |
/// | `module = "hello"` | `#[service(..)]` | the generated module's name; default: the trait's name in snake case |
/// | `crate = "::my::net"` | `#[service(..)]` | the path to `thrift_net`, when it is re-exported |
/// | `name = "sayHello"` | a method | the method's IDL name; default: the Rust name |
/// | `oneway` | a method | a oneway method: no reply, the caller waits only for the write; returns `()` |
/// | `idempotent` | a method | running it twice does no harm: listed in `IDEMPOTENT_METHODS`, so a retry policy may send it again after a failure |
/// | `id = 1` | an argument | the argument's field id (required) |
/// | `name = "req"` | an argument | the argument's IDL name; default: the Rust name |
/// | `context` | an argument | `&Request`: the request itself (peer, headers, deadline, ...), passed by the server; not a Thrift argument, so the client has no such parameter |
///
/// A method returns its value (`-> T`, `-> ()` for `void`), or `Result<T, E>` where `E` is
/// a struct marked `#[thrift(exception)]` or a `ThriftUnion` of several: the declared
/// exceptions, which the client gets back as [`CallError::Exception`].
///
/// ```
/// use std::sync::Arc;
/// use thrift_core::ThriftStruct;
/// use thrift_net::{service, CallError, LocalChannel, ProtocolKind, Request};
///
/// #[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
/// #[thrift(exception)]
/// struct NotFound {
///     #[thrift(id = 1)]
///     key: String,
/// }
///
/// #[service(name = "KeyValue", module = "kv")]
/// trait KeyValue {
///     #[thrift(name = "get", idempotent)]
///     async fn get(&self, #[thrift(id = 1, name = "key")] key: String) -> Result<String, NotFound>;
///
///     /// Who is asking: the caller's peer, from the request's context.
///     async fn whoami(&self, #[thrift(context)] request: &Request) -> String;
///
///     #[thrift(oneway)]
///     async fn forget(&self, #[thrift(id = 1)] key: String);
/// }
///
/// struct Store;
/// impl KeyValue for Store {
///     async fn get(&self, key: String) -> Result<String, NotFound> {
///         if key == "a" { Ok("1".into()) } else { Err(NotFound { key }) }
///     }
///     async fn whoami(&self, request: &Request) -> String {
///         request.peer().to_string()
///     }
///     async fn forget(&self, _key: String) {}
/// }
///
/// # fn main() {
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // A shared handler serves as it is.
/// let server = kv::Server::new(Arc::new(Store));
/// let client = kv::Client::new(LocalChannel::new(server, ProtocolKind::Binary));
/// assert_eq!(client.get("a".into()).await.unwrap(), "1");
/// assert!(matches!(client.get("b".into()).await, Err(CallError::Exception(NotFound { .. }))));
/// assert_eq!(client.whoami().await.unwrap(), "(local)");
/// client.forget("a".into()).await.unwrap();
/// assert_eq!(kv::IDEMPOTENT_METHODS, ["get"]);
/// # });
/// # }
/// ```
///
/// A crate that re-exports `thrift_net` (a company platform crate, say) names the path its
/// users' generated code takes:
///
/// ```
/// mod platform {
///     pub mod rpc {
///         pub use thrift_net::*;
///     }
/// }
///
/// #[platform::rpc::service(crate = "crate::platform::rpc")]
/// trait Ping {
///     async fn ping(&self) -> i32;
/// }
///
/// struct Pong;
/// impl Ping for Pong {
///     async fn ping(&self) -> i32 {
///         7
///     }
/// }
///
/// # fn main() {
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use platform::rpc::{LocalChannel, ProtocolKind};
/// let client = ping::Client::new(LocalChannel::new(ping::Server::new(Pong), ProtocolKind::Compact));
/// assert_eq!(client.ping().await.unwrap(), 7);
/// # });
/// # }
/// ```
pub use thrift_derive::service;

/// The codecs and wire formats, by what they are: transports, protocols, detection, frames.
pub mod codec {
    pub use crate::buffered::BufferedCodec;
    pub use crate::detect::{detect, Detection, DETECT_MAX_NAME_LEN};
    pub use crate::framed::FramedCodec;
    pub use crate::header::{ttheader_keys, Headers};
    pub use crate::message::{decode_message, Message};
    pub use crate::wire::{ProtocolKind, Transport, Wire};
    #[cfg(feature = "zlib")]
    pub use crate::zlib::ZlibStream;
    pub use thrift_core::{Scan, Scanner};
}

/// What only generated code names.
#[doc(hidden)]
pub mod __private {
    pub use crate::channel::{call, send};
    pub use tower_service::Service;

    /// The future of a generated server.
    pub type Answer = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<crate::server::Response, std::convert::Infallible>> + Send>,
    >;
}
