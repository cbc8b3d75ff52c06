//! Shared mode: a few pipelined connections per endpoint, each carrying many calls at once.
//! A call goes to the connection with the fewest calls waiting; an empty or broken slot is
//! (re)connected when every open connection is busy, one connect per slot at a time. A
//! connection that timed out, broke or expired leaves its slot at once, even while calls
//! still run on it, so for a moment an endpoint may have more than `connections` sockets.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use crate::channel::{CallError, CallSite, Unavailable};

use super::endpoint::{CheckoutError, Connection, Health, Settings};
use super::metrics::Counters;
use crate::client::Client;

/// One place for a connection. Holding the slot's `Arc` is what a call does while it runs; a
/// connection leaves its slot (and closes once its last call ends) when broken or expired.
#[derive(Default)]
struct Slot {
    conn: RwLock<Option<Arc<Connection<Client>>>>,
    /// Held while the slot's connection is being opened.
    connecting: tokio::sync::Mutex<()>,
}

impl Slot {
    fn get(&self) -> Option<Arc<Connection<Client>>> {
        self.conn.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn set(&self, conn: Option<Arc<Connection<Client>>>) {
        *self.conn.write().unwrap_or_else(PoisonError::into_inner) = conn;
    }

    /// Empties the slot if it still holds `conn`. Calls still running on `conn` keep it
    /// alive through their own references; it closes when the last of them ends. True if
    /// emptied.
    fn clear(&self, conn: &Arc<Connection<Client>>) -> bool {
        let mut current = self.conn.write().unwrap_or_else(PoisonError::into_inner);
        if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
            *current = None;
            return true;
        }
        false
    }
}

/// The shared-mode connections of one endpoint.
pub(crate) struct SharedConnections {
    addr: SocketAddr,
    settings: Arc<Settings>,
    counters: Arc<Counters>,
    health: Arc<Health>,
    slots: Box<[Slot]>,
    retired: AtomicBool,
}

impl SharedConnections {
    pub fn new(
        addr: SocketAddr,
        connections: usize,
        settings: Arc<Settings>,
        counters: Arc<Counters>,
        health: Arc<Health>,
    ) -> Self {
        let slots = (0..connections.max(1)).map(|_| Slot::default()).collect();
        SharedConnections { addr, settings, counters, health, slots, retired: AtomicBool::new(false) }
    }

    pub async fn checkout(&self) -> Result<Arc<Connection<Client>>, CheckoutError> {
        if self.retired.load(Relaxed) {
            return Err(CheckoutError::Retired);
        }
        let config = &self.settings.config;
        let now = Instant::now();
        // The least loaded usable connection, and the first empty slot. A connection that
        // takes no new calls (closed, expired, or retired after a timeout: perhaps stuck)
        // leaves its slot at once, busy or not, so no call ever waits behind it: its
        // running calls keep it open until they end, and a fresh one takes the slot.
        let mut best: Option<(usize, Arc<Connection<Client>>)> = None;
        let mut vacant = None;
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(conn) = slot.get() else {
                vacant.get_or_insert(i);
                continue;
            };
            if conn.unusable(config, now, true).is_some() {
                slot.clear(&conn);
                vacant.get_or_insert(i);
                continue;
            }
            let load = conn.link.in_flight();
            if best.as_ref().map_or(true, |(least, _)| load < *least) {
                best = Some((load, conn));
            }
        }
        match (best, vacant) {
            (Some((0, conn)), _) | (Some((_, conn)), None) => Ok(self.lend(conn)),
            (best, Some(i)) => self.connect(i, best.map(|(_, c)| c)).await,
            // Every slot was empty or usable, and none was empty.
            (None, None) => Err(CheckoutError::Retired),
        }
    }

    fn lend(&self, conn: Arc<Connection<Client>>) -> Arc<Connection<Client>> {
        conn.touch(Instant::now());
        conn
    }

    /// Opens the connection of slot `i` (or takes the one another call just opened there);
    /// when that fails and `fallback` is a busy connection, the call goes on it instead.
    async fn connect(
        &self,
        i: usize,
        fallback: Option<Arc<Connection<Client>>>,
    ) -> Result<Arc<Connection<Client>>, CheckoutError> {
        let slot = &self.slots[i];
        let _waiting = self.counters.hold(|c| &c.waiting);
        let _connecting = match self.settings.config.wait_timeout {
            None => slot.connecting.lock().await,
            Some(limit) => match tokio::time::timeout(limit, slot.connecting.lock()).await {
                Ok(guard) => guard,
                Err(_) => {
                    Counters::bump(&self.counters.timeouts);
                    let why = Unavailable::Busy { endpoint: self.addr, waited: limit, in_use: None };
                    return Err(CheckoutError::Busy(CallError::Unavailable(why, CallSite::default())));
                }
            },
        };
        let usable = |c: &Arc<Connection<Client>>| c.unusable(&self.settings.config, Instant::now(), true).is_none();
        if let Some(conn) = slot.get().filter(usable) {
            return Ok(self.lend(conn));
        }
        match Connection::open(self.addr, &self.settings, &self.counters, &self.health).await {
            Ok(conn) => {
                let conn = Arc::new(conn);
                if !self.retired.load(Relaxed) {
                    slot.set(Some(conn.clone()));
                }
                Ok(self.lend(conn))
            }
            Err(e) => match fallback {
                Some(conn) => Ok(self.lend(conn)),
                None => Err(CheckoutError::Connect(e)),
            },
        }
    }

    /// Empties the slots of broken and expired connections nobody uses, and of idle ones
    /// beyond `max_idle`; returns how many.
    pub fn prune(&self) -> usize {
        let config = &self.settings.config;
        let now = Instant::now();
        let mut idle_kept = 0;
        let mut removed = 0;
        for slot in self.slots.iter() {
            let Some(conn) = slot.get() else { continue };
            let idle = conn.link.in_flight() == 0;
            let spent = conn.unusable(config, now, true).is_some();
            // A spent connection leaves its slot even while calls finish on it.
            let unwanted = spent || (idle && idle_kept >= config.idle_cap());
            if unwanted && (spent || Arc::strong_count(&conn) == 2) && slot.clear(&conn) {
                removed += 1;
            } else if idle {
                idle_kept += 1;
            }
        }
        removed
    }

    /// Opens connections in empty slots until `min_idle` (at most one per slot) are open.
    pub async fn replenish(&self) -> (usize, bool) {
        let want = self.settings.config.min_idle.min(self.slots.len());
        let mut open = self.slots.iter().filter(|s| s.get().is_some_and(|c| !c.link.is_closed())).count();
        let mut opened = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            if open >= want || self.retired.load(Relaxed) {
                break;
            }
            if slot.get().is_some_and(|c| !c.link.is_closed()) {
                continue;
            }
            match self.connect(i, None).await {
                Ok(_) => {
                    opened += 1;
                    open += 1;
                }
                Err(_) => return (opened, true),
            }
        }
        (opened, false)
    }

    /// Open connections carrying calls, and open ones carrying none.
    pub fn active_idle(&self) -> (usize, usize) {
        let open = self.slots.iter().filter_map(Slot::get).filter(|c| !c.link.is_closed());
        open.fold((0, 0), |(active, idle), c| match c.link.in_flight() {
            0 => (active, idle + 1),
            _ => (active + 1, idle),
        })
    }

    pub fn retire(&self) {
        self.retired.store(true, Relaxed);
        for slot in self.slots.iter() {
            slot.set(None);
        }
    }
}
