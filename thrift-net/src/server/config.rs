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
    pub limits: Limits,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: ServerBuilder::DEFAULT_MAX_CONNECTIONS,
            max_in_flight: ServerBuilder::DEFAULT_MAX_IN_FLIGHT,
            read_idle_timeout: Some(ServerBuilder::DEFAULT_READ_IDLE_TIMEOUT),
            limits: ServerBuilder::default_limits(),
        }
    }
}

/// Sets up a [`Server`]: connection and request limits, the read-idle timeout, and the
/// decoding [`Limits`] (by default [`ServerBuilder::default_limits`]: Apache's, with strict
/// binary envelopes).
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

    /// The decoding limits a server applies unless set otherwise: Apache's defaults
    /// ([`Limits::default`]) with [`Limits::strict_binary_envelope`] on.
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

    /// Frame, message, string, container and depth limits for reading requests, and whether
    /// binary requests must use the strict envelope. A frame or message beyond them, or an
    /// old-style envelope under [`Limits::strict_binary_envelope`], closes the connection
    /// (its sequence id is not read, so no reply can be sent); arguments beyond them are
    /// answered with `PROTOCOL_ERROR`.
    ///
    /// This replaces [`ServerBuilder::default_limits`] whole: build on it
    /// (`..ServerBuilder::default_limits()`) to keep strict envelopes, or on
    /// [`Limits::default`] to serve old clients that write non-strict ones.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// The server.
    pub fn build(self) -> Server {
        Server { config: self.config }
    }
}
