//! The server's settings and their builder.

use std::time::Duration;

use thrift_core::Limits;

use super::Server;

/// What a [`Server`] allows; built with [`Server::builder`].
#[derive(Clone, Debug)]
pub(crate) struct ServerConfig {
    pub max_connections: usize,
    pub max_in_flight: usize,
    pub read_idle_timeout: Option<Duration>,
    pub write_timeout: Option<Duration>,
    pub max_pending_bytes: usize,
    pub limits: Limits,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: ServerBuilder::DEFAULT_MAX_CONNECTIONS,
            max_in_flight: ServerBuilder::DEFAULT_MAX_IN_FLIGHT,
            read_idle_timeout: Some(ServerBuilder::DEFAULT_READ_IDLE_TIMEOUT),
            write_timeout: Some(ServerBuilder::DEFAULT_WRITE_TIMEOUT),
            max_pending_bytes: ServerBuilder::DEFAULT_MAX_PENDING_BYTES,
            limits: Limits::default(),
        }
    }
}

/// Sets up a [`Server`]: connection and request limits, the read-idle timeout, and the
/// decoding [`Limits`].
///
/// ```
/// use std::time::Duration;
/// use thrift_core::Limits;
/// use thrift_net::Server;
///
/// let server = Server::builder()
///     .max_connections(100)
///     .max_in_flight_per_connection(64)
///     .read_idle_timeout(Duration::from_secs(5))
///     .limits(Limits { max_frame_len: 1 << 20, ..Limits::default() })
///     .build();
/// # let _ = server;
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct ServerBuilder {
    config: ServerConfig,
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

    /// The most connections served at once. A connection accepted beyond it is closed at
    /// once (its peer sees the connection end) and counted in
    /// [`Metrics::connections_rejected`](super::Metrics::connections_rejected).
    /// At least 1.
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

    /// Frame, message, string, container and depth limits for reading requests. A frame or
    /// message beyond them closes the connection (its sequence id is unknown, so no reply
    /// can be sent); arguments beyond them are answered with `PROTOCOL_ERROR`.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// The server.
    pub fn build(self) -> Server {
        Server { config: self.config }
    }
}
