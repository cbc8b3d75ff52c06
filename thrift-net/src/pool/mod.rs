//! The connection pool: connections per endpoint (exclusive, one call each, or a few shared
//! pipelined ones), a balancer over endpoints with ejection and backoff, discard after
//! errors, counters per endpoint, and endpoints from a change stream or host names
//! (`discover`, `resolve`).

mod balance;
mod config;
mod discover;
mod endpoint;
mod exclusive;
mod metrics;
mod resolve;
mod retry;
mod shared;

use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;
use tracing::Instrument;

use crate::call_error::is_at_capacity;
use crate::channel::{Call, CallError, CallSite, EndpointDown, Reply, ReplyFuture, Unavailable};

pub use config::{Balance, Mode, PoolConfig};
pub use discover::{DiscoveryStats, DiscoveryTask};
pub use metrics::EndpointMetrics;
pub use resolve::{DnsChanges, Resolve, SystemResolver};
pub use retry::{RetryBudget, RetryStats};
pub use tower::discover::Change;

use balance::Endpoints;
use endpoint::{CheckoutError, Endpoint, Settings};
use metrics::Counters;

/// A pool of connections to one or several endpoints: a `tower::Service` of [`Call`]s, so
/// a [`Channel`](crate::Channel) the typed clients `#[service]` generates call through, as
/// they would through one [`Client`](crate::Client), and one that tower's layers wrap.
///
/// It is cheap to clone (clones share the pool), `Send` and `Sync`. Each call:
///
/// 1. chooses an endpoint ([`Balance`]), leaving out those ejected after refusing a
///    connection until their backoff runs out;
/// 2. gets a connection there ([`Mode`]): in exclusive mode, checks one out (an idle one,
///    most recently returned first, after a cheap liveness check; or a new one up to
///    `max_total`; or waits up to `wait_timeout`); in shared mode, takes the least busy of a
///    few pipelined connections;
/// 3. makes the call; a connection that saw a timeout, or a transport or protocol error, is
///    discarded (so is one whose call was dropped midway), any other returns to the pool.
///    (A reply the connection could not frame or route closes the connection, a transport
///    error; a whole reply whose body the typed client then fails to decode leaves the
///    connection in step, and it is kept.)
///
/// When a connection cannot be opened nothing was sent, so the call moves to another
/// endpoint; when none is left it fails at once with [`CallError::Unavailable`] naming each
/// endpoint and why. A call that fails with [`CallError::Transport`] or
/// [`CallError::Timeout`] may have reached the server, and is never retried; one that
/// certainly did not run ([`CallError::NotSent`], or refused by a server shutting down or
/// at its connection limit, see [`CallError::is_retry_safe`]) is sent again on another connection, twice at most.
///
/// Every limit and timeout ([`PoolConfig`], with its [`ClientConfig`](crate::ClientConfig)),
/// its default, and what a caller sees when it is hit:
///
/// | setting | default | when hit |
/// | --- | --- | --- |
/// | `client.call_timeout` | 30 s | `CallError::Timeout`; the connection is discarded (exclusive) or retired and replaced at once (shared), and the failure counts toward ejection |
/// | `connect_timeout` | 2 s | the connect fails: the endpoint is ejected and the call moves to another; none left: `CallError::Unavailable` |
/// | `wait_timeout` | 5 s | every connection stayed busy: `CallError::Unavailable` ("no connection ... free within") |
/// | `max_total` | 32 | calls wait for a connection (up to `wait_timeout`) |
/// | `max_idle`, `max_idle_global`, `idle_timeout`, `max_lifetime` | `max_total`, none, 30 s, none | the connection is closed instead of kept; nothing visible to callers |
/// | `eject_after_failures` | 5 | the endpoint is ejected for `eject_backoff` (100 ms, doubling to `max_eject_backoff`, 10 s): calls go elsewhere; if every endpoint is ejected for failing calls, they still take calls |
/// | refused connect | — | ejected as above; calls fail fast with `CallError::Unavailable` naming each endpoint when none is left |
/// | server shutting down / connection closed before the call was written | — | the call is sent again on another connection, twice at most, then `CallError::NotSent` or the [`SHUTTING_DOWN`](crate::server::SHUTTING_DOWN) exception (`is_retry_safe()`) |
/// | server at its connection limit | — | the endpoint is ejected as for a refused connect (readmitted by a reply) and the call sent again elsewhere, twice at most, then the [`AT_CAPACITY`](crate::server::AT_CAPACITY) exception (`is_retry_safe()`) |
/// | `client.tcp_keepalive` | 60 s idle, then 3 probes 10 s apart | a server gone without a close fails its connection's calls (`Transport`) and the connection is discarded |
///
/// There are no background tasks: expired and surplus idle connections are dropped as
/// connections are checked out and returned, and [`Pool::maintain`] (or the task
/// [`Pool::spawn_maintenance`] starts, if you want one) pre-warms `min_idle` and prunes.
///
/// ```
/// use std::time::Duration;
/// use thrift_net::{service, Pool, PoolConfig, Server};
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
/// let a = Server::new().bind("127.0.0.1:0", echo::Server::new(Parrot)).await?;
/// let b = Server::new().bind("127.0.0.1:0", echo::Server::new(Parrot)).await?;
/// let config = PoolConfig::default().with_max_total(8).with_min_idle(1);
/// let pool = Pool::new([a.local_addr(), b.local_addr()], config);
/// pool.maintain().await; // opens min_idle connections per endpoint ahead of need
///
/// let client = echo::Client::new(pool.clone());
/// let (x, y) = tokio::join!(client.echo("x".into()), client.echo("y".into()));
/// assert_eq!((x?, y?), ("x".to_string(), "y".to_string()));
/// assert!(pool.metrics().iter().all(|m| m.created >= 1 && m.active == 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// # }
/// ```
#[derive(Clone)]
pub struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Arc<Settings>,
    retries: retry::Retries,
    endpoints: Endpoints,
    /// Dropped with the last clone of the pool, which tells a discovery task to stop.
    dropped: tokio::sync::watch::Sender<()>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("config", &self.inner.settings.config)
            .field("endpoints", &self.endpoints())
            .finish()
    }
}

/// What one [`Pool::maintain`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Maintenance {
    /// Idle connections closed: broken, expired, or beyond `max_idle` or `max_idle_global`.
    pub closed: usize,
    /// Connections opened to bring endpoints up to `min_idle`.
    pub opened: usize,
    /// Endpoints where opening a connection failed.
    pub failed: usize,
}

impl Pool {
    /// A pool over `endpoints` (duplicates once), with no connection open yet: the first
    /// calls open them, or [`Pool::maintain`] does ahead of need. Needs no runtime until
    /// the first call.
    pub fn new(endpoints: impl IntoIterator<Item = SocketAddr>, config: PoolConfig) -> Pool {
        let settings = Arc::new(Settings::new(&config));
        let endpoints = Endpoints::new(endpoints, &settings);
        let dropped = tokio::sync::watch::Sender::new(());
        let retries = retry::Retries::new(&settings.config.retry_budget);
        Pool { inner: Arc::new(Inner { settings, retries, endpoints, dropped }) }
    }

    /// The settings in force (limits brought within their bounds, such as `max_idle` at
    /// most `max_total`).
    pub fn config(&self) -> &PoolConfig {
        &self.inner.settings.config
    }

    /// The endpoints calls go to now.
    pub fn endpoints(&self) -> Vec<SocketAddr> {
        self.inner.endpoints.snapshot().iter().map(|e| e.addr).collect()
    }

    /// Replaces the endpoints, while calls run: the hook for service discovery. An endpoint
    /// in both lists keeps its connections, health and counters; a new one starts with
    /// none; one no longer listed takes no new calls, closes its idle connections at once
    /// and its busy ones when their calls end. Calls already choosing an endpoint finish
    /// with the list they started with. Each address listed counts once, whatever a
    /// discovery task ([`Pool::discover`]) had counted for it.
    pub fn set_endpoints(&self, endpoints: impl IntoIterator<Item = SocketAddr>) {
        self.inner.endpoints.replace(endpoints, &self.inner.settings);
    }

    /// A snapshot of each endpoint's counters, in the order of [`Pool::endpoints`].
    pub fn metrics(&self) -> Vec<EndpointMetrics> {
        let now = self.inner.settings.now();
        self.inner.endpoints.snapshot().iter().map(|e| e.metrics(now)).collect()
    }

    /// Housekeeping, when you choose to run it: closes idle connections that are broken,
    /// past `idle_timeout` or `max_lifetime`, or beyond `max_idle` (least recently used
    /// first) and `max_idle_global`; then opens connections to each endpoint not ejected
    /// until `min_idle` are idle (without waiting for busy ones). Call it once after
    /// [`Pool::new`] to pre-warm, and periodically (or via [`Pool::spawn_maintenance`]) to
    /// keep `min_idle` ready after a burst and to close idle connections that no checkout
    /// reaches. In shared mode, `max_idle_global` does not apply, and `min_idle` counts
    /// open connections (at most `connections`).
    pub async fn maintain(&self) -> Maintenance {
        let settings = &self.inner.settings;
        let list = self.inner.endpoints.snapshot();
        let mut report = Maintenance::default();
        for endpoint in list.iter() {
            report.closed += endpoint.prune(0);
        }
        if let Some(cap) = settings.config.max_idle_global {
            let mut over = settings.global_idle.load(std::sync::atomic::Ordering::Relaxed).saturating_sub(cap);
            for endpoint in list.iter() {
                if over == 0 {
                    break;
                }
                let closed = endpoint.prune(over);
                report.closed += closed;
                over = over.saturating_sub(closed);
            }
        }
        for endpoint in list.iter().filter(|e| !e.health.is_ejected(settings.now())) {
            let (opened, failed) = endpoint.replenish().await;
            report.opened += opened;
            report.failed += usize::from(failed);
        }
        report
    }

    /// Runs [`Pool::maintain`] every `every` (at least a millisecond) on a tokio task, until
    /// the returned handle or the last clone of the pool is dropped.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub fn spawn_maintenance(&self, every: Duration) -> MaintenanceTask {
        let pool = Arc::downgrade(&self.inner);
        let every = every.max(Duration::from_millis(1));
        MaintenanceTask(tokio::spawn(maintain_every(pool, every)))
    }

    /// Sends `call` (what the [`tower::Service`](tower_service::Service) implementation
    /// does, without the `&mut self`): chooses an endpoint and a connection there, sends it,
    /// and gives the connection back (or discards it) according to the outcome. A call that
    /// may be retried (see the type's docs) is sent again, at most twice, within the retry
    /// budget.
    ///
    /// # Errors
    /// Those of [`Client::send`](crate::Client::send), and [`CallError::Unavailable`] when
    /// no endpoint can take the call.
    pub async fn send(&self, call: &Call) -> Result<Option<Reply>, CallError> {
        let idempotent = call.is_idempotent();
        let retries = &self.inner.retries;
        retries.called();
        let mut resends = 0;
        loop {
            let result = self.send_once(call, resends).await;
            match &result {
                Err(e) if resends < RESENDS && retry::may_retry(e, idempotent) && retries.withdraw() => {
                    tracing::debug!(error = %e, resends, "sending the call again");
                    resends += 1;
                }
                _ => return result.map_err(|e| e.located(&call.site())),
            }
        }
    }

    /// What the pool's retries did so far.
    pub fn retries(&self) -> RetryStats {
        self.inner.retries.stats()
    }

    async fn send_once(&self, call: &Call, attempt: usize) -> Result<Option<Reply>, CallError> {
        let settings = &self.inner.settings;
        let list = self.inner.endpoints.snapshot();
        let mut tried = Vec::new();
        let mut refused = Vec::new();
        let (picked, _in_flight, mut lease) = loop {
            let Some(picked) = self.inner.endpoints.pick(&list, &mut tried, settings.config.balance, || settings.now())
            else {
                return Err(unavailable(&list, refused, settings));
            };
            let in_flight = picked.endpoint.counters.hold(|c| &c.in_flight);
            match picked.endpoint.checkout().await {
                Ok(lease) => {
                    picked.served();
                    break (picked, in_flight, lease);
                }
                // Nothing was sent: another endpoint may take the call.
                Err(CheckoutError::Connect(e)) => {
                    refused.push(EndpointDown { endpoint: picked.endpoint.addr, error: e.to_string(), retry_in: None })
                }
                Err(CheckoutError::Retired) => {}
                Err(CheckoutError::Busy(e)) => return Err(e),
            }
            tried.push(picked.index);
        };
        let span = tracing::debug_span!("thrift_pool_call", endpoint = %picked.endpoint.addr, attempt);
        let result = lease.send(call).instrument(span).await;
        match &result {
            Err(CallError::Timeout(..)) => Counters::bump(&picked.endpoint.counters.timeouts),
            // Full, not broken: as good as a refused connection; the call is sent elsewhere.
            Err(CallError::Application(e, ..)) if is_at_capacity(e) => {
                picked.endpoint.health.turned_away(settings);
            }
            _ => {}
        }
        picked.finished(&result, settings);
        lease.finish(&result);
        result
    }
}

/// How many times a call is sent again, on another connection, when its failure allows it
/// (see [`retry::may_retry`]) and the [`RetryBudget`] can pay.
const RESENDS: usize = 2;

/// Why no endpoint took a call: those refused during it, else each endpoint's state.
fn unavailable(list: &[Arc<Endpoint>], refused: Vec<EndpointDown>, settings: &Settings) -> CallError {
    let why = if list.is_empty() {
        Unavailable::NoEndpoints
    } else if !refused.is_empty() {
        Unavailable::Refused(refused)
    } else {
        let now = settings.now();
        let state = |e: &Arc<Endpoint>| EndpointDown {
            endpoint: e.addr,
            error: e.health.last_error().unwrap_or_else(|| "refused a connection".into()),
            retry_in: Some(match e.health.is_probing() {
                true => Duration::ZERO,
                false => Duration::from_nanos(e.health.ejected_until().unwrap_or(now).saturating_sub(now)),
            }),
        };
        Unavailable::AllDown(list.iter().map(state).collect())
    };
    CallError::Unavailable(why, CallSite::default())
}

async fn maintain_every(pool: Weak<Inner>, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(inner) = pool.upgrade() else { return };
        Pool { inner }.maintain().await;
    }
}

/// The task [`Pool::spawn_maintenance`] started; dropping it stops the task.
#[derive(Debug)]
pub struct MaintenanceTask(tokio::task::JoinHandle<()>);

impl Drop for MaintenanceTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Each call goes out on a connection of an endpoint the pool picks, as [`Pool::send`];
/// always ready (a call waits for a connection, up to the `wait_timeout`).
impl tower_service::Service<Call> for Pool {
    type Response = Option<Reply>;
    type Error = CallError;
    type Future = ReplyFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let pool = self.clone();
        Box::pin(async move { pool.send(&call).await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_is_clone_send_sync_and_a_channel() {
        fn check<T: Clone + Send + Sync + crate::Channel + 'static>() {}
        check::<Pool>();
    }

    #[test]
    fn a_pool_needs_no_runtime_until_a_call() {
        let addr = SocketAddr::from(([127, 0, 0, 1], 9));
        let pool = Pool::new([addr, addr], PoolConfig::default());
        assert_eq!(pool.endpoints(), vec![addr], "duplicates once");
        assert_eq!(pool.metrics()[0].created, 0);
    }
}
