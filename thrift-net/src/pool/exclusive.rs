//! Exclusive mode: a deadpool pool per endpoint. deadpool bounds the connections with a
//! semaphore (`max_total`), waits for one up to `wait_timeout`, hands out idle ones LIFO after
//! a health check ([`Manager::recycle`]), and takes one back when its guard drops. This
//! module adds what commons-pool2 users expect on top: discard instead of return after an
//! error, the idle caps, idle and lifetime expiry, and pre-warming.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool::managed::{
    self, Metrics, Object, PoolError, QueueMode, RecycleError, RecycleResult, TimeoutType, Timeouts,
};
use deadpool::Runtime;

use crate::channel::{CallError, CallSite, Unavailable};
use crate::client::Direct;
use crate::error::TransportError;

use super::endpoint::{CheckoutError, Connection, Health, Settings};
use super::metrics::{Counters, Held};

/// Opens and checks the connections of one endpoint for deadpool.
pub(crate) struct Connector {
    addr: SocketAddr,
    settings: Arc<Settings>,
    counters: Arc<Counters>,
    health: Arc<Health>,
    /// [`Settings::now`] of the last lazy prune.
    last_prune: AtomicU64,
}

impl managed::Manager for Connector {
    type Type = Connection<Direct>;
    type Error = TransportError;

    async fn create(&self) -> Result<Connection<Direct>, TransportError> {
        Connection::open(self.addr, &self.settings, &self.counters, &self.health).await
    }

    /// Called for each idle connection deadpool takes out of its queue to hand out: it is
    /// no longer idle, whatever the check says (a failed one is dropped, closing it).
    async fn recycle(&self, conn: &mut Connection<Direct>, _: &Metrics) -> RecycleResult<TransportError> {
        self.leave_idle(1);
        let test = self.settings.config.test_on_checkout;
        match conn.unusable(&self.settings.config, Instant::now(), test) {
            Some(why) => Err(RecycleError::message(why)),
            None => Ok(()),
        }
    }
}

impl Connector {
    /// Counts a returned connection as idle if the caps allow; false when it must be closed.
    fn enter_idle(&self) -> bool {
        let config = &self.settings.config;
        if self.counters.idle.fetch_add(1, Relaxed) >= config.idle_cap() {
            self.counters.idle.fetch_sub(1, Relaxed);
            return false;
        }
        let global = self.settings.global_idle.fetch_add(1, Relaxed);
        if config.max_idle_global.is_some_and(|cap| global >= cap) {
            self.leave_idle(1);
            return false;
        }
        true
    }

    fn leave_idle(&self, n: usize) {
        self.counters.idle.fetch_sub(n, Relaxed);
        self.settings.global_idle.fetch_sub(n, Relaxed);
    }

    /// Whether a lazy prune is due at `now`: idle and lifetime expiry are looked at, at
    /// most, twice per the shorter of the two, by whichever return comes first.
    fn prune_due(&self, now: Instant) -> bool {
        let config = &self.settings.config;
        let Some(every) = [config.idle_timeout, config.max_lifetime].into_iter().flatten().min() else {
            return false;
        };
        let every = (every / 2).max(Duration::from_millis(1)).as_nanos() as u64;
        let now = self.settings.at(now);
        let last = self.last_prune.load(Relaxed);
        now.saturating_sub(last) >= every && self.last_prune.compare_exchange(last, now, Relaxed, Relaxed).is_ok()
    }
}

type Pool = managed::Pool<Connector>;

/// A checkout that takes a connection only if one is idle or may be opened now.
const NO_WAIT: Timeouts = Timeouts { wait: Some(Duration::ZERO), create: None, recycle: None };

/// The exclusive-mode connections of one endpoint.
pub(crate) struct Exclusive {
    pool: Pool,
}

impl Exclusive {
    pub fn new(addr: SocketAddr, settings: Arc<Settings>, counters: Arc<Counters>, health: Arc<Health>) -> Self {
        let config = &settings.config;
        let (max_total, wait, lifo) = (config.max_total, config.wait_timeout, config.lifo);
        let connector = Connector { addr, settings, counters, health, last_prune: AtomicU64::new(0) };
        let pool = Pool::builder(connector)
            .max_size(max_total)
            .queue_mode(if lifo { QueueMode::Lifo } else { QueueMode::Fifo })
            // The connect timeout is the client's own (a clearer error than deadpool's).
            .timeouts(Timeouts { wait, create: None, recycle: None })
            .runtime(Runtime::Tokio1)
            .build();
        // `build` fails only for a timeout without a runtime, and the runtime is set.
        Exclusive { pool: pool.unwrap_or_else(|e| unreachable!("deadpool refused its settings: {e}")) }
    }

    pub async fn checkout(&self) -> Result<Leased, CheckoutError> {
        let connector = self.pool.manager();
        let counters = &connector.counters;
        // First without waiting, which needs no timer: the common case, a connection idle or
        // room for a new one. Only then, counted as waiting, for up to `wait_timeout`.
        // (Boxed: deadpool's future takes most of a kilobyte, and the call's would otherwise
        // outgrow the allocator's fast sizes.)
        let got = match Box::pin(self.pool.timeout_get(&NO_WAIT)).await {
            Err(PoolError::Timeout(TimeoutType::Wait)) => {
                let _waiting = counters.hold(|c| &c.waiting);
                Box::pin(self.pool.get()).await
            }
            got => got,
        };
        match got {
            // Spoiled until the call says otherwise: a call dropped midway discards it.
            Ok(object) => {
                Ok(Leased { object: Some(object), spoiled: true, _active: counters.hold(|c| &c.checked_out) })
            }
            Err(PoolError::Backend(e)) => Err(CheckoutError::Connect(e)),
            Err(PoolError::Timeout(TimeoutType::Wait)) => {
                Counters::bump(&counters.timeouts);
                let config = &connector.settings.config;
                let waited = config.wait_timeout.unwrap_or_default();
                let why = Unavailable::Busy { endpoint: connector.addr, waited, in_use: Some(config.max_total) };
                Err(CheckoutError::Busy(CallError::Unavailable(why, CallSite::default())))
            }
            Err(PoolError::Closed) => Err(CheckoutError::Retired),
            // Neither a create or recycle timeout nor a hook is configured.
            Err(other) => {
                let why = Unavailable::Pool { endpoint: connector.addr, error: other.to_string() };
                Err(CheckoutError::Busy(CallError::Unavailable(why, CallSite::default())))
            }
        }
    }

    /// Drops idle connections that are closed or expired, the least recently used beyond
    /// `max_idle`, and `over_global` more for the global cap.
    pub fn prune(&self, over_global: usize) -> usize {
        prune(&self.pool, over_global)
    }

    /// Opens connections until `min_idle` are idle, without waiting for busy ones.
    pub async fn replenish(&self) -> (usize, bool) {
        let connector = self.pool.manager();
        let config = &connector.settings.config;
        let missing = config.min_idle.saturating_sub(connector.counters.idle.load(Relaxed));
        if missing == 0 || self.pool.is_closed() {
            return (0, false);
        }
        let created_before = connector.counters.created.load(Relaxed);
        // Check out as many as should be idle (idle ones first), then give them all back.
        let mut held = Vec::with_capacity(config.min_idle);
        let mut failed = false;
        for _ in 0..config.min_idle {
            match self.pool.timeout_get(&NO_WAIT).await {
                Ok(object) => held.push(Leased {
                    object: Some(object),
                    spoiled: false,
                    _active: connector.counters.hold(|c| &c.checked_out),
                }),
                Err(PoolError::Backend(_)) => {
                    failed = true;
                    break;
                }
                Err(_) => break,
            }
        }
        drop(held);
        let opened = connector.counters.created.load(Relaxed).saturating_sub(created_before);
        (opened as usize, failed)
    }

    pub fn retire(&self) {
        let removed = self.pool.retain(|_, _| false).removed;
        self.pool.manager().leave_idle(removed.len());
        self.pool.close();
    }
}

/// A connection checked out for one call; back to the idle queue on drop, unless the call
/// spoiled it (or never finished: its future was dropped mid-call).
pub(crate) struct Leased {
    object: Option<Object<Connector>>,
    spoiled: bool,
    _active: Held,
}

impl Leased {
    pub fn link(&mut self) -> &mut Direct {
        match &mut self.object {
            Some(object) => &mut object.link,
            None => unreachable!("a lease holds its connection until dropped"),
        }
    }

    pub fn finish(mut self, spoiled: bool) {
        self.spoiled = spoiled;
    }
}

impl Drop for Leased {
    fn drop(&mut self) {
        let Some(object) = self.object.take() else { return };
        // The endpoint left the pool: the connection just closes.
        let Some(pool) = Object::pool(&object) else { return };
        let connector = pool.manager();
        if self.spoiled || pool.is_closed() || object.link.is_broken() || !connector.enter_idle() {
            drop(Object::take(object));
            return;
        }
        // One look at the clock for both.
        let now = Instant::now();
        object.touch(now);
        drop(object);
        if connector.prune_due(now) {
            prune(&pool, 0);
        }
    }
}

/// Drops idle connections that are closed or expired, the least recently used beyond
/// `max_idle`, and `over_global` more for the global cap; returns how many.
fn prune(pool: &Pool, over_global: usize) -> usize {
    let connector = pool.manager();
    let config = &connector.settings.config;
    let now = Instant::now();
    let mut excess = connector.counters.idle.load(Relaxed).saturating_sub(config.idle_cap()) + over_global;
    // deadpool keeps its queue oldest return first, so the excess goes from the front.
    let removed = pool
        .retain(|conn, _| {
            let drop_it = excess > 0 || conn.unusable(config, now, true).is_some();
            excess = excess.saturating_sub(1);
            !drop_it
        })
        .removed;
    connector.leave_idle(removed.len());
    removed.len()
}
