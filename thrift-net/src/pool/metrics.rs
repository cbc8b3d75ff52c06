//! Counters per endpoint: plain atomics the call path bumps and [`Pool::metrics`](super::Pool::metrics)
//! reads.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, Ordering::Relaxed};
use std::sync::Arc;

/// A snapshot of one endpoint's connections and calls, from
/// [`Pool::metrics`](super::Pool::metrics).
///
/// Each field is read on its own, so a snapshot taken while calls run may be a few
/// increments apart between fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EndpointMetrics {
    /// The endpoint's address.
    pub addr: SocketAddr,
    /// Connections carrying a call now (exclusive mode: checked out).
    pub active: usize,
    /// Open connections carrying no call.
    pub idle: usize,
    /// Calls waiting for a connection: for a busy pool to free one, or for one being opened.
    pub waiting: usize,
    /// Calls routed to this endpoint and not finished yet (what power of two choices
    /// compares).
    pub in_flight: usize,
    /// Connections opened since the pool started.
    pub created: u64,
    /// Connections closed since the pool started: broken, discarded after an error or a
    /// timeout, expired, or beyond an idle cap.
    pub destroyed: u64,
    /// Calls that timed out: waiting for a connection (`wait_timeout`) or for their reply
    /// (the client's `call_timeout`).
    pub timeouts: u64,
    /// Connection attempts that failed (refused, unreachable, or past `connect_timeout`).
    pub connect_failures: u64,
    /// Whether the endpoint is ejected now: it refused a connection or failed
    /// `eject_after_failures` calls in a row, and its backoff has not run out.
    pub ejected: bool,
    /// Times the endpoint was ejected since the pool started.
    pub ejections: u64,
}

/// A live gauge: an atomic the snapshot reads and, with the `metrics` feature, the facade
/// gauge it moves in step. Its methods mirror the atomic's, so call sites read as before.
#[derive(Debug, Default)]
pub(crate) struct Level {
    value: AtomicUsize,
    #[cfg(feature = "metrics")]
    export: Option<metrics::Gauge>,
}

impl Level {
    pub fn fetch_add(&self, n: usize, order: Ordering) -> usize {
        #[cfg(feature = "metrics")]
        if let Some(g) = &self.export {
            g.increment(n as f64);
        }
        self.value.fetch_add(n, order)
    }

    pub fn fetch_sub(&self, n: usize, order: Ordering) -> usize {
        #[cfg(feature = "metrics")]
        if let Some(g) = &self.export {
            g.decrement(n as f64);
        }
        self.value.fetch_sub(n, order)
    }

    pub fn load(&self, order: Ordering) -> usize {
        self.value.load(order)
    }
}

/// A live counter: an atomic and, with the `metrics` feature, the facade counter it moves
/// in step.
#[derive(Debug, Default)]
pub(crate) struct Count {
    value: AtomicU64,
    #[cfg(feature = "metrics")]
    export: Option<metrics::Counter>,
}

impl Count {
    /// A counter registered with the facade as `name` under `labels`.
    #[cfg(feature = "metrics")]
    pub fn exported(name: &'static str, labels: &[metrics::Label]) -> Self {
        Count { value: AtomicU64::new(0), export: Some(metrics::counter!(name, labels.to_vec())) }
    }

    pub fn fetch_add(&self, n: u64, order: Ordering) -> u64 {
        #[cfg(feature = "metrics")]
        if let Some(c) = &self.export {
            c.increment(n);
        }
        self.value.fetch_add(n, order)
    }

    pub fn load(&self, order: Ordering) -> u64 {
        self.value.load(order)
    }
}

#[cfg(feature = "metrics")]
impl Level {
    fn exported(name: &'static str, labels: &[metrics::Label]) -> Self {
        Level { value: AtomicUsize::new(0), export: Some(metrics::gauge!(name, labels.to_vec())) }
    }
}

/// The facade labels of one endpoint: `endpoint` and the pool's own.
#[cfg(feature = "metrics")]
pub(crate) fn labels(addr: SocketAddr, pool: &[(String, String)]) -> Vec<metrics::Label> {
    let mut labels = vec![metrics::Label::new("endpoint", addr.to_string())];
    labels.extend(pool.iter().map(|(k, v)| metrics::Label::new(k.clone(), v.clone())));
    labels
}

/// The live counters of one endpoint.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Connections alive (a [`Connection`](super::endpoint::Connection) not yet dropped).
    pub open: Level,
    /// Exclusive mode: connections checked out.
    pub checked_out: Level,
    /// Exclusive mode: connections in the idle queue.
    pub idle: Level,
    pub waiting: Level,
    pub in_flight: Level,
    pub created: Count,
    pub destroyed: Count,
    pub timeouts: Count,
    pub connect_failures: Count,
}

impl Counters {
    /// The counters of the endpoint at `addr`, registered with the facade under its labels.
    #[cfg(feature = "metrics")]
    pub fn exported(labels: &[metrics::Label]) -> Self {
        use crate::metrics_names as n;
        Counters {
            open: Level::exported(n::POOL_CONNECTIONS_OPEN, labels),
            checked_out: Level::exported(n::POOL_CONNECTIONS_ACTIVE, labels),
            idle: Level::exported(n::POOL_CONNECTIONS_IDLE, labels),
            waiting: Level::exported(n::POOL_CALLS_WAITING, labels),
            in_flight: Level::exported(n::POOL_CALLS_IN_FLIGHT, labels),
            created: Count::exported(n::POOL_CONNECTIONS_CREATED_TOTAL, labels),
            destroyed: Count::exported(n::POOL_CONNECTIONS_DESTROYED_TOTAL, labels),
            timeouts: Count::exported(n::POOL_TIMEOUTS_TOTAL, labels),
            connect_failures: Count::exported(n::POOL_CONNECT_FAILURES_TOTAL, labels),
        }
    }

    pub fn bump(counter: &Count) {
        counter.fetch_add(1, Relaxed);
    }

    /// Counts one more in `counter` until the guard drops.
    pub fn hold(self: &Arc<Self>, counter: fn(&Counters) -> &Level) -> Held {
        counter(self).fetch_add(1, Relaxed);
        Held { counters: self.clone(), counter }
    }
}

/// One unit of a gauge, given back on drop (whatever way the future holding it ends).
pub(crate) struct Held {
    counters: Arc<Counters>,
    counter: fn(&Counters) -> &Level,
}

impl Drop for Held {
    fn drop(&mut self) {
        (self.counter)(&self.counters).fetch_sub(1, Relaxed);
    }
}
