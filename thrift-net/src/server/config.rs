//! The server's settings and their builder.

use std::time::Duration;

use thrift_core::Limits;
use tower_layer::{Identity, Stack};

use super::Server;

/// What a [`Server`] allows; built with [`Server::builder`].
#[derive(Clone, Debug)]
pub(crate) struct ServerConfig {
    pub max_connections: usize,
    pub max_in_flight: usize,
    pub read_idle_timeout: Option<Duration>,
    pub write_timeout: Option<Duration>,
    pub max_pending_bytes: usize,
    pub max_receiving_bytes: usize,
    pub handler_timeout: Option<Duration>,
    pub half_close: bool,
    pub tcp_keepalive: Option<Duration>,
    /// How long a connection's handshake (TLS) may take.
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    pub handshake_timeout: Duration,
    /// Connections speak Apache's zlib transport.
    #[cfg(feature = "zlib")]
    pub zlib: bool,
    pub limits: Limits,
    /// Labels on every metric this server emits through the `metrics` facade.
    #[cfg(feature = "metrics")]
    pub metrics_labels: Vec<(String, String)>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: ServerBuilder::DEFAULT_MAX_CONNECTIONS,
            max_in_flight: ServerBuilder::DEFAULT_MAX_IN_FLIGHT,
            read_idle_timeout: Some(ServerBuilder::DEFAULT_READ_IDLE_TIMEOUT),
            write_timeout: Some(ServerBuilder::DEFAULT_WRITE_TIMEOUT),
            max_pending_bytes: ServerBuilder::DEFAULT_MAX_PENDING_BYTES,
            max_receiving_bytes: ServerBuilder::DEFAULT_MAX_RECEIVING_BYTES,
            handler_timeout: None,
            half_close: false,
            tcp_keepalive: Some(ServerBuilder::DEFAULT_TCP_KEEPALIVE),
            handshake_timeout: ServerBuilder::DEFAULT_TLS_HANDSHAKE_TIMEOUT,
            #[cfg(feature = "zlib")]
            zlib: false,
            limits: ServerBuilder::default_limits(),
            #[cfg(feature = "metrics")]
            metrics_labels: Vec::new(),
        }
    }
}

/// Sets up a [`Server`]: connection and request limits, the read-idle timeout, and the
/// decoding [`Limits`] (by default [`ServerBuilder::default_limits`]: Apache's, with strict
/// binary envelopes).
///
/// Every limit and timeout, its default, and what a client sees when it is hit:
///
/// | setting | default | when hit |
/// | --- | --- | --- |
/// | [`max_connections`](Self::max_connections) | 10,000 | the connection's first request is answered [`AT_CAPACITY`](crate::server::AT_CAPACITY) (`CallError::Application`, `is_retry_safe()`; a pool counts it as a refused connection and tries another endpoint) and the connection closed; counted in `connections_rejected` |
/// | [`max_in_flight_per_connection`](Self::max_in_flight_per_connection) | 1024 | the connection is not read until a request finishes: later calls wait (then may hit the client's `call_timeout`) |
/// | [`max_pending_bytes_per_connection`](Self::max_pending_bytes_per_connection) | 8 MiB | the connection is not read, and finished replies wait to be queued, until the peer reads: calls wait; `bytes_pending` shows it |
/// | [`write_timeout`](Self::write_timeout) | 30 s | a peer not reading its replies is disconnected, its unwritten replies dropped: its calls fail `Transport`; counted in `write_timeouts` |
/// | [`read_idle_timeout`](Self::read_idle_timeout) | 60 s | a peer silent (or trickling) while owed nothing is disconnected: its next call fails `NotSent` (or `Transport` if it raced the close) |
/// | [`max_receiving_bytes`](Self::max_receiving_bytes) | 256 MiB | the connection whose partly received message would take the server over it is closed: its calls fail `Transport`; counted in `receive_budget_exceeded` |
/// | [`handler_timeout`](Self::handler_timeout) | off | the handler is cancelled (its future dropped) and the call answered `TIMEOUT` (fbthrift's code 12) naming the method and the timeout (`CallError::Application`); counted in `handler_timeouts` |
/// | peer closes its connection ([`half_close`](Self::half_close) off) | — | its handlers still running are cancelled (oneway ones excepted) and their replies dropped; counted in `handlers_cancelled` |
/// | `tls_handshake_timeout` (feature `tls`) | 10 s | a TLS peer that has not finished its handshake is disconnected, having held only its place under `max_connections`; a failed handshake closes at once, after rustls's alert |
/// | [`tcp_keepalive`](Self::tcp_keepalive) | 60 s | a peer gone without a close (host down, cable cut) is found by the kernel's probes and its connection closed, its handlers cancelled |
/// | `Limits::max_frame_len` / `max_message_len` | 16,384,000 B / 100 MiB | the connection closes (the request's seqid is unknown): the client's calls fail `Transport` |
/// | other [`Limits`] (depth, strings, containers) | Apache's | that call is answered `PROTOCOL_ERROR` (`CallError::Application`); the connection stays |
/// | shutdown `grace` ([`ServerHandle::shutdown`](super::ServerHandle::shutdown)) | given per call | before it: requests read after shutdown began are answered [`SHUTTING_DOWN`](crate::server::SHUTTING_DOWN) (`is_retry_safe()`), every running handler's reply is delivered, then a clean close; past it: handlers are abandoned and connections closed (`Transport`) |
///
/// So a misbehaving peer costs the server at most `max_pending_bytes_per_connection` in
/// requests and replies, its share of `max_receiving_bytes` in a message arriving, and its
/// place under `max_connections`, for at most `read_idle_timeout` (silent or trickling),
/// `write_timeout` (not reading), `handler_timeout` (a request that runs too long) or
/// `tls_handshake_timeout` (a TLS handshake never finished).
///
/// ```
/// use std::time::Duration;
/// use thrift_core::Limits;
/// use thrift_net::{Server, ServerBuilder};
///
/// let server = Server::builder()
///     .max_connections(100)
///     .max_in_flight_per_connection(64)
///     .read_idle_timeout(Duration::from_secs(5))
///     .limits(Limits { max_frame_len: 1 << 20, ..ServerBuilder::default_limits() })
///     .build();
/// # let _ = server;
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct ServerBuilder<L = Identity> {
    config: ServerConfig,
    layer: L,
}

impl ServerBuilder {
    /// Connections served at once unless set otherwise.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
    /// Requests handled at once on one connection unless set otherwise.
    pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;
    /// The read-idle timeout unless set otherwise.
    pub const DEFAULT_READ_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// The write timeout unless set otherwise.
    pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);
    /// The bytes one connection may hold in requests and replies unless set otherwise.
    pub const DEFAULT_MAX_PENDING_BYTES: usize = 8 * 1024 * 1024;
    /// The bytes all connections together may hold in partly received messages unless set
    /// otherwise.
    pub const DEFAULT_MAX_RECEIVING_BYTES: usize = 256 * 1024 * 1024;
    /// How long a connection is idle before the kernel's keepalive probes start, unless set
    /// otherwise.
    pub const DEFAULT_TCP_KEEPALIVE: Duration = Duration::from_secs(60);
    /// How long a TLS handshake may take unless set otherwise.
    pub const DEFAULT_TLS_HANDSHAKE_TIMEOUT: Duration = super::listener::TLS_HANDSHAKE_TIMEOUT;

    /// The server's default [`Limits`]: [`Limits::default`] with
    /// [`Limits::strict_binary_envelope`] on.
    ///
    /// A server refuses old-style (non-strict) binary envelopes by default, which Apache's
    /// servers read (their `strict_read` is off): a peer that talks to a server is not
    /// trusted, and an envelope that begins with a name length instead of a version word is
    /// more often a stray or hostile stream than a Thrift client. Apache's clients write the
    /// strict envelope unless configured not to (`strict_write`, on by default).
    ///
    /// ```
    /// use thrift_core::Limits;
    /// use thrift_net::ServerBuilder;
    /// assert_eq!(ServerBuilder::default_limits(), Limits { strict_binary_envelope: true, ..Limits::default() });
    /// ```
    pub fn default_limits() -> Limits {
        Limits { strict_binary_envelope: true, ..Limits::default() }
    }
}

impl<L> ServerBuilder<L> {
    /// Wraps every service this server serves in `layer`, as tower's `ServiceBuilder::layer`
    /// does: the layer added first is outermost, seeing each request first. Tower's own
    /// layers work as they are; their errors reach the caller as `TApplicationException`s
    /// (see [`ThriftService`](super::ThriftService)).
    ///
    /// ```
    /// use std::time::Duration;
    /// use thrift_net::Server;
    /// use tower::limit::ConcurrencyLimitLayer;
    /// use tower::load_shed::LoadShedLayer;
    /// use tower::timeout::TimeoutLayer;
    ///
    /// // Past 100 requests at once the server answers LOADSHEDDING; a request running past
    /// // two seconds is answered TIMEOUT.
    /// let server = Server::builder()
    ///     .layer(LoadShedLayer::new())
    ///     .layer(ConcurrencyLimitLayer::new(100))
    ///     .layer(TimeoutLayer::new(Duration::from_secs(2)))
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn layer<N>(self, layer: N) -> ServerBuilder<Stack<N, L>> {
        ServerBuilder { config: self.config, layer: Stack::new(layer, self.layer) }
    }

    /// The most connections served at once. A connection accepted beyond it is turned away,
    /// counted in [`Metrics::connections_rejected`](super::Metrics::connections_rejected):
    /// its first request is read (up to 64 KiB, within a second) and answered with the
    /// retryable [`AT_CAPACITY`](crate::server::AT_CAPACITY) exception, unrun, and the connection
    /// closes. At most 64 connections are turned away at a time so; past that they are
    /// closed at once (the peer sees the connection end). At least 1.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.config.max_connections = n.max(1);
        self
    }

    /// The most requests of one connection handled at once. Past it the connection is not
    /// read until a request finishes, so a pipelining peer cannot make the server hold
    /// unbounded work. At least 1.
    pub fn max_in_flight_per_connection(mut self, n: usize) -> Self {
        self.config.max_in_flight = n.max(1);
        self
    }

    /// How long a connection may go without delivering a whole message while the server
    /// owes it no reply: a peer that connects and sends nothing, or trickles a message in
    /// too slowly, is disconnected when it runs out (requests already received are still
    /// answered first). The clock restarts at each whole message and when the last request
    /// in flight is answered. `None` waits forever.
    pub fn read_idle_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.config.read_idle_timeout = timeout.into();
        self
    }

    /// How long writing one batch of replies to a connection may take. A peer that stops
    /// reading its replies makes the server's writes stall; past this the connection is
    /// closed (its unwritten replies dropped) and counted in
    /// [`Metrics::write_timeouts`](super::Metrics::write_timeouts). This is the clock that runs
    /// while the read-idle one waits on the server. `None` waits forever.
    pub fn write_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.config.write_timeout = timeout.into();
        self
    }

    /// The most bytes one connection may hold at once in requests being handled and in
    /// replies not yet written to it (a message larger than this counts as this). Past it
    /// the connection is not read, and finished handlers wait to queue their replies, until
    /// the peer reads: a peer that sends without reading holds at most this much (plus the
    /// kernel's socket buffers), never its whole backlog. The bytes held over all
    /// connections are [`Metrics::bytes_pending`](super::Metrics::bytes_pending). At least
    /// 1; at most `u32::MAX`.
    pub fn max_pending_bytes_per_connection(mut self, bytes: usize) -> Self {
        self.config.max_pending_bytes = bytes.clamp(1, u32::MAX as usize);
        self
    }

    /// The most bytes all connections together may hold in messages they have partly
    /// received (a slow upload, or a peer that declares a large frame and stalls). A
    /// connection whose partial message would take the total past it is closed (counted in
    /// [`Metrics::receive_budget_exceeded`](super::Metrics::receive_budget_exceeded)), so
    /// many stalled peers cannot together hold `max_connections × max_frame_len`. The bytes
    /// held now are [`Metrics::bytes_receiving`](super::Metrics::bytes_receiving). At least
    /// 1.
    pub fn max_receiving_bytes(mut self, bytes: usize) -> Self {
        self.config.max_receiving_bytes = bytes.max(1);
        self
    }

    /// How long one handler may run. Past it the handler's future is dropped (what it was
    /// awaiting is cancelled) and the call is answered with a `TApplicationException`
    /// `TIMEOUT` (fbthrift's code 12) that names the method and the timeout; counted in
    /// [`Metrics::handler_timeouts`](super::Metrics::handler_timeouts). Off (`None`) by
    /// default, as in Apache's servers: the client's own deadline is usually the better
    /// judge, and a handler cut short mid-work may leave its side effects half done.
    ///
    /// ```
    /// use std::time::Duration;
    /// let server = thrift_net::Server::builder().handler_timeout(Duration::from_secs(10)).build();
    /// # let _ = server;
    /// ```
    pub fn handler_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.config.handler_timeout = timeout.into();
        self
    }

    /// Whether a peer that closes its sending side may still read replies (TCP half-close).
    ///
    /// Off by default, as in hyper: when a peer's stream ends, its handlers still running are
    /// cancelled and their replies dropped, because a Thrift client closes its connection
    /// when it gives up on its calls (it timed out, or it is going away) and the work is no
    /// longer wanted; counted in
    /// [`Metrics::handlers_cancelled`](super::Metrics::handlers_cancelled). Oneway requests
    /// are never cancelled this way: their sender does not wait for them, so its leaving says
    /// nothing about them. Turn it on for peers that shut down their write side and then read
    /// their answers. Either way, a peer whose connection fails (a reset, or a write that
    /// fails) has its handlers cancelled.
    pub fn half_close(mut self, allow: bool) -> Self {
        self.config.half_close = allow;
        self
    }

    /// TCP keepalive on accepted connections: how long a connection may be idle before the
    /// kernel starts probing the peer. A peer that vanished without closing (its host
    /// crashed, the network between went down) is then found and its connection closed
    /// instead of holding its place and its handlers forever. On (60 s) by default; `None`
    /// turns it off.
    pub fn tcp_keepalive(mut self, idle: impl Into<Option<Duration>>) -> Self {
        self.config.tcp_keepalive = idle.into();
        self
    }

    /// How long a TLS connection's handshake may take, from the accept
    /// ([`Server::serve_tls`](super::Server::serve_tls)): a peer that connects and never
    /// finishes it (sends nothing, or trickles) is disconnected then, having held its place
    /// under [`max_connections`](Self::max_connections) and the handshake's buffers (a few
    /// tens of KiB in rustls) for that long and no more. A handshake that fails (wrong
    /// certificate, a client that speaks plain Thrift) closes the connection at once, after
    /// rustls's alert. Default: 10 s; at least 1 ms.
    ///
    /// ```
    /// use std::time::Duration;
    /// let server = thrift_net::Server::builder().tls_handshake_timeout(Duration::from_secs(3)).build();
    /// # let _ = server;
    /// ```
    #[cfg(feature = "tls")]
    pub fn tls_handshake_timeout(mut self, timeout: Duration) -> Self {
        self.config.handshake_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Whether every connection speaks Apache's zlib transport: its bytes each way are one
    /// zlib stream (see [`ZlibStream`](crate::codec::ZlibStream)), and the framed or buffered
    /// messages inside are detected as usual. Off by default. Inflating is bounded: the
    /// inflated bytes are held only as the frame and message limits allow, so a small
    /// compressed request that inflates to gigabytes closes its connection at
    /// `Limits::max_frame_len` or `max_message_len`.
    ///
    /// ```
    /// let server = thrift_net::Server::builder().zlib(true).build();
    /// # let _ = server;
    /// ```
    #[cfg(feature = "zlib")]
    pub fn zlib(mut self, on: bool) -> Self {
        self.config.zlib = on;
        self
    }

    /// Frame, message, string, container and depth limits for reading requests, and whether
    /// binary requests must use the strict envelope. A frame or message beyond them, or an
    /// old-style envelope under [`Limits::strict_binary_envelope`], closes the connection
    /// (its sequence id is not read, so no reply can be sent); arguments beyond them are
    /// answered with `PROTOCOL_ERROR`. Replies keep to the same frame and message sizes (a
    /// client with these limits would refuse a larger one and drop the connection): a reply
    /// beyond them is answered with an `INTERNAL_ERROR` exception that says so.
    ///
    /// This replaces [`ServerBuilder::default_limits`] whole: build on it
    /// (`..ServerBuilder::default_limits()`) to keep strict envelopes, or on
    /// [`Limits::default`] to serve old clients that write non-strict ones.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// Labels added to every metric the server emits through the `metrics` facade (see
    /// [`metrics_names`](crate::metrics_names)), to tell several servers of one process
    /// apart, e.g. `[("service", "calculator")]`. None unless set.
    #[cfg(feature = "metrics")]
    pub fn metrics_labels<K: Into<String>, V: Into<String>>(
        mut self,
        labels: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.config.metrics_labels = labels.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        self
    }

    /// The server.
    pub fn build(self) -> Server<L> {
        Server { config: self.config, layer: self.layer }
    }
}
