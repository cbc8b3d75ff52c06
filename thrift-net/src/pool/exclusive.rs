//! Exclusive mode: the connections of one endpoint, each lent to one call at a time.
//!
//! A semaphore of `max_total` permits bounds the checkouts (a call holds one from checkout to
//! return, and waits for one up to `wait_timeout`, in turn); the idle connections wait in a
//! queue under a mutex, handed out most recently returned first (or oldest first) after a
//! health check. A connection is opened only when none is idle, so open connections never
//! outnumber `max_total` either. On top: discard instead of return after an error, the idle
//! caps, idle and lifetime expiry, and pre-warming.
//!
//! Written here rather than on deadpool, which this module used before: measured under
//! callgrind on the RPC benchmark, deadpool's checkout and return took about 1,600 of the
//! 10,800 instructions of a whole pool call (its boxed futures, hooks, per-object metrics with
//! a clock read, and recycling through an async trait), where this takes about 800, the health
//! check included. The rules are the ones deadpool had (semaphore-bounded, fair waits, LIFO or
//! FIFO), and the pool tests (`pool_knobs.rs`, `pool_faults.rs`, `pool_load.rs`) check each.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, TryAcquireError};

use crate::channel::{Call, CallError, CallSite, Reply, Unavailable};
use crate::client::Direct;
use crate::error::TransportError;

use super::endpoint::{CheckoutError, Connection, Health, Settings};
use super::metrics::Counters;

/// The exclusive-mode connections of one endpoint.
pub(crate) struct Exclusive {
    inner: Arc<Inner>,
}

struct Inner {
    addr: SocketAddr,
    settings: Arc<Settings>,
    counters: Arc<Counters>,
    health: Arc<Health>,
    /// One per checkout at once (`max_total`); closed when the endpoint leaves the pool.
    permits: Semaphore,
    idle: Mutex<Idle>,
    /// [`Settings::now`] of the last lazy prune.
    last_prune: AtomicU64,
    /// Nanoseconds between lazy prunes: half the shorter of `idle_timeout` and
    /// `max_lifetime`; `None` when neither is set.
    prune_every: Option<u64>,
}

/// The idle connections, oldest return first.
#[derive(Default)]
struct Idle {
    queue: VecDeque<Connection<Direct>>,
    /// The endpoint left the pool: nothing returns to the queue any more.
    closed: bool,
}

impl Exclusive {
    pub fn new(addr: SocketAddr, settings: Arc<Settings>, counters: Arc<Counters>, health: Arc<Health>) -> Self {
        let config = &settings.config;
        let permits = Semaphore::new(config.max_total.min(Semaphore::MAX_PERMITS));
        let prune_every = [config.idle_timeout, config.max_lifetime].into_iter().flatten().min();
        let prune_every = prune_every.map(|every| (every / 2).max(Duration::from_millis(1)).as_nanos() as u64);
        let inner = Inner {
            addr,
            settings,
            counters,
            health,
            permits,
            idle: Mutex::new(Idle::default()),
            last_prune: AtomicU64::new(0),
            prune_every,
        };
        Exclusive { inner: Arc::new(inner) }
    }

    /// A connection for one call: an idle one that passes its check, else a new one; when
    /// `max_total` are checked out, waits (in turn) up to `wait_timeout` for one to return.
    pub async fn checkout(&self) -> Result<Leased, CheckoutError> {
        let inner = &self.inner;
        // First without waiting, which needs no timer: the common case, a permit free.
        match inner.permits.try_acquire() {
            Ok(permit) => permit.forget(),
            Err(TryAcquireError::Closed) => return Err(CheckoutError::Retired),
            // Boxed: only a call that waits carries the wait's timer.
            Err(TryAcquireError::NoPermits) => Box::pin(self.wait_for_permit()).await?,
        }
        // From here the lease gives the permit back, however the checkout ends. Spoiled until
        // the call says otherwise: a call dropped midway discards the connection.
        let mut leased = Leased::new(inner.clone(), true);
        match inner.take_idle() {
            Some((conn, now)) => {
                leased.conn = Some(conn);
                leased.checked_out_at = Some(now);
            }
            None => leased.conn = Some(inner.open().await.map_err(CheckoutError::Connect)?),
        }
        Ok(leased)
    }

    /// Waits for a permit up to `wait_timeout`, counted as waiting.
    async fn wait_for_permit(&self) -> Result<(), CheckoutError> {
        let inner = &self.inner;
        let _waiting = inner.counters.hold(|c| &c.waiting);
        let config = &inner.settings.config;
        let acquired = match config.wait_timeout {
            Some(limit) => tokio::time::timeout(limit, inner.permits.acquire()).await,
            None => Ok(inner.permits.acquire().await),
        };
        match acquired {
            Ok(Ok(permit)) => {
                permit.forget();
                Ok(())
            }
            Ok(Err(_closed)) => Err(CheckoutError::Retired),
            Err(_elapsed) => {
                Counters::bump(&inner.counters.timeouts);
                let waited = config.wait_timeout.unwrap_or_default();
                let why = Unavailable::Busy { endpoint: inner.addr, waited, in_use: Some(config.max_total) };
                Err(CheckoutError::Busy(CallError::Unavailable(why, CallSite::default())))
            }
        }
    }

    /// Drops idle connections that are closed or expired, the least recently used beyond
    /// `max_idle`, and `over_global` more for the global cap.
    pub fn prune(&self, over_global: usize) -> usize {
        self.inner.prune(over_global)
    }

    /// Opens connections until `min_idle` are idle, without waiting for busy ones; returns
    /// how many opened and whether an attempt failed.
    pub async fn replenish(&self) -> (usize, bool) {
        let inner = &self.inner;
        let missing = inner.settings.config.min_idle.saturating_sub(inner.counters.idle.load(Relaxed));
        let mut opened = 0;
        for _ in 0..missing {
            let Ok(permit) = inner.permits.try_acquire() else { break };
            permit.forget();
            // Returned to the idle queue when dropped, as a call's connection would be.
            let mut leased = Leased::new(inner.clone(), false);
            match inner.open().await {
                Ok(conn) => leased.conn = Some(conn),
                Err(_) => return (opened, true),
            }
            opened += 1;
        }
        (opened, false)
    }

    /// Takes no more calls: idle connections close now, busy ones when their calls end.
    pub fn retire(&self) {
        let inner = &self.inner;
        inner.permits.close();
        let closing = {
            let mut idle = inner.lock_idle();
            idle.closed = true;
            std::mem::take(&mut idle.queue)
        };
        inner.leave_idle(closing.len());
    }
}

impl Inner {
    /// A new connection to the endpoint (its outcome counted in the endpoint's health).
    async fn open(&self) -> Result<Connection<Direct>, TransportError> {
        Connection::open(self.addr, &self.settings, &self.counters, &self.health).await
    }

    fn lock_idle(&self) -> MutexGuard<'_, Idle> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next idle connection that may take a call, and when it was looked at; those that
    /// may not close on the way.
    fn take_idle(&self) -> Option<(Connection<Direct>, Instant)> {
        let config = &self.settings.config;
        let mut now = None;
        loop {
            let conn = {
                let mut idle = self.lock_idle();
                if config.lifo {
                    idle.queue.pop_back()
                } else {
                    idle.queue.pop_front()
                }
            }?;
            self.leave_idle(1);
            // No longer idle, whatever the check says (a failed one closes as it drops).
            let now = *now.get_or_insert_with(Instant::now);
            match conn.unusable(config, now, config.test_on_checkout) {
                None => return Some((conn, now)),
                Some(why) => tracing::debug!(endpoint = %self.addr, why, "idle connection closed at checkout"),
            }
        }
    }

    /// Puts a connection whose call went well back in the idle queue, if the caps allow.
    fn give_back(&self, conn: Connection<Direct>) {
        if conn.link.is_broken() || !self.enter_idle() {
            return;
        }
        // One look at the clock for both.
        let now = conn.touch(Instant::now());
        let refused = {
            let mut idle = self.lock_idle();
            match idle.closed {
                true => Some(conn),
                false => {
                    idle.queue.push_back(conn);
                    None
                }
            }
        };
        if let Some(conn) = refused {
            self.leave_idle(1);
            drop(conn);
        } else if self.prune_due(now) {
            self.prune(0);
        }
    }

    /// Counts a returned connection as idle if the caps allow; false when it must be closed.
    fn enter_idle(&self) -> bool {
        let config = &self.settings.config;
        if self.counters.idle.fetch_add(1, Relaxed) >= config.idle_cap() {
            self.counters.idle.fetch_sub(1, Relaxed);
            return false;
        }
        if let Some(cap) = config.max_idle_global {
            if self.settings.global_idle.fetch_add(1, Relaxed) >= cap {
                self.leave_idle(1);
                return false;
            }
        }
        true
    }

    fn leave_idle(&self, n: usize) {
        if n > 0 {
            self.counters.idle.fetch_sub(n, Relaxed);
            if self.settings.config.max_idle_global.is_some() {
                self.settings.global_idle.fetch_sub(n, Relaxed);
            }
        }
    }

    /// Whether a lazy prune is due at `now` (the pool's time): idle and lifetime expiry are
    /// looked at, at most, twice per the shorter of the two, by whichever return comes first.
    fn prune_due(&self, now: u64) -> bool {
        let Some(every) = self.prune_every else { return false };
        let last = self.last_prune.load(Relaxed);
        now.saturating_sub(last) >= every && self.last_prune.compare_exchange(last, now, Relaxed, Relaxed).is_ok()
    }

    /// Drops idle connections that are closed or expired, the least recently used beyond
    /// `max_idle`, and `over_global` more for the global cap; returns how many.
    fn prune(&self, over_global: usize) -> usize {
        let config = &self.settings.config;
        let now = Instant::now();
        // Closed after the lock is let go: closing a socket deregisters it from the runtime.
        let closing: Vec<Connection<Direct>> = {
            let mut idle = self.lock_idle();
            let mut excess = idle.queue.len().saturating_sub(config.idle_cap()) + over_global;
            let mut closing = Vec::new();
            // Oldest return first, so the excess goes from the front.
            let mut kept = VecDeque::with_capacity(idle.queue.len());
            for conn in idle.queue.drain(..) {
                match excess > 0 || conn.unusable(config, now, true).is_some() {
                    true => closing.push(conn),
                    false => kept.push_back(conn),
                }
                excess = excess.saturating_sub(1);
            }
            idle.queue = kept;
            closing
        };
        let closed = closing.len();
        drop(closing);
        self.leave_idle(closed);
        closed
    }
}

/// A connection checked out for one call, and the permit it holds: both given back on drop
/// (the connection to the idle queue unless the call spoiled it or never finished, its
/// future dropped mid-call).
pub(crate) struct Leased {
    inner: Arc<Inner>,
    conn: Option<Connection<Direct>>,
    /// When an idle connection was checked out: its call's timeout counts from then.
    checked_out_at: Option<Instant>,
    spoiled: bool,
}

impl Leased {
    /// Counted as checked out until dropped.
    fn new(inner: Arc<Inner>, spoiled: bool) -> Leased {
        inner.counters.checked_out.fetch_add(1, Relaxed);
        Leased { inner, conn: None, checked_out_at: None, spoiled }
    }

    /// Sends `call` on the connection, as [`Direct::send`] does.
    pub async fn send(&mut self, call: &Call) -> Result<Option<Reply>, CallError> {
        match &mut self.conn {
            Some(conn) => conn.link.send(call, self.checked_out_at).await,
            None => unreachable!("a lease handed out holds its connection until dropped"),
        }
    }

    pub fn finish(mut self, spoiled: bool) {
        self.spoiled = spoiled;
    }
}

impl Drop for Leased {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if !self.spoiled {
                self.inner.give_back(conn);
            }
        }
        // After the connection is back, so that a caller woken by the permit finds it idle.
        self.inner.permits.add_permits(1);
        self.inner.counters.checked_out.fetch_sub(1, Relaxed);
    }
}
