//! One endpoint: its connections (an exclusive pool or a few shared ones), its health (ejected
//! after refusing a connection, retried after a backoff), and its counters.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::channel::CallError;
use crate::client::Client;
use crate::error::{Phase, TransportError};

use super::config::{Mode, PoolConfig};
use super::exclusive::{Exclusive, Leased};
use super::metrics::{Counters, EndpointMetrics};
use super::shared::SharedConnections;

/// What every endpoint of one pool shares: the settings, a clock origin, and the idle count
/// over all endpoints (for `max_idle_global`).
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
        (self.epoch.elapsed().as_nanos() as u64).max(1)
    }
}

/// One open connection, counted while it lives; dropping it closes the socket.
#[derive(Debug)]
pub(crate) struct Connection {
    pub client: Client,
    created: Instant,
    /// Nanoseconds after `created` when it last started or finished a call.
    last_used: AtomicU64,
    /// Takes no new calls (it saw a timeout); closed once its calls end.
    retired: AtomicBool,
    counters: Arc<Counters>,
}

impl Connection {
    /// Opens a connection to `addr`, recording the outcome in the endpoint's health.
    pub async fn open(
        addr: SocketAddr,
        settings: &Settings,
        counters: &Arc<Counters>,
        health: &Health,
    ) -> Result<Connection, TransportError> {
        match Client::connect(addr, settings.config.client.clone()).await {
            Ok(client) => {
                health.connected();
                Counters::bump(&counters.created);
                counters.open.fetch_add(1, Relaxed);
                let created = Instant::now();
                let counters = counters.clone();
                Ok(Connection {
                    client,
                    created,
                    last_used: AtomicU64::new(0),
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

    pub fn touch(&self) {
        self.last_used.store(self.created.elapsed().as_nanos() as u64, Relaxed);
    }

    pub fn retire(&self) {
        self.retired.store(true, Relaxed);
    }

    /// Why the connection must not take a new call, if it must not: closed (checked only when
    /// `test_closed`), retired, past its lifetime, or idle too long.
    pub fn unusable(&self, config: &PoolConfig, now: Instant, test_closed: bool) -> Option<&'static str> {
        if test_closed && self.client.is_closed() {
            return Some("closed by the peer or after an error");
        }
        if self.retired.load(Relaxed) {
            return Some("retired after a timeout");
        }
        let age = now.saturating_duration_since(self.created);
        if config.max_lifetime.is_some_and(|limit| age >= limit) {
            return Some("past max_lifetime");
        }
        let idle = age.saturating_sub(Duration::from_nanos(self.last_used.load(Relaxed)));
        if config.idle_timeout.is_some_and(|limit| idle >= limit) {
            return Some("idle past idle_timeout");
        }
        None
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.client.close();
        self.counters.open.fetch_sub(1, Relaxed);
        Counters::bump(&self.counters.destroyed);
    }
}

/// Whether an endpoint takes calls: ejected after a refused connection until a backoff runs
/// out, doubled after each further refusal.
#[derive(Debug, Default)]
pub(crate) struct Health {
    /// [`Settings::now`] when the ejection ends; 0 when not ejected. Read on every pick.
    ejected_until: AtomicU64,
    /// A call is trying the endpoint after its backoff (one at a time).
    probing: AtomicBool,
    state: Mutex<HealthState>,
}

#[derive(Debug, Default)]
struct HealthState {
    failures: u32,
    last_error: Option<String>,
}

impl Health {
    pub fn connected(&self) {
        if self.ejected_until.swap(0, Relaxed) != 0 {
            tracing::debug!("endpoint accepts connections again");
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.failures = 0;
        state.last_error = None;
    }

    pub fn failed(&self, error: &TransportError, settings: &Settings) {
        let config = &settings.config;
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.failures = state.failures.saturating_add(1);
        let doublings = (state.failures - 1).min(20);
        let backoff = config.eject_backoff.saturating_mul(1 << doublings).min(config.max_eject_backoff);
        state.last_error = Some(error.to_string());
        self.ejected_until.store(settings.now().saturating_add(backoff.as_nanos() as u64), Relaxed);
        tracing::debug!(%error, ?backoff, "endpoint refused a connection; ejected");
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
    Shared(Arc<Connection>),
}

impl Lease {
    pub fn client(&self) -> &Client {
        match self {
            Lease::Exclusive(leased) => leased.client(),
            Lease::Shared(conn) => &conn.client,
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
                    conn.touch();
                }
            }
        }
    }
}

/// Whether a call's outcome means its connection can't be trusted with another call.
fn spoils<T>(outcome: &Result<T, CallError>) -> bool {
    match outcome {
        Ok(_) => false,
        // A late reply may still come, and the peer may be stuck.
        Err(CallError::Timeout(_)) => true,
        // Refused before anything was written (too large to send): the connection is fine.
        Err(CallError::Transport(e)) => e.phase() != Phase::Encode,
        Err(CallError::Protocol(_)) => true,
        // Replies: the connection did its job.
        Err(CallError::Application(_) | CallError::Exception(_) | CallError::Unavailable(_)) => false,
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
        let counters = Arc::new(Counters::default());
        let health = Arc::new(Health::default());
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
