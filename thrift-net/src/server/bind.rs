//! Serving a service on a listener: the server, its accept loop, and the handle that stops it.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, ToSocketAddrs};

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, warn, Instrument};

use tower_layer::{Identity, Layer};

use super::config::{ServerBuilder, ServerConfig};
use super::listener::Listener;
use super::metrics::{Counters, Metrics};
use super::named::ThriftService;
use super::receiving::ReceivingBudget;
use super::shutdown::{Shutdown, Signals};
use super::{open, reject};

/// A Thrift server for any [`ThriftService`]: a `…::Server` the `#[service]` macro generates
/// (wrapped in tower layers or not, see [`ServerBuilder::layer`]), a `tower::service_fn`, or
/// a [`Multiplexed`](crate::Multiplexed) router of several.
///
/// Each connection speaks whatever it opens with: framed or buffered, binary, compact or JSON,
/// told from its first bytes by [`detect`](crate::codec::detect()); replies go back in kind. Binary
/// calls must use the strict envelope (the `0x8001` version word, which Apache's clients
/// write by default): the server's default [`Limits`](thrift_core::Limits) have
/// [`strict_binary_envelope`](thrift_core::Limits::strict_binary_envelope) on, so an old-style
/// envelope closes the connection, unless [`ServerBuilder::limits`] turns it off. Requests on one connection are read as they arrive and handled concurrently (up to
/// [`ServerBuilder::max_in_flight_per_connection`]), so a pipelining client gets every
/// answer, in whatever order they finish, while a plain Apache client sending one call at a
/// time sees ordinary request-reply behaviour. A handler's first poll runs on its
/// connection's task (one that answers at once costs no task of its own), so the next
/// request on that connection is read once it returns or waits: blocking work belongs in
/// `tokio::task::spawn_blocking`, as anywhere in async code.
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
/// # fn main() {
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::builder().read_idle_timeout(Duration::from_secs(30)).build();
/// let handle = server.bind("127.0.0.1:0", calculator::Server::new(Calc)).await?;
/// println!("serving on {}", handle.local_addr());
/// // ... later:
/// assert!(handle.shutdown(Duration::from_secs(5)).await.is_graceful());
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Server<L = Identity> {
    pub(super) config: ServerConfig,
    /// Wraps each service served ([`ServerBuilder::layer`]).
    pub(super) layer: L,
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
}

impl<L> Server<L> {
    /// Binds a listener to `addr` and serves `service` on it (see [`Server::serve`]).
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn bind<S>(&self, addr: impl ToSocketAddrs, service: S) -> io::Result<ServerHandle>
    where
        L: Layer<S>,
        L::Service: ThriftService,
    {
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
    pub fn serve<S>(&self, listener: TcpListener, service: S) -> io::Result<ServerHandle>
    where
        L: Layer<S>,
        L::Service: ThriftService,
    {
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
    /// # fn main() {
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let path = std::env::temp_dir().join(format!("thrift-doc-{}.sock", std::process::id()));
    /// let handle = thrift_net::Server::new().bind_unix(&path, noop::Server::new(N)).await?;
    /// assert_eq!(handle.local_addr().as_pathname(), Some(path.as_path()));
    /// let client = noop::Client::new(thrift_net::Client::connect_unix(&path, Default::default()).await?);
    /// client.noop().await.unwrap();
    /// # handle.shutdown(std::time::Duration::from_secs(1)).await;
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// # }
    /// ```
    #[cfg(unix)]
    pub async fn bind_unix<S>(
        &self,
        path: impl AsRef<std::path::Path>,
        service: S,
    ) -> io::Result<ServerHandle<tokio::net::unix::SocketAddr>>
    where
        L: Layer<S>,
        L::Service: ThriftService,
    {
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
    pub fn serve_unix<S>(
        &self,
        listener: tokio::net::UnixListener,
        service: S,
    ) -> io::Result<ServerHandle<tokio::net::unix::SocketAddr>>
    where
        L: Layer<S>,
        L::Service: ThriftService,
    {
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
    /// # fn main() {
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let tls = thrift_net::tls::server_config("server.crt", "server.key", None)?;
    /// let handle = thrift_net::Server::new().bind_tls("0.0.0.0:9443", tls, noop::Server::new(N)).await?;
    /// # Ok(()) }
    /// # }
    /// ```
    #[cfg(feature = "tls")]
    pub async fn bind_tls<S>(
        &self,
        addr: impl ToSocketAddrs,
        tls: impl Into<crate::tls::TlsAcceptor>,
        service: S,
    ) -> io::Result<ServerHandle>
    where
        L: Layer<S>,
        L::Service: ThriftService,
    {
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
    pub fn serve_tls<S>(
        &self,
        listener: TcpListener,
        tls: impl Into<crate::tls::TlsAcceptor>,
        service: S,
    ) -> io::Result<ServerHandle>
    where
        L: Layer<S>,
        L::Service: ThriftService,
    {
        self.serve_on(super::listener::TlsListener { tcp: listener, acceptor: tls.into() }, service)
    }

    fn serve_on<S, T: Listener>(&self, listener: T, service: S) -> io::Result<ServerHandle<T::Addr>>
    where
        L: Layer<S>,
        L::Service: ThriftService,
    {
        let service = self.layer.layer(service);
        let local_addr = listener.local_addr()?;
        let signals = Signals::new();
        let counters = Arc::new(Counters::new(&self.config));
        let shared = Arc::new(Shared {
            config: self.config.clone(),
            counters: counters.clone(),
            receiving: ReceivingBudget::new(self.config.max_receiving_bytes, counters.clone()),
            stop: signals.stop.clone(),
            force: signals.force.clone(),
            tracker: signals.tracker.clone(),
        });
        let span = tracing::debug_span!("thrift_server", addr = ?local_addr);
        signals.tracker.spawn(accept(listener, shared, service).instrument(span));
        Ok(ServerHandle { local_addr, counters, signals })
    }
}

/// What every task of one server shares.
pub(crate) struct Shared {
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
async fn accept<S: ThriftService, T: Listener>(listener: T, shared: Arc<Shared>, service: S) {
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
                    let peer = T::peer(&peer);
                    let span = tracing::debug_span!("thrift_connection", %peer);
                    let opening = listener.open(accepted);
                    let serving = open::serve(opening, peer, shared.clone(), service.clone(), place);
                    shared.tracker.spawn(serving.instrument(span));
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
    /// # fn main() {
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let handle = thrift_net::Server::new().bind("127.0.0.1:0", noop::Server::new(N)).await.unwrap();
    /// let addr = handle.local_addr();
    /// assert_eq!(handle.shutdown(Duration::from_secs(1)).await, thrift_net::server::Shutdown::Graceful);
    /// assert!(tokio::net::TcpStream::connect(addr).await.is_err(), "no longer listening");
    /// # });
    /// # }
    /// ```
    pub fn shutdown(&self, grace: Duration) -> impl std::future::Future<Output = Shutdown> + Send + 'static {
        self.signals.shutdown(grace)
    }
}
