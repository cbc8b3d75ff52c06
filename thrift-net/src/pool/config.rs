//! The pool's knobs, named as users of commons-pool2 and Kitex know them.

use std::time::Duration;

use super::retry::RetryBudget;
use crate::client::ClientConfig;
use crate::setters::setters;

/// How calls share connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One call per connection at a time: a call checks a connection out of the endpoint's
    /// pool, and returns it when the reply came. The only mode that gives a server which
    /// handles one request per connection at a time (Apache's `TSimpleServer`,
    /// `TThreadPoolServer`, `TNonblockingServer`...) real parallelism, and the default.
    /// The caller's own task writes the call and reads the reply, with no task in between;
    /// a call that ends without its reply (timeout, error, dropped midway) discards the
    /// connection.
    Exclusive,
    /// A few pipelined connections per endpoint, each carrying many calls at once; a call
    /// goes to the connection with the fewest calls waiting. Fewer sockets and fewer
    /// system calls for a server that handles one connection's requests concurrently (this
    /// crate's [`Server`](crate::Server), Kitex); correct but serialized behind each other
    /// on an Apache server.
    Shared {
        /// Connections per endpoint (at least 1, at most [`PoolConfig::max_total`]).
        connections: usize,
    },
}

/// How a call chooses among several endpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Balance {
    /// Two endpoints drawn at random; the one with fewer calls in flight gets the call.
    /// Steers away from a slow endpoint without keeping global state. The default.
    #[default]
    PowerOfTwoChoices,
    /// Each endpoint in turn.
    RoundRobin,
}

/// A [`Pool`](super::Pool)'s settings: start from [`PoolConfig::default`] and chain the
/// `with_` setters (the struct is `non_exhaustive`, so settings added later break no one;
/// its fields stay public to read and assign).
///
/// ```
/// use std::time::Duration;
/// use thrift_net::{ClientConfig, PoolConfig};
/// use thrift_net::pool::Mode;
///
/// let config = PoolConfig::default()
///     .with_max_total(8)
///     .with_min_idle(2)
///     .with_wait_timeout(Duration::from_millis(200));
/// assert_eq!(config.mode, Mode::Exclusive);
/// // The connections' own settings, the connect timeout among them, are the client's.
/// let config = config.with_client(ClientConfig::default().with_connect_timeout(Duration::from_millis(500)));
/// assert_eq!(config.client.connect_timeout, Some(Duration::from_millis(500)));
/// ```
///
/// Every limit is per endpoint unless its name says otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolConfig {
    /// Transport, protocol, multiplexing, the call and connect timeouts and the decoding
    /// limits of each connection. Default: [`ClientConfig::default`] with a connect timeout
    /// of [`PoolConfig::DEFAULT_CONNECT_TIMEOUT`] (a pool has other endpoints to try).
    pub client: ClientConfig,
    /// Exclusive (one call per connection at a time) or shared (pipelined). Default:
    /// exclusive.
    pub mode: Mode,
    /// How endpoints are chosen. Default: power of two choices.
    pub balance: Balance,
    /// The most connections open to one endpoint at once, busy or idle: a hard cap
    /// (commons-pool2 `maxTotal`). In exclusive mode it is also the most calls in flight to
    /// the endpoint; more wait up to [`PoolConfig::wait_timeout`]. (A discarded connection
    /// leaves the count at once; its socket closes as soon as its tasks next run, so the
    /// server may count it a moment longer.) At least 1. Default: 32.
    pub max_total: usize,
    /// The most idle connections kept for one endpoint (commons-pool2 `maxIdle`, Kitex
    /// `MaxIdlePerAddress`): a connection returned beyond it is closed. Keep it near the
    /// concurrency you expect: a cap below it closes and reopens connections on every burst.
    /// At most `max_total`. Default: `None`, as many as `max_total`.
    pub max_idle: Option<usize>,
    /// Idle connections [`Pool::maintain`](super::Pool::maintain) opens ahead of need
    /// (commons-pool2 `minIdle`). At most the idle cap. Default: 0.
    pub min_idle: usize,
    /// The most idle connections kept over all endpoints together (Kitex `MaxIdleGlobal`):
    /// a connection returned beyond it is closed. Default: none.
    pub max_idle_global: Option<usize>,
    /// An idle connection unused this long is closed instead of handed out (Kitex
    /// `MaxIdleTimeout`). Keep it below the server's own idle timeout, so the pool drops a
    /// connection before the server does. Default: 30 seconds (our server closes idle
    /// peers after 60).
    pub idle_timeout: Option<Duration>,
    /// A connection older than this is closed instead of handed out (HikariCP
    /// `maxLifetime`), so traffic spreads to endpoints added behind a load balancer.
    /// Default: none.
    pub max_lifetime: Option<Duration>,
    /// How long a call may wait for a connection of a busy endpoint (commons-pool2
    /// `maxWait`). `None` waits as long as it takes. Default: 5 seconds.
    pub wait_timeout: Option<Duration>,
    /// Check an idle connection before handing it out (commons-pool2 `testOnBorrow`): a
    /// connection the peer closed is noticed without a round trip (a read that does not
    /// wait finds EOF, a reset, or bytes no call asked for) and replaced. Off, the same look
    /// still comes before the call is written, which then fails as not sent and goes to
    /// another connection (a resend, within the retry budget). Exclusive mode; shared mode
    /// always passes over a closed connection. Default: on.
    pub test_on_checkout: bool,
    /// Hand out the most recently returned idle connection first, so the ones left over
    /// after a burst stay unused and expire. Default: on.
    pub lifo: bool,
    /// How long an endpoint that refused a connection is left alone before a call tries it
    /// again; doubled after each further refusal. Default: 100 ms.
    pub eject_backoff: Duration,
    /// The longest the backoff grows to. Default: 10 seconds.
    pub max_eject_backoff: Duration,
    /// Consecutive failed calls (timeouts, transport and protocol errors) after which an
    /// endpoint is ejected as if it had refused a connection (Finagle's failure accrual,
    /// Envoy's consecutive errors): an endpoint that accepts connections but never answers
    /// (frozen, overloaded, wedged) costs this many calls, not every call. Once its backoff
    /// runs out one call at a time probes it, and only a probe that gets a reply readmits it;
    /// a failed probe ejects it again for twice as long. 0 disables it. Default: 5.
    pub eject_after_failures: u32,
    /// How many calls may be sent again. A call is sent again (on another connection, at
    /// most twice) when it certainly did not run (never sent; refused unrun by a server
    /// shutting down, at its connection limit or shedding load), or, for a method marked
    /// `#[thrift(idempotent)]`, when its connection failed or no reply came in time; each
    /// retry is paid for by this budget. Default: [`RetryBudget::default`], Finagle's.
    pub retry_budget: RetryBudget,
    /// Open every connection over TLS with this configuration and server name (see
    /// [`Client::connect_tls`](crate::Client::connect_tls)); the handshake counts in the
    /// client's `connect_timeout`, and an endpoint whose handshake fails counts as
    /// refusing the connection. Default: plain TCP.
    #[cfg(feature = "tls")]
    pub tls: Option<crate::tls::ClientTls>,
    /// Labels added, beside `endpoint`, to every metric the pool emits through the
    /// `metrics` facade (see [`metrics_names`](crate::metrics_names)), to tell several pools
    /// apart, e.g. `("upstream", "users")`. Default: none.
    #[cfg(feature = "metrics")]
    pub metrics_labels: Vec<(String, String)>,
}

impl PoolConfig {
    /// Connections per endpoint unless set otherwise.
    pub const DEFAULT_MAX_TOTAL: usize = 32;
    /// The idle timeout unless set otherwise.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
    /// The connections' connect timeout unless set otherwise.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
    /// The checkout wait unless set otherwise.
    pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(5);
    /// The first ejection backoff unless set otherwise.
    pub const DEFAULT_EJECT_BACKOFF: Duration = Duration::from_millis(100);
    /// The longest ejection backoff unless set otherwise.
    pub const DEFAULT_MAX_EJECT_BACKOFF: Duration = Duration::from_secs(10);
    /// Consecutive failed calls that eject an endpoint unless set otherwise.
    pub const DEFAULT_EJECT_AFTER_FAILURES: u32 = 5;

    /// The most idle connections kept per endpoint: `max_idle`, else `max_total`.
    pub(crate) fn idle_cap(&self) -> usize {
        self.max_idle.unwrap_or(self.max_total).min(self.max_total)
    }

    /// The settings with every limit brought within its bounds.
    pub(crate) fn normalized(&self) -> PoolConfig {
        let mut c = self.clone();
        c.max_total = c.max_total.max(1);
        c.max_idle = Some(c.idle_cap());
        c.min_idle = c.min_idle.min(c.idle_cap());
        if let Mode::Shared { connections } = &mut c.mode {
            *connections = (*connections).clamp(1, c.max_total);
        }
        c.max_eject_backoff = c.max_eject_backoff.max(c.eject_backoff);
        c
    }
}

setters!(PoolConfig {
    with_client => client: [ClientConfig],
    with_mode => mode: [Mode],
    with_balance => balance: [Balance],
    with_max_total => max_total: [usize],
    with_max_idle => max_idle: [Option<usize>],
    with_min_idle => min_idle: [usize],
    with_max_idle_global => max_idle_global: [Option<usize>],
    with_idle_timeout => idle_timeout: [Option<Duration>],
    with_max_lifetime => max_lifetime: [Option<Duration>],
    with_wait_timeout => wait_timeout: [Option<Duration>],
    with_test_on_checkout => test_on_checkout: [bool],
    with_lifo => lifo: [bool],
    with_eject_backoff => eject_backoff: [Duration],
    with_max_eject_backoff => max_eject_backoff: [Duration],
    with_eject_after_failures => eject_after_failures: [u32],
    with_retry_budget => retry_budget: [RetryBudget],
    #[cfg(feature = "tls")]
    with_tls => tls: [Option<crate::tls::ClientTls>],
    #[cfg(feature = "metrics")]
    with_metrics_labels => metrics_labels: [Vec<(String, String)>],
});

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            client: ClientConfig::default().with_connect_timeout(Self::DEFAULT_CONNECT_TIMEOUT),
            mode: Mode::Exclusive,
            balance: Balance::default(),
            max_total: Self::DEFAULT_MAX_TOTAL,
            max_idle: None,
            min_idle: 0,
            max_idle_global: None,
            idle_timeout: Some(Self::DEFAULT_IDLE_TIMEOUT),
            max_lifetime: None,
            wait_timeout: Some(Self::DEFAULT_WAIT_TIMEOUT),
            test_on_checkout: true,
            lifo: true,
            eject_backoff: Self::DEFAULT_EJECT_BACKOFF,
            max_eject_backoff: Self::DEFAULT_MAX_EJECT_BACKOFF,
            eject_after_failures: Self::DEFAULT_EJECT_AFTER_FAILURES,
            retry_budget: RetryBudget::default(),
            #[cfg(feature = "tls")]
            tls: None,
            #[cfg(feature = "metrics")]
            metrics_labels: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizing_keeps_every_limit_within_the_others() {
        let config = PoolConfig {
            max_total: 0,
            max_idle: Some(10),
            min_idle: 10,
            mode: Mode::Shared { connections: 0 },
            eject_backoff: Duration::from_secs(3),
            max_eject_backoff: Duration::from_secs(1),
            ..PoolConfig::default()
        }
        .normalized();
        assert_eq!((config.max_total, config.max_idle, config.min_idle), (1, Some(1), 1));
        assert_eq!(config.mode, Mode::Shared { connections: 1 });
        assert_eq!(config.max_eject_backoff, Duration::from_secs(3));
        assert_eq!(PoolConfig::default().client.connect_timeout, Some(PoolConfig::DEFAULT_CONNECT_TIMEOUT));

        let shared = PoolConfig { mode: Mode::Shared { connections: 100 }, max_total: 4, ..PoolConfig::default() };
        assert_eq!(shared.normalized().mode, Mode::Shared { connections: 4 });
        assert_eq!(shared.normalized().max_idle, Some(4), "the idle cap follows max_total");
        let big = PoolConfig { max_total: 256, ..PoolConfig::default() };
        assert_eq!(big.normalized().max_idle, Some(256), "no idle cap below max_total unless asked");
    }
}
