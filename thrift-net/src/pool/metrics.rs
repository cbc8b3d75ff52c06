//! Counters per endpoint: plain atomics the call path bumps and [`Pool::metrics`](super::Pool::metrics)
//! reads.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
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

/// The live counters of one endpoint.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Connections alive (a [`Connection`](super::endpoint::Connection) not yet dropped).
    pub open: AtomicUsize,
    /// Exclusive mode: connections checked out.
    pub checked_out: AtomicUsize,
    /// Exclusive mode: connections in the idle queue.
    pub idle: AtomicUsize,
    pub waiting: AtomicUsize,
    pub in_flight: AtomicUsize,
    pub created: AtomicU64,
    pub destroyed: AtomicU64,
    pub timeouts: AtomicU64,
    pub connect_failures: AtomicU64,
}

impl Counters {
    pub fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }

    /// Counts one more in `counter` until the guard drops.
    pub fn hold(self: &Arc<Self>, counter: fn(&Counters) -> &AtomicUsize) -> Held {
        counter(self).fetch_add(1, Relaxed);
        Held { counters: self.clone(), counter }
    }
}

/// One unit of a gauge, given back on drop (whatever way the future holding it ends).
pub(crate) struct Held {
    counters: Arc<Counters>,
    counter: fn(&Counters) -> &AtomicUsize,
}

impl Drop for Held {
    fn drop(&mut self) {
        (self.counter)(&self.counters).fetch_sub(1, Relaxed);
    }
}
