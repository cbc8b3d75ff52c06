//! The endpoint list and the choice of an endpoint for each call: power of two choices on
//! calls in flight, or round robin, over the endpoints not ejected; an ejected endpoint is
//! tried by one call at a time once its backoff runs out.

use std::collections::hash_map::{HashMap, RandomState};
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::config::Balance;
use super::endpoint::{Endpoint, Settings};

/// The endpoints of a pool, replaceable while calls run (a call keeps the list it started
/// with).
///
/// An address is the endpoint: adding one already listed counts one more reference to it
/// (two discovery keys naming the same address share its connections), and it is retired
/// when its last reference goes. A full [`Endpoints::replace`] makes each listed address
/// count once.
pub(crate) struct Endpoints {
    list: RwLock<Arc<[Arc<Endpoint>]>>,
    /// References to each listed address; taken before `list` by every change, so changes
    /// apply one at a time.
    refs: Mutex<HashMap<SocketAddr, usize>>,
    next: AtomicUsize,
    seed: AtomicU64,
}

impl Endpoints {
    pub fn new(addrs: impl IntoIterator<Item = SocketAddr>, settings: &Arc<Settings>) -> Self {
        let endpoints = Endpoints {
            list: RwLock::new(Arc::from(Vec::new())),
            refs: Mutex::new(HashMap::new()),
            next: AtomicUsize::new(0),
            seed: AtomicU64::new(RandomState::new().build_hasher().finish()),
        };
        endpoints.replace(addrs, settings);
        endpoints
    }

    pub fn snapshot(&self) -> Arc<[Arc<Endpoint>]> {
        self.list.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Makes `addrs` the endpoints (duplicates once), each counted once. An endpoint that
    /// stays keeps its connections, health and counters; one that goes closes its idle
    /// connections now and its busy ones when their calls end.
    pub fn replace(&self, addrs: impl IntoIterator<Item = SocketAddr>, settings: &Arc<Settings>) {
        let mut wanted: Vec<SocketAddr> = Vec::new();
        for addr in addrs {
            if !wanted.contains(&addr) {
                wanted.push(addr);
            }
        }
        self.edit(|edit| {
            let gone: Vec<SocketAddr> = edit.list.iter().map(|e| e.addr).filter(|a| !wanted.contains(a)).collect();
            for addr in gone {
                edit.retire(addr, usize::MAX);
            }
            for &addr in &wanted {
                edit.refs.insert(addr, 1);
                edit.add(addr, settings, 0);
            }
            // In the order given, as before.
            edit.list.sort_by_key(|e| wanted.iter().position(|a| *a == e.addr));
        });
    }

    /// Counts one more reference to `addr`, listing it if it is new (with no connections
    /// yet). True when it was new.
    pub fn insert(&self, addr: SocketAddr, settings: &Arc<Settings>) -> bool {
        self.edit(|edit| edit.add(addr, settings, 1))
    }

    /// Drops one reference to `addr`; at the last one it leaves the list and is retired
    /// (no new calls, idle connections closed now, busy ones when their calls end). True
    /// when it left the list.
    pub fn remove(&self, addr: SocketAddr) -> bool {
        self.edit(|edit| edit.retire(addr, 1))
    }

    /// Applies one change to the list under the lock, publishes the new list, then retires
    /// what left it (outside the lock: retiring closes connections).
    fn edit<T>(&self, change: impl FnOnce(&mut Edit<'_>) -> T) -> T {
        let mut refs = self.refs.lock().unwrap_or_else(PoisonError::into_inner);
        let mut edit = Edit { list: self.snapshot().to_vec(), refs: &mut refs, gone: Vec::new() };
        let result = change(&mut edit);
        let Edit { list, gone, .. } = edit;
        *self.list.write().unwrap_or_else(PoisonError::into_inner) = Arc::from(list);
        drop(refs);
        for endpoint in gone {
            endpoint.retire();
        }
        result
    }

    /// A random number (splitmix64 over a shared counter): cheap, and good enough to draw
    /// two endpoints.
    fn random(&self) -> u64 {
        let mut z = self.seed.fetch_add(0x9e37_79b9_7f4a_7c15, Relaxed).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Chooses an endpoint of `list` for a call, leaving out those in `tried` (it adds to
    /// them the ejected ones another call is probing). Endpoints not ejected, or whose
    /// backoff ran out, come first; when there are none, the ejected endpoint whose backoff
    /// ends first is probed anyway, so calls are never refused by the pool's bookkeeping alone
    /// (one call at a time probes each endpoint; the others fail fast). `None` when nothing
    /// is left to try. `now` tells the time (read only when an endpoint is ejected).
    pub fn pick(
        &self,
        list: &[Arc<Endpoint>],
        tried: &mut Vec<usize>,
        balance: Balance,
        now: impl Fn() -> u64,
    ) -> Option<Picked> {
        // The common case, one healthy endpoint, without the general walk.
        if let ([endpoint], []) = (list, tried.as_slice()) {
            if endpoint.health.ejected_until().is_none() {
                return Some(Picked { index: 0, endpoint: endpoint.clone(), probe: false });
            }
        }
        let now = now();
        loop {
            let eligible: Vec<usize> = (0..list.len())
                .filter(|i| !tried.contains(i))
                .filter(|&i| {
                    list[i].health.ejected_until().map_or(true, |until| until <= now && !list[i].health.is_probing())
                })
                .collect();
            let Some(&first) = eligible.first() else { break };
            let chosen = match (balance, eligible.len()) {
                (_, 1) => first,
                (Balance::RoundRobin, n) => eligible[self.next.fetch_add(1, Relaxed) % n],
                (Balance::PowerOfTwoChoices, n) => {
                    let a = (self.random() % n as u64) as usize;
                    let mut b = (self.random() % (n as u64 - 1)) as usize;
                    if b >= a {
                        b += 1;
                    }
                    let load = |i: usize| list[i].counters.in_flight.load(Relaxed);
                    let (a, b) = (eligible[a], eligible[b]);
                    if load(b) < load(a) {
                        b
                    } else {
                        a
                    }
                }
            };
            let endpoint = &list[chosen];
            if endpoint.health.ejected_until().is_none() {
                return Some(Picked { index: chosen, endpoint: endpoint.clone(), probe: false });
            }
            if endpoint.health.start_probe() {
                return Some(Picked { index: chosen, endpoint: endpoint.clone(), probe: true });
            }
            tried.push(chosen);
        }
        // Every endpoint left is ejected. One ejected only for failing calls still takes
        // them (Envoy's panic threshold, Finagle's "all nodes dead, trust them all"):
        // refusing every call for the pool's bookkeeping alone would turn a slow endpoint
        // into a dead one.
        let untried = (0..list.len()).filter(|i| !tried.contains(i));
        if let Some(i) = untried.clone().find(|&i| list[i].health.ejected_for_calls()) {
            return Some(Picked { index: i, endpoint: list[i].clone(), probe: false });
        }
        // Else probe the one whose backoff ends first.
        let waiting = (0..list.len()).filter(|i| !tried.contains(i) && !list[*i].health.is_probing());
        let soonest = waiting.min_by_key(|&i| list[i].health.ejected_until().unwrap_or(0))?;
        let endpoint = &list[soonest];
        endpoint.health.start_probe().then(|| Picked { index: soonest, endpoint: endpoint.clone(), probe: true })
    }
}

/// A change to the endpoint list being made: the one place endpoints are added and retired.
struct Edit<'a> {
    list: Vec<Arc<Endpoint>>,
    refs: &'a mut HashMap<SocketAddr, usize>,
    gone: Vec<Arc<Endpoint>>,
}

impl Edit<'_> {
    /// Adds `refs` references to `addr` (at least one in all), listing a new endpoint for
    /// it if it is not listed. True when it was new.
    fn add(&mut self, addr: SocketAddr, settings: &Arc<Settings>, refs: usize) -> bool {
        let count = self.refs.entry(addr).or_insert(0);
        *count = (*count + refs).max(1);
        if self.list.iter().any(|e| e.addr == addr) {
            return false;
        }
        self.list.push(Arc::new(Endpoint::new(addr, settings)));
        true
    }

    /// Drops `refs` references to `addr`; with none left it leaves the list, to be retired.
    /// True when it left.
    fn retire(&mut self, addr: SocketAddr, refs: usize) -> bool {
        let Some(count) = self.refs.get_mut(&addr) else { return false };
        *count = count.saturating_sub(refs);
        if *count > 0 {
            return false;
        }
        self.refs.remove(&addr);
        let Some(i) = self.list.iter().position(|e| e.addr == addr) else { return false };
        self.gone.push(self.list.remove(i));
        true
    }
}

/// The endpoint chosen for a call; a probe of an ejected endpoint ends when this drops.
pub(crate) struct Picked {
    pub index: usize,
    pub endpoint: Arc<Endpoint>,
    probe: bool,
}

impl Picked {
    /// The call got a connection: a probed endpoint ejected for refusing connections takes
    /// calls again (it may have served an idle connection without a connect).
    pub fn served(&self) {
        if self.probe {
            self.endpoint.health.connected();
        }
    }

    /// The call's outcome, for the endpoint's health (see
    /// [`PoolConfig::eject_after_failures`](super::PoolConfig::eject_after_failures)).
    pub fn finished<T>(&self, outcome: &Result<T, crate::channel::CallError>, settings: &Settings) {
        match (super::endpoint::health_outcome(outcome), outcome) {
            (Some(false), _) => self.endpoint.health.call_succeeded(),
            (Some(true), Err(e)) => self.endpoint.health.call_failed(e, self.probe, settings),
            _ => {}
        }
    }
}

impl Drop for Picked {
    fn drop(&mut self) {
        if self.probe {
            self.endpoint.health.end_probe();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TransportError;
    use crate::pool::config::PoolConfig;

    fn endpoints(n: u16) -> (Endpoints, Arc<Settings>) {
        let settings = Arc::new(Settings::new(&PoolConfig::default()));
        let addrs = (1..=n).map(|port| SocketAddr::from(([127, 0, 0, 1], port)));
        (Endpoints::new(addrs, &settings), settings)
    }

    fn refused() -> TransportError {
        TransportError::from(std::io::Error::from(std::io::ErrorKind::ConnectionRefused))
    }

    #[test]
    fn an_address_leaves_with_its_last_reference_and_replace_counts_each_once() {
        let (endpoints, settings) = endpoints(1);
        let one = SocketAddr::from(([127, 0, 0, 1], 1));
        let two = SocketAddr::from(([127, 0, 0, 1], 2));
        assert!(!endpoints.insert(one, &settings), "listed already: one more reference");
        assert!(endpoints.insert(two, &settings));
        let kept = endpoints.snapshot()[0].clone();
        assert!(!endpoints.remove(one), "one reference left");
        assert!(endpoints.remove(one), "the last");
        assert!(!endpoints.remove(one), "unknown now");
        assert_eq!(endpoints.snapshot().iter().map(|e| e.addr).collect::<Vec<_>>(), vec![two]);
        assert!(kept.addr == one);
        endpoints.insert(two, &settings);
        endpoints.replace([one, two], &settings);
        assert_eq!(endpoints.snapshot().iter().map(|e| e.addr).collect::<Vec<_>>(), vec![one, two], "in order");
        assert!(endpoints.remove(two), "replace counted it once");
    }

    #[test]
    fn an_ejected_endpoint_is_left_out_while_others_are_up() {
        let (endpoints, settings) = endpoints(3);
        let list = endpoints.snapshot();
        list[1].health.failed(&refused(), &settings);
        for balance in [Balance::PowerOfTwoChoices, Balance::RoundRobin] {
            for _ in 0..100 {
                let picked = endpoints.pick(&list, &mut Vec::new(), balance, || settings.now()).unwrap();
                assert_ne!(picked.index, 1, "{balance:?}");
                assert!(!picked.probe);
            }
        }
    }

    #[test]
    fn when_every_endpoint_is_ejected_one_call_at_a_time_probes_the_soonest() {
        let (endpoints, settings) = endpoints(2);
        let list = endpoints.snapshot();
        list[1].health.failed(&refused(), &settings);
        list[0].health.failed(&refused(), &settings);
        list[0].health.failed(&refused(), &settings); // a longer backoff
        let now = settings.now();
        let first = endpoints.pick(&list, &mut Vec::new(), Balance::default(), || now).unwrap();
        assert_eq!((first.index, first.probe), (1, true));
        let second = endpoints.pick(&list, &mut Vec::new(), Balance::default(), || now).unwrap();
        assert_eq!((second.index, second.probe), (0, true), "the other one, since 1 is being probed");
        assert!(endpoints.pick(&list, &mut Vec::new(), Balance::default(), || now).is_none(), "both probed");
        drop(first);
        let again = endpoints.pick(&list, &mut Vec::new(), Balance::default(), || now).unwrap();
        assert_eq!(again.index, 1, "a probe ends when its call does");
        // Tried already in this call: not offered again.
        drop(again);
        assert!(endpoints.pick(&list, &mut vec![1], Balance::default(), || now).is_none());
    }

    #[test]
    fn backoff_doubles_up_to_its_limit_and_a_connection_clears_it() {
        let config = PoolConfig {
            eject_backoff: std::time::Duration::from_millis(100),
            max_eject_backoff: std::time::Duration::from_millis(350),
            ..PoolConfig::default()
        };
        let settings = Settings::new(&config);
        let health = super::super::endpoint::Health::default();
        let mut backoffs = Vec::new();
        for _ in 0..4 {
            let before = settings.now();
            health.failed(&refused(), &settings);
            let until = health.ejected_until().unwrap();
            backoffs.push((until - before) / 1_000_000); // ms, rounded down
        }
        // (Each measured from just before the failure: a little over, never under.)
        let within = |ms: u64, from: u64| (from..from + 50).contains(&ms);
        assert!(within(backoffs[0], 100) && within(backoffs[1], 200), "doubles: {backoffs:?}");
        assert!(within(backoffs[2], 350) && within(backoffs[3], 350), "capped: {backoffs:?}");
        assert!(health.last_error().unwrap().to_lowercase().contains("refused"));
        health.connected();
        assert!(health.ejected_until().is_none() && health.last_error().is_none());
    }
}
