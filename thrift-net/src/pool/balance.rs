//! The endpoint list and the choice of an endpoint for each call: power of two choices on
//! calls in flight, or round robin, over the endpoints not ejected; an ejected endpoint is
//! tried by one call at a time once its backoff runs out.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, PoisonError, RwLock};

use super::config::Balance;
use super::endpoint::{Endpoint, Settings};

/// The endpoints of a pool, replaceable while calls run (a call keeps the list it started
/// with).
pub(crate) struct Endpoints {
    list: RwLock<Arc<[Arc<Endpoint>]>>,
    next: AtomicUsize,
    seed: AtomicU64,
}

impl Endpoints {
    pub fn new(addrs: impl IntoIterator<Item = SocketAddr>, settings: &Arc<Settings>) -> Self {
        let endpoints = Endpoints {
            list: RwLock::new(Arc::from(Vec::new())),
            next: AtomicUsize::new(0),
            seed: AtomicU64::new(RandomState::new().build_hasher().finish()),
        };
        endpoints.replace(addrs, settings);
        endpoints
    }

    pub fn snapshot(&self) -> Arc<[Arc<Endpoint>]> {
        self.list.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Makes `addrs` the endpoints (duplicates once). An endpoint that stays keeps its
    /// connections, health and counters; one that goes closes its idle connections now and
    /// its busy ones when their calls end.
    pub fn replace(&self, addrs: impl IntoIterator<Item = SocketAddr>, settings: &Arc<Settings>) {
        let mut list = self.list.write().unwrap_or_else(PoisonError::into_inner);
        let old = list.clone();
        let mut new: Vec<Arc<Endpoint>> = Vec::new();
        for addr in addrs {
            if new.iter().any(|e| e.addr == addr) {
                continue;
            }
            let kept = old.iter().find(|e| e.addr == addr).cloned();
            new.push(kept.unwrap_or_else(|| Arc::new(Endpoint::new(addr, settings))));
        }
        *list = Arc::from(new);
        let current = list.clone();
        drop(list);
        for gone in old.iter().filter(|e| !current.iter().any(|c| Arc::ptr_eq(c, e))) {
            gone.retire();
        }
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
    /// is left to try.
    pub fn pick(&self, list: &[Arc<Endpoint>], tried: &mut Vec<usize>, balance: Balance, now: u64) -> Option<Picked> {
        // The common case, one healthy endpoint, without the general walk.
        if let ([endpoint], []) = (list, tried.as_slice()) {
            if endpoint.health.ejected_until().is_none() {
                return Some(Picked { index: 0, endpoint: endpoint.clone(), probe: false });
            }
        }
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
    fn an_ejected_endpoint_is_left_out_while_others_are_up() {
        let (endpoints, settings) = endpoints(3);
        let list = endpoints.snapshot();
        list[1].health.failed(&refused(), &settings);
        for balance in [Balance::PowerOfTwoChoices, Balance::RoundRobin] {
            for _ in 0..100 {
                let picked = endpoints.pick(&list, &mut Vec::new(), balance, settings.now()).unwrap();
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
        let first = endpoints.pick(&list, &mut Vec::new(), Balance::default(), now).unwrap();
        assert_eq!((first.index, first.probe), (1, true));
        let second = endpoints.pick(&list, &mut Vec::new(), Balance::default(), now).unwrap();
        assert_eq!((second.index, second.probe), (0, true), "the other one, since 1 is being probed");
        assert!(endpoints.pick(&list, &mut Vec::new(), Balance::default(), now).is_none(), "both probed");
        drop(first);
        let again = endpoints.pick(&list, &mut Vec::new(), Balance::default(), now).unwrap();
        assert_eq!(again.index, 1, "a probe ends when its call does");
        // Tried already in this call: not offered again.
        drop(again);
        assert!(endpoints.pick(&list, &mut vec![1], Balance::default(), now).is_none());
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
