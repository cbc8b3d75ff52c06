//! One endpoint: its connections (an exclusive pool or a few shared ones), its health (ejected
//! after refusing a connection, retried after a backoff), and its counters.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::call_error::{is_at_capacity, CallError};
use crate::channel::{Call, Reply};
use crate::client::{Client, ClientConfig, Direct};
use crate::error::{Phase, TransportError};

use super::config::{Mode, PoolConfig};
use super::exclusive::{Exclusive, Leased};
use super::metrics::{Counters, EndpointMetrics};
use super::shared::SharedConnections;

/// What every endpoint of one pool shares: the settings, a clock origin, and the idle count
/// over all endpoints (kept only for a `max_idle_global`: one count every return of every
/// endpoint would otherwise move).
#[derive(Debug)]
pub(crate) struct Settings {
    pub config: PoolConfig,
    epoch: Instant,
    pub global_idle: AtomicUsize,
}

impl Settings {
    pub fn new(config: &PoolConfig) -> Self {
        Settings { config: config.normalized(), epoch: Instant::now(), global_idle: AtomicUsize::new(0) }
    }

    /// Nanoseconds since the pool was made: a time that fits in an atomic. (Never 0, which
    /// stands for "not ejected".)
    pub fn now(&self) -> u64 {
        self.at(Instant::now())
    }

    /// [`Settings::now`] at `instant`, for a caller that read the clock already.
    pub fn at(&self, instant: Instant) -> u64 {
        pool_time(self.epoch, instant)
    }
}

/// `instant` as nanoseconds after `epoch`, the pool's time (see [`Settings::now`]).
fn pool_time(epoch: Instant, instant: Instant) -> u64 {
    (instant.saturating_duration_since(epoch).as_nanos() as u64).max(1)
}

/// What carries a pool's calls over one connection: in exclusive mode a [`Direct`]
/// connection its one caller drives, in shared mode a pipelining [`Client`].
pub(crate) trait Link: Sized + Send + Sync + 'static {
    fn connect(addr: SocketAddr, config: ClientConfig) -> impl Future<Output = Result<Self, TransportError>> + Send;

    #[cfg(feature = "tls")]
    fn connect_tls(
        addr: SocketAddr,
        server_name: &str,
        tls: crate::tls::TlsConnector,
        config: ClientConfig,
    ) -> impl Future<Output = Result<Self, TransportError>> + Send;

    /// Whether it takes no new call (closed, or finishing the calls it has).
    fn is_closed(&self) -> bool;
}

/// Both kinds connect, and say they are closed, through inherent methods of the same names.
macro_rules! link {
    ($kind:ty) => {
        impl Link for $kind {
            fn connect(
                addr: SocketAddr,
                config: ClientConfig,
            ) -> impl Future<Output = Result<Self, TransportError>> + Send {
                <$kind>::connect(addr, config)
            }

            #[cfg(feature = "tls")]
            fn connect_tls(
                addr: SocketAddr,
                server_name: &str,
                tls: crate::tls::TlsConnector,
                config: ClientConfig,
            ) -> impl Future<Output = Result<Self, TransportError>> + Send {
                <$kind>::connect_tls(addr, server_name, tls, config)
            }

            fn is_closed(&self) -> bool {
                <$kind>::is_closed(self)
            }
        }
    };
}

link!(Client);
link!(Direct);

/// One open connection, counted while it lives; dropping it closes the socket (the pool
/// holds the only handle to it).
#[derive(Debug)]
pub(crate) struct Connection<L> {
    pub link: L,
    /// The pool's epoch: the times below are nanoseconds after it, as [`Settings::at`]
    /// counts them (a check and a return each read one such time).
    epoch: Instant,
    created: u64,
    /// When it last started or finished a call.
    last_used: AtomicU64,
    /// Takes no new calls (it saw a timeout); closed once its calls end.
    retired: AtomicBool,
    counters: Arc<Counters>,
}

impl<L: Link> Connection<L> {
    /// Opens a connection to `addr`, recording the outcome in the endpoint's health.
    pub async fn open(
        addr: SocketAddr,
        settings: &Settings,
        counters: &Arc<Counters>,
        health: &Health,
    ) -> Result<Connection<L>, TransportError> {
        // Boxed: the connect (and TLS handshake) future takes kilobytes, and unboxed it would
        // sit inside every call's future, whose checkout may open a connection, and be copied
        // into that future's box on every call (10,000 bytes a call; now the box is made
        // only when a connection opens).
        let config = settings.config.client.clone();
        let connect = async move {
            #[cfg(feature = "tls")]
            if let Some(tls) = &settings.config.tls {
                return L::connect_tls(addr, &tls.server_name, tls.config.clone().into(), config).await;
            }
            L::connect(addr, config).await
        };
        match Box::pin(connect).await {
            Ok(link) => {
                health.connected();
                Counters::bump(&counters.created);
                counters.open.fetch_add(1, Relaxed);
                let created = settings.now();
                let counters = counters.clone();
                Ok(Connection {
                    link,
                    epoch: settings.epoch,
                    created,
                    last_used: AtomicU64::new(created),
                    retired: AtomicBool::new(false),
                    counters,
                })
            }
            Err(e) => {
                Counters::bump(&counters.connect_failures);
                health.failed(&e, settings);
                Err(e)
            }
        }
    }

    /// Notes that it started or finished a call at `now`, and says when that was in the
    /// pool's time ([`Settings::at`]).
    pub fn touch(&self, now: Instant) -> u64 {
        let at = self.at(now);
        self.last_used.store(at, Relaxed);
        at
    }

    fn at(&self, instant: Instant) -> u64 {
        pool_time(self.epoch, instant)
    }

    pub fn retire(&self) {
        self.retired.store(true, Relaxed);
    }

    /// Why the connection must not take a new call, if it must not: closed (checked only when
    /// `test_closed`), retired, past its lifetime, or idle too long.
    pub fn unusable(&self, config: &PoolConfig, now: Instant, test_closed: bool) -> Option<&'static str> {
        if test_closed && self.link.is_closed() {
            return Some("closed by the peer or after an error");
        }
        if self.retired.load(Relaxed) {
            return Some("retired after a timeout");
        }
        let at = self.at(now);
        let age = Duration::from_nanos(at.saturating_sub(self.created));
        if config.max_lifetime.is_some_and(|limit| age >= limit) {
            return Some("past max_lifetime");
        }
        let idle = Duration::from_nanos(at.saturating_sub(self.last_used.load(Relaxed)));
        if config.idle_timeout.is_some_and(|limit| idle >= limit) {
            return Some("idle past idle_timeout");
        }
        None
    }
}

impl<L> Drop for Connection<L> {
    fn drop(&mut self) {
        self.counters.open.fetch_sub(1, Relaxed);
        Counters::bump(&self.counters.destroyed);
    }
}

/// Whether an endpoint takes calls: ejected after a refused connection, or after
/// `eject_after_failures` failed calls in a row, until a backoff runs out, doubled after
/// each further ejection.
#[derive(Debug, Default)]
pub(crate) struct Health {
    /// [`Settings::now`] when the ejection ends; 0 when not ejected. Read on every pick.
    ejected_until: AtomicU64,
    /// A call is trying the endpoint after its backoff (one at a time).
    probing: AtomicBool,
    /// Ejections since the pool started.
    ejections: super::metrics::Count,
    /// The ejection is for failed calls, not refused connections (read on picks).
    ejected_for_calls: AtomicBool,
    /// Calls failed in a row (read on every call's end, so outside the lock).
    consecutive: AtomicU32,
    state: Mutex<HealthState>,
}

#[derive(Debug, Default)]
struct HealthState {
    /// Ejections since the endpoint last served a call or accepted a connection: what the
    /// backoff doubles on.
    failures: u32,
    /// The ejection is for failed calls: a connection alone does not end it, a reply does.
    for_calls: bool,
    last_error: Option<String>,
}

impl Health {
    /// A connection was opened. It ends an ejection for refused connections; one for failed
    /// calls waits for a reply (a frozen server still accepts connections).
    pub fn connected(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.for_calls {
            return;
        }
        if self.ejected_until.swap(0, Relaxed) != 0 {
            tracing::debug!("endpoint accepts connections again");
        }
        state.failures = 0;
        state.last_error = None;
    }

    pub fn failed(&self, error: &TransportError, settings: &Settings) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.for_calls = false;
        self.ejected_for_calls.store(false, Relaxed);
        self.eject(&mut state, error.to_string(), settings);
        tracing::debug!(%error, "endpoint refused a connection; ejected");
    }

    /// The endpoint turned a connection away at its connection limit: ejected as if it had
    /// refused the connection, but only a reply readmits it (its connections still open).
    pub fn turned_away(&self, settings: &Settings) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.for_calls = true;
        self.ejected_for_calls.store(true, Relaxed);
        self.eject(&mut state, crate::server::AT_CAPACITY.to_string(), settings);
        tracing::debug!("endpoint at its connection limit; ejected");
    }

    /// A call on the endpoint got its reply: it is healthy.
    pub fn call_succeeded(&self) {
        // The common case, a healthy endpoint: no lock.
        if self.consecutive.load(Relaxed) == 0 && self.ejected_until.load(Relaxed) == 0 {
            return;
        }
        self.consecutive.store(0, Relaxed);
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.for_calls || state.failures > 0 {
            if self.ejected_until.swap(0, Relaxed) != 0 {
                tracing::info!("endpoint answers again; readmitted");
            }
            state.failures = 0;
            state.for_calls = false;
            self.ejected_for_calls.store(false, Relaxed);
            state.last_error = None;
        }
    }

    /// A call on the endpoint failed (timeout, transport or protocol error): past
    /// `eject_after_failures` in a row, or on a probe, the endpoint is ejected.
    pub fn call_failed(&self, error: &CallError, probe: bool, settings: &Settings) {
        let threshold = settings.config.eject_after_failures;
        if threshold == 0 {
            return;
        }
        let calls = self.consecutive.fetch_add(1, Relaxed).saturating_add(1);
        if calls >= threshold || probe {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            self.consecutive.store(0, Relaxed);
            state.for_calls = true;
            self.ejected_for_calls.store(true, Relaxed);
            self.eject(&mut state, format!("{calls} failed calls in a row, the last: {error}"), settings);
            tracing::warn!(%error, calls, probe, "endpoint fails its calls; ejected");
        }
    }

    fn eject(&self, state: &mut HealthState, why: String, settings: &Settings) {
        let config = &settings.config;
        state.failures = state.failures.saturating_add(1);
        let doublings = (state.failures - 1).min(20);
        let backoff = config.eject_backoff.saturating_mul(1 << doublings).min(config.max_eject_backoff);
        state.last_error = Some(why);
        self.ejected_until.store(settings.now().saturating_add(backoff.as_nanos() as u64), Relaxed);
        self.ejections.fetch_add(1, Relaxed);
    }

    /// Whether the endpoint is ejected for failing calls (it still accepts connections).
    pub fn ejected_for_calls(&self) -> bool {
        self.ejected_for_calls.load(Relaxed)
    }

    /// Ejections since the pool started.
    pub fn ejections(&self) -> u64 {
        self.ejections.load(Relaxed)
    }

    /// When the ejection ends (in [`Settings::now`] time), if the endpoint is ejected.
    pub fn ejected_until(&self) -> Option<u64> {
        Some(self.ejected_until.load(Relaxed)).filter(|&t| t != 0)
    }

    pub fn is_ejected(&self, now: u64) -> bool {
        self.ejected_until().is_some_and(|until| until > now)
    }

    /// Claims the one probe of an ejected endpoint; false when another call has it.
    pub fn start_probe(&self) -> bool {
        !self.probing.swap(true, Relaxed)
    }

    pub fn end_probe(&self) {
        self.probing.store(false, Relaxed);
    }

    pub fn is_probing(&self) -> bool {
        self.probing.load(Relaxed)
    }

    pub fn last_error(&self) -> Option<String> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).last_error.clone()
    }
}

/// Why a call got no connection from an endpoint.
pub(crate) enum CheckoutError {
    /// A connection could not be opened: nothing was sent, another endpoint may take the call.
    Connect(TransportError),
    /// Every connection stayed busy past `wait_timeout` (already the caller's error).
    Busy(CallError),
    /// The endpoint was removed from the pool meanwhile.
    Retired,
}

/// A connection lent to one call.
pub(crate) enum Lease {
    Exclusive(Leased),
    Shared(Arc<Connection<Client>>),
}

impl Lease {
    /// Sends `call` on the lent connection, as [`Client::send`] does.
    pub async fn send(&mut self, call: &Call) -> Result<Option<Reply>, CallError> {
        match self {
            Lease::Exclusive(leased) => leased.send(call).await,
            // Boxed: the pipelining client's call future takes most of a kilobyte, which
            // inline would make every exclusive call's future (boxed once per call) too
            // large for the allocator's fast sizes.
            Lease::Shared(conn) => Box::pin(conn.link.send(call)).await,
        }
    }

    /// Ends the loan after the call's outcome: a connection that saw a timeout, or a
    /// transport or protocol error, is discarded, never handed out again.
    pub fn finish<T>(self, outcome: &Result<T, CallError>) {
        let spoiled = spoils(outcome);
        match self {
            Lease::Exclusive(leased) => leased.finish(spoiled),
            Lease::Shared(conn) => {
                if spoiled {
                    conn.retire();
                } else {
                    conn.touch(Instant::now());
                }
            }
        }
    }
}

/// Whether a call's outcome counts against its endpoint's health: `Some(true)` a failure,
/// `Some(false)` a reply, `None` neither (never sent, refused before encoding, no connection).
pub(crate) fn health_outcome<T>(outcome: &Result<T, CallError>) -> Option<bool> {
    match outcome {
        // Turned away unrun at the connection limit: counted as a refused connection instead.
        Err(CallError::Application(e, ..)) if is_at_capacity(e) => None,
        Ok(_) | Err(CallError::Application(..) | CallError::Exception(_)) => Some(false),
        Err(CallError::Timeout(..) | CallError::Protocol(..)) => Some(true),
        Err(CallError::Transport(e, ..)) => (e.phase() != Phase::Encode).then_some(true),
        Err(_) => None,
    }
}

/// Whether a call's outcome means its connection can't be trusted with another call.
fn spoils<T>(outcome: &Result<T, CallError>) -> bool {
    match outcome {
        Ok(_) => false,
        // A late reply may still come, and the peer may be stuck.
        Err(CallError::Timeout(..)) => true,
        // Refused before anything was written (too large to send): the connection is fine.
        Err(CallError::Transport(e, ..)) => e.phase() != Phase::Encode,
        Err(CallError::Protocol(..)) => true,
        // Closed or closing before the call's turn.
        Err(CallError::NotSent(..)) => true,
        // The server closes it after this answer.
        Err(CallError::Application(e, ..)) if is_at_capacity(e) => true,
        // Replies: the connection did its job.
        Err(CallError::Application(..) | CallError::Exception(_) | CallError::Unavailable(..)) => false,
        // Not a connection's error (a layer's above one): nothing is known of the connection.
        Err(CallError::Layer(..)) => true,
    }
}

enum Connections {
    Exclusive(Exclusive),
    Shared(SharedConnections),
}

/// One address of the pool and everything kept for it.
pub(crate) struct Endpoint {
    pub addr: SocketAddr,
    pub counters: Arc<Counters>,
    pub health: Arc<Health>,
    connections: Connections,
}

impl Endpoint {
    pub fn new(addr: SocketAddr, settings: &Arc<Settings>) -> Endpoint {
        #[cfg(not(feature = "metrics"))]
        let (counters, health) = (Arc::new(Counters::default()), Arc::new(Health::default()));
        #[cfg(feature = "metrics")]
        let (counters, health) = {
            let labels = super::metrics::labels(addr, &settings.config.metrics_labels);
            let ejections = super::metrics::Count::exported(crate::metrics_names::POOL_EJECTIONS_TOTAL, &labels);
            (Arc::new(Counters::exported(&labels)), Arc::new(Health { ejections, ..Health::default() }))
        };
        let connections = match settings.config.mode {
            Mode::Exclusive => {
                Connections::Exclusive(Exclusive::new(addr, settings.clone(), counters.clone(), health.clone()))
            }
            Mode::Shared { connections } => Connections::Shared(SharedConnections::new(
                addr,
                connections,
                settings.clone(),
                counters.clone(),
                health.clone(),
            )),
        };
        Endpoint { addr, counters, health, connections }
    }

    /// A connection for one call: an idle or new one (exclusive), or the least busy of the
    /// shared ones.
    pub async fn checkout(&self) -> Result<Lease, CheckoutError> {
        match &self.connections {
            Connections::Exclusive(pool) => pool.checkout().await.map(Lease::Exclusive),
            Connections::Shared(shared) => shared.checkout().await.map(Lease::Shared),
        }
    }

    /// Closes idle connections that are broken, expired or beyond the idle caps (at most
    /// `over_global` more for the global cap); returns how many.
    pub fn prune(&self, over_global: usize) -> usize {
        match &self.connections {
            Connections::Exclusive(pool) => pool.prune(over_global),
            Connections::Shared(shared) => shared.prune(),
        }
    }

    /// Opens connections until `min_idle` are idle; returns how many opened and whether an
    /// attempt failed.
    pub async fn replenish(&self) -> (usize, bool) {
        match &self.connections {
            Connections::Exclusive(pool) => pool.replenish().await,
            Connections::Shared(shared) => shared.replenish().await,
        }
    }

    /// Stops taking calls (the endpoint left the pool): idle connections close now, busy
    /// ones when their calls end.
    pub fn retire(&self) {
        match &self.connections {
            Connections::Exclusive(pool) => pool.retire(),
            Connections::Shared(shared) => shared.retire(),
        }
    }

    pub fn metrics(&self, now: u64) -> EndpointMetrics {
        let c = &self.counters;
        let (active, idle) = match &self.connections {
            Connections::Exclusive(_) => (c.checked_out.load(Relaxed), c.idle.load(Relaxed)),
            Connections::Shared(shared) => shared.active_idle(),
        };
        EndpointMetrics {
            addr: self.addr,
            active,
            idle,
            waiting: c.waiting.load(Relaxed),
            in_flight: c.in_flight.load(Relaxed),
            created: c.created.load(Relaxed),
            destroyed: c.destroyed.load(Relaxed),
            timeouts: c.timeouts.load(Relaxed),
            connect_failures: c.connect_failures.load(Relaxed),
            ejected: self.health.is_ejected(now),
            ejections: self.health.ejections(),
        }
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint").field("addr", &self.addr).field("health", &self.health).finish_non_exhaustive()
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        // The idle connections go with it: take them out of the global idle count.
        self.retire();
    }
}
