//! The server's counters through the `metrics` facade (feature `metrics`): each snapshot
//! counter keeps a facade handle, registered once per server, and moves it where the
//! atomic moves; request durations go to a histogram per method, its handles cached.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use metrics::{Counter, Gauge, Histogram, Label};

use crate::metrics_names as names;

/// A facade handle for one snapshot counter: a Prometheus counter or a gauge.
pub(crate) enum Handle {
    Counter(Counter),
    Gauge(Gauge),
}

impl Default for Handle {
    fn default() -> Self {
        Handle::Counter(Counter::noop())
    }
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Handle::Counter(_) => "Counter",
            Handle::Gauge(_) => "Gauge",
        })
    }
}

impl Handle {
    pub fn counter(name: &'static str, labels: &[Label]) -> Self {
        Handle::Counter(metrics::counter!(name, labels.to_vec()))
    }

    pub fn gauge(name: &'static str, labels: &[Label]) -> Self {
        Handle::Gauge(metrics::gauge!(name, labels.to_vec()))
    }

    pub fn add(&self, n: u64) {
        match self {
            Handle::Counter(c) => c.increment(n),
            Handle::Gauge(g) => g.increment(n as f64),
        }
    }

    /// Counters only go up: the one counter the server takes back (a request refused
    /// during a drain, uncounted in the snapshot) stays counted here.
    pub fn sub(&self, n: u64) {
        if let Handle::Gauge(g) = self {
            g.decrement(n as f64);
        }
    }
}

/// Method names with a cached histogram; past this, durations go under
/// [`OTHER_METHOD`](names::OTHER_METHOD), so peers naming unknown methods cannot grow the
/// cache (or a dashboard's label set) without bound.
const MAX_METHODS: usize = 256;

/// The request-duration histograms of one server, one per method name.
#[derive(Debug, Default)]
pub(crate) struct Durations {
    labels: Vec<Label>,
    by_method: Mutex<HashMap<Box<str>, Histogram>>,
}

impl Durations {
    pub fn new(labels: &[Label]) -> Self {
        Durations { labels: labels.to_vec(), by_method: Mutex::default() }
    }

    fn histogram(&self, method: &str) -> Histogram {
        let mut map = self.by_method.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = map.get(method) {
            return h.clone();
        }
        let method = if map.len() < MAX_METHODS { method } else { names::OTHER_METHOD };
        let mut labels = self.labels.clone();
        labels.push(Label::new("method", method.to_owned()));
        let h = metrics::histogram!(names::SERVER_REQUEST_DURATION_SECONDS, labels);
        map.insert(method.into(), h.clone());
        h
    }
}

/// Times one request until dropped, into
/// [`SERVER_REQUEST_DURATION_SECONDS`](names::SERVER_REQUEST_DURATION_SECONDS).
pub(crate) struct Timer {
    histogram: Histogram,
    start: Instant,
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.histogram.record(self.start.elapsed().as_secs_f64());
    }
}

/// The timer for one request to `method`: the one place request durations are recorded.
pub(crate) fn time(counters: &super::metrics::Counters, method: &str) -> Timer {
    Timer { histogram: counters.durations.histogram(method), start: Instant::now() }
}

/// The per-server labels as facade labels.
pub(crate) fn labels(pairs: &[(String, String)]) -> Vec<Label> {
    pairs.iter().map(|(k, v)| Label::new(k.clone(), v.clone())).collect()
}
