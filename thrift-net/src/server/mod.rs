//! The async server: accepts connections, tells each one's wire format from its first
//! bytes, and answers requests concurrently, each reply carrying its request's seqid.

mod codec;
mod config;
mod connection;
#[cfg(feature = "metrics")]
mod export;
mod listener;
mod metrics;
mod multiplex;
mod open;
mod receiving;
mod reject;
mod shutdown;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, ToSocketAddrs};

use listener::Listener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, warn, Instrument};

pub use config::ServerBuilder;
pub use metrics::Metrics;
pub use multiplex::{Multiplexed, MultiplexedBuilder};
pub use shutdown::Shutdown;

use crate::incoming::Service;
use config::ServerConfig;
use metrics::Counters;
use receiving::ReceivingBudget;
use shutdown::Signals;

/// A Thrift server for any [`Service`]: a `…Server` type the `#[service]` macro generates, or
/// a [`Multiplexed`] router of several.
///
/// Each connection speaks whatever it opens with: framed or buffered, binary or compact,
/// told from its first bytes by [`detect`](crate::detect); replies go back in kind. Binary
/// calls must use the strict envelope (the `0x8001` version word, which Apache's clients
/// write by default): the server's default [`Limits`](thrift_core::Limits) have
/// [`strict_binary_envelope`](thrift_core::Limits::strict_binary_envelope) on, so an old-style
/// envelope closes the connection, unless [`ServerBuilder::limits`] turns it off. Requests on one connection are read as they arrive and handled concurrently (up to
/// [`ServerBuilder::max_in_flight_per_connection`]), so a pipelining client gets every
/// answer, in whatever order they finish, while a plain Apache client sending one call at a
/// time sees ordinary request-reply behaviour.
///
/// - An unknown method is answered with `TApplicationException` `UNKNOWN_METHOD`,
///   undecodable arguments with `PROTOCOL_ERROR`, a panicking handler with `INTERNAL_ERROR`
///   (and the server keeps serving); oneway messages get no reply, whatever happens.
/// - Limits: connections at once, requests at once per connection, frame and message sizes
///   ([`Limits`](thrift_core::Limits)), and a read-idle timeout for peers that send nothing
///   or trickle.
/// - [`ServerHandle::shutdown`] stops accepting, finishes the requests in flight up to a
///   deadline, and closes.
/// - Each request runs in a `tracing` span `thrift_request` with its `method`, `seqid` and
///   `peer`; [`ServerHandle::metrics`] reads the counters.
///
/// ```
/// use std::time::Duration;
/// use thrift_net::{service, Server};
///
/// #[service(name = "Calculator")]
/// trait Calculator {
///     async fn add(&self, #[thrift(id = 1)] a: i32, #[thrift(id = 2)] b: i32) -> i32;
/// }
/// struct Calc;
/// impl Calculator for Calc {
///     async fn add(&self, a: i32, b: i32) -> i32 { a + b }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::builder().read_idle_timeout(Duration::from_secs(30)).build();
/// let handle = server.bind("127.0.0.1:0", CalculatorServer::new(Calc)).await?;
/// println!("serving on {}", handle.local_addr());
/// // ... later:
/// assert!(handle.shutdown(Duration::from_secs(5)).await.is_graceful());
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug, Default)]
pub struct Server {
    config: ServerConfig,
}

impl Server {
    /// A server with the default settings (see [`ServerBuilder`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets up a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// Binds a listener to `addr` and serves `service` on it (see [`Server::serve`]).
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn bind<S: Service>(&self, addr: impl ToSocketAddrs, service: S) -> io::Result<ServerHandle> {
        self.serve(TcpListener::bind(addr).await?, service)
    }

    /// Serves `service` on `listener` from tasks on the current tokio runtime, and returns at
    /// once. Dropping the handle leaves the server running (until its runtime stops); call
    /// [`ServerHandle::shutdown`] to stop it.
    ///
    /// # Errors
    /// When the listener's local address cannot be read.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub fn serve<S: Service>(&self, listener: TcpListener, service: S) -> io::Result<ServerHandle> {
        self.serve_on(listener, service)
    }

    /// Binds a Unix domain socket at `path` and serves `service` on it (see
    /// [`Server::serve_unix`]). The socket file is not removed when the server stops.
    ///
    /// # Errors
    /// When the socket cannot be bound (the path exists, say).
    ///
    /// ```
    /// # #[thrift_net::service] trait Noop { async fn noop(&self); }
    /// # struct N; impl Noop for N { async fn noop(&self) {} }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let path = std::env::temp_dir().join(format!("thrift-doc-{}.sock", std::process::id()));
    /// let handle = thrift_net::Server::new().bind_unix(&path, NoopServer::new(N)).await?;
    /// assert_eq!(handle.local_addr().as_pathname(), Some(path.as_path()));
    /// let client = NoopClient::new(thrift_net::Client::connect_unix(&path, Default::default()).await?);
    /// client.noop().await.unwrap();
    /// # handle.shutdown(std::time::Duration::from_secs(1)).await;
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    #[cfg(unix)]
    pub async fn bind_unix<S: Service>(
        &self,
        path: impl AsRef<std::path::Path>,
        service: S,
    ) -> io::Result<ServerHandle<tokio::net::unix::SocketAddr>> {
        self.serve_unix(tokio::net::UnixListener::bind(path)?, service)
    }

    /// Serves `service` on a Unix domain socket listener, as [`Server::serve`] does on TCP:
    /// the same detection, limits and shutdown (keepalive and `TCP_NODELAY` do not apply).
    ///
    /// # Errors
    /// When the listener's local address cannot be read.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    #[cfg(unix)]
    pub fn serve_unix<S: Service>(
        &self,
        listener: tokio::net::UnixListener,
        service: S,
    ) -> io::Result<ServerHandle<tokio::net::unix::SocketAddr>> {
        self.serve_on(listener, service)
    }

    /// Binds a TCP listener to `addr` and serves `service` on it over TLS (see
    /// [`Server::serve_tls`]).
    ///
    /// # Errors
    /// When the address cannot be bound.
    ///
    /// ```no_run
    /// # #[thrift_net::service] trait Noop { async fn noop(&self); }
    /// # struct N; impl Noop for N { async fn noop(&self) {} }
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let tls = thrift_net::tls::server_config("server.crt", "server.key", None)?;
    /// let handle = thrift_net::Server::new().bind_tls("0.0.0.0:9443", tls, NoopServer::new(N)).await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "tls")]
    pub async fn bind_tls<S: Service>(
        &self,
        addr: impl ToSocketAddrs,
        tls: impl Into<crate::tls::TlsAcceptor>,
        service: S,
    ) -> io::Result<ServerHandle> {
        self.serve_tls(TcpListener::bind(addr).await?, tls, service)
    }

    /// Serves `service` over TLS on `listener`, as [`Server::serve`] does in the clear: each
    /// connection's TLS handshake runs in its own task, within
    /// [`ServerBuilder::tls_handshake_timeout`] (a peer that never finishes it is dropped
    /// then, having held only its place under the connection limit), and what it carries is
    /// detected and served as usual. `tls` is a [`TlsAcceptor`](crate::tls::TlsAcceptor) or an
    /// `Arc<rustls::ServerConfig>` (see [`tls::server_config`](crate::tls::server_config); a
    /// configuration with a client verifier requires client certificates).
    ///
    /// # Errors
    /// When the listener's local address cannot be read.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    #[cfg(feature = "tls")]
    pub fn serve_tls<S: Service>(
        &self,
        listener: TcpListener,
        tls: impl Into<crate::tls::TlsAcceptor>,
        service: S,
    ) -> io::Result<ServerHandle> {
        self.serve_on(listener::TlsListener { tcp: listener, acceptor: tls.into() }, service)
    }

    fn serve_on<S: Service, L: Listener>(&self, listener: L, service: S) -> io::Result<ServerHandle<L::Addr>> {
        let local_addr = listener.local_addr()?;
        let signals = Signals::new();
        let counters = Arc::new(Counters::new(&self.config));
        let shared = Arc::new(Shared {
            service,
            config: self.config.clone(),
            counters: counters.clone(),
            receiving: ReceivingBudget::new(self.config.max_receiving_bytes, counters.clone()),
            stop: signals.stop.clone(),
            force: signals.force.clone(),
            tracker: signals.tracker.clone(),
        });
        let span = tracing::debug_span!("thrift_server", addr = ?local_addr);
        signals.tracker.spawn(accept(listener, shared).instrument(span));
        Ok(ServerHandle { local_addr, counters, signals })
    }
}

/// What every task of one server shares.
pub(crate) struct Shared<S> {
    pub service: S,
    pub config: ServerConfig,
    pub counters: Arc<Counters>,
    /// The bytes all connections may hold in partly received messages.
    pub receiving: Arc<ReceivingBudget>,
    /// Stop accepting connections and reading requests.
    pub stop: CancellationToken,
    /// Abandon requests in flight (the shutdown deadline passed).
    pub force: CancellationToken,
    pub tracker: TaskTracker,
}

/// Accepts connections until the server stops; past the connection limit, turns them away.
async fn accept<S: Service, L: Listener>(listener: L, shared: Arc<Shared<S>>) {
    let places = Arc::new(Semaphore::new(shared.config.max_connections));
    let rejecting = Arc::new(Semaphore::new(reject::MAX_REJECTING));
    loop {
        let accepted = tokio::select! {
            biased;
            _ = shared.stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((accepted, peer)) => match places.clone().try_acquire_owned() {
                Ok(place) => {
                    Counters::add(&shared.counters.connections_accepted, 1);
                    let peer: Arc<str> = L::peer_name(&peer).into();
                    let span = tracing::debug_span!("thrift_connection", peer = &*peer);
                    let opening = listener.open(accepted);
                    shared.tracker.spawn(open::serve(opening, peer, shared.clone(), place).instrument(span));
                }
                Err(_) => {
                    Counters::add(&shared.counters.connections_rejected, 1);
                    debug!(?peer, limit = shared.config.max_connections, "at the connection limit; turning away");
                    // Answered AT_CAPACITY if few are being turned away; else just closed.
                    if let Ok(slot) = rejecting.clone().try_acquire_owned() {
                        shared.tracker.spawn(open::reject(listener.open(accepted), shared.clone(), slot));
                    }
                }
            },
            // The peer gave up between connecting and our accept: nothing to do.
            Err(e) if crate::accept::is_peers(&e) => {
                debug!(%e, "accept");
            }
            Err(e) => {
                warn!(%e, "accept failed; backing off");
                tokio::select! {
                    _ = shared.stop.cancelled() => break,
                    () = tokio::time::sleep(crate::accept::ACCEPT_BACKOFF) => {}
                }
            }
        }
    }
    debug!("stopped accepting");
}

/// A running server: its address (a [`SocketAddr`] for TCP, a
/// [`tokio::net::unix::SocketAddr`] for a Unix domain socket), its counters, and the way to
/// stop it.
#[derive(Debug)]
pub struct ServerHandle<A = SocketAddr> {
    local_addr: A,
    counters: Arc<Counters>,
    signals: Signals,
}

impl<A: Clone> ServerHandle<A> {
    /// The address the server listens on (with the port the system chose for port 0).
    pub fn local_addr(&self) -> A {
        self.local_addr.clone()
    }

    /// A snapshot of the server's counters.
    pub fn metrics(&self) -> Metrics {
        self.counters.snapshot()
    }

    /// Stops the server gracefully: at once, stops accepting connections and reading
    /// requests; then waits for the requests in flight to be answered and each connection
    /// to close, up to `grace`; past it, abandons what still runs and closes every
    /// connection. The future ends when the server is down; each connection's peer sees it
    /// close (a client fails the calls it still waits for at once).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[thrift_net::service] trait Noop { async fn noop(&self); }
    /// # struct N; impl Noop for N { async fn noop(&self) {} }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let handle = thrift_net::Server::new().bind("127.0.0.1:0", NoopServer::new(N)).await.unwrap();
    /// let addr = handle.local_addr();
    /// assert_eq!(handle.shutdown(Duration::from_secs(1)).await, thrift_net::Shutdown::Graceful);
    /// assert!(tokio::net::TcpStream::connect(addr).await.is_err(), "no longer listening");
    /// # });
    /// ```
    pub fn shutdown(&self, grace: Duration) -> impl std::future::Future<Output = Shutdown> + Send + 'static {
        self.signals.shutdown(grace)
    }
}
