//! The load loop, for any client: callers as tokio tasks, a warm-up, a measured window, a
//! histogram per task merged at the end. The RPC comparison drives its peers' clients
//! with it too, so every client is measured the same way.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

/// The slowest latency the histograms hold, in µs; slower calls are recorded as this.
pub const MAX_LATENCY_US: u64 = 120_000_000;

/// An empty latency histogram in µs: three significant figures from 1 µs to two minutes.
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("constant, valid histogram bounds")
}

/// Why one call failed, as the report counts it: a short, stable label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// `connect: AddrNotAvailable`, `io: ConnectionReset`, `timeout`, `wrong reply`...
    pub kind: String,
    /// Whether the failure was opening a connection: the caller backs off a moment rather
    /// than spin on a machine out of ports.
    pub connecting: bool,
}

impl Failure {
    /// A failure of the call itself.
    pub fn new(kind: impl Into<String>) -> Failure {
        Failure { kind: kind.into(), connecting: false }
    }
}

/// Something that makes calls: one strategy's client, a peer's client.
pub trait Load: Send + Sync + 'static {
    /// What each caller task keeps to itself: nothing for a shared client, its own
    /// connection for a client that is not shared.
    type Session: Send + 'static;

    /// Sets a caller task up, before the clock starts.
    fn session(&self) -> impl Future<Output = Result<Self::Session, Failure>> + Send;

    /// Makes one call and checks its reply.
    fn call(&self, session: &mut Self::Session) -> impl Future<Output = Result<(), Failure>> + Send;

    /// Whether the load may make no more calls (the per-call strategy's connection cap).
    fn exhausted(&self) -> bool {
        false
    }
}

/// How long a load runs.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// The whole run, warm-up included.
    pub duration: Duration,
    /// The unmeasured start.
    pub warmup: Duration,
    /// The longest one call can take (its connect and call timeouts together): past the
    /// end by twice this, callers still waiting are abandoned.
    pub call_bound: Duration,
}

/// What a run measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Calls answered correctly in the measured window.
    pub calls: u64,
    /// Seconds measured (the warm-up excluded; shorter when the load was exhausted early).
    pub seconds: f64,
    /// `calls / seconds`.
    pub qps: f64,
    /// Median latency of the correct calls, µs.
    pub p50_us: u64,
    /// 99th percentile, µs.
    pub p99_us: u64,
    /// 99.9th percentile, µs.
    pub p999_us: u64,
    /// The slowest call, µs.
    pub max_us: u64,
    /// Failed calls by kind, measured window only.
    pub errors: BTreeMap<String, u64>,
}

impl Stats {
    /// The statistics of `latencies` over `seconds`.
    pub fn new(latencies: &Histogram<u64>, errors: BTreeMap<String, u64>, seconds: f64) -> Stats {
        let calls = latencies.len();
        let some = calls > 0;
        Stats {
            calls,
            seconds,
            qps: if seconds > 0.0 { calls as f64 / seconds } else { 0.0 },
            p50_us: if some { latencies.value_at_quantile(0.50) } else { 0 },
            p99_us: if some { latencies.value_at_quantile(0.99) } else { 0 },
            p999_us: if some { latencies.value_at_quantile(0.999) } else { 0 },
            max_us: if some { latencies.max() } else { 0 },
            errors,
        }
    }

    /// Failed calls of every kind.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }
}

/// What one caller task measured.
struct TaskOutcome {
    latencies: Histogram<u64>,
    errors: BTreeMap<String, u64>,
    last_done: Option<Instant>,
    exhausted: bool,
}

/// Runs `concurrency` callers of `load` for `timing` on the current runtime and measures
/// the calls that complete after the warm-up and before the end. `live` counts correct
/// calls as they complete, for a progress display. Returns the statistics and whether the
/// load was exhausted before the end.
pub async fn drive<L: Load>(load: Arc<L>, concurrency: usize, timing: Timing, live: Arc<AtomicU64>) -> (Stats, bool) {
    let mut errors = BTreeMap::new();
    let mut sessions = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        match load.session().await {
            Ok(session) => sessions.push(session),
            Err(failure) => *errors.entry(format!("setup: {}", failure.kind)).or_insert(0) += 1,
        }
    }

    let started = Instant::now();
    let measure_from = started + timing.warmup;
    let end = started + timing.duration;
    let mut tasks = JoinSet::new();
    for mut session in sessions {
        let (load, live) = (load.clone(), live.clone());
        tasks.spawn(async move {
            let mut out =
                TaskOutcome { latencies: histogram(), errors: BTreeMap::new(), last_done: None, exhausted: false };
            loop {
                if load.exhausted() {
                    out.exhausted = true;
                    break;
                }
                let sent = Instant::now();
                if sent >= end {
                    break;
                }
                let outcome = load.call(&mut session).await;
                let done = Instant::now();
                if done > end {
                    break;
                }
                let measured = done >= measure_from;
                match outcome {
                    Ok(()) if measured => {
                        let us = (done - sent).as_micros().min(u128::from(MAX_LATENCY_US)) as u64;
                        out.latencies.saturating_record(us.max(1));
                        out.last_done = Some(done);
                        live.fetch_add(1, Relaxed);
                    }
                    Ok(()) => {}
                    Err(failure) => {
                        if measured {
                            *out.errors.entry(failure.kind).or_insert(0) += 1;
                            out.last_done = Some(done);
                        }
                        // Out of ports or refused: don't spin on the error.
                        if failure.connecting {
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                    }
                }
            }
            out
        });
    }

    // Every task stops at `end` but for one call, which its timeouts bound; past that
    // (twice over, for connect plus call), the stragglers are abandoned.
    let give_up = end + timing.call_bound * 2 + Duration::from_secs(1);
    let mut latencies = histogram();
    let mut last_done: Option<Instant> = None;
    let mut exhausted = false;
    loop {
        match tokio::time::timeout_at(give_up.into(), tasks.join_next()).await {
            Ok(Some(Ok(out))) => {
                // Same bounds on both sides: adding cannot fail.
                let _ = latencies.add(&out.latencies);
                for (kind, n) in out.errors {
                    *errors.entry(kind).or_insert(0) += n;
                }
                last_done = last_done.max(out.last_done);
                exhausted |= out.exhausted;
            }
            Ok(Some(Err(e))) => *errors.entry(format!("caller task: {e}")).or_insert(0) += 1,
            Ok(None) => break,
            Err(_) => {
                let stuck = tasks.len() as u64;
                tasks.abort_all();
                *errors.entry("stuck past the call timeout".into()).or_insert(0) += stuck;
                break;
            }
        }
    }

    // An exhausted load ran until its last completed call, not to the end of its time.
    let measured_until = match (exhausted, last_done) {
        (true, Some(t)) => t.min(end),
        _ => end,
    };
    let seconds = measured_until.saturating_duration_since(measure_from).as_secs_f64();
    (Stats::new(&latencies, errors, seconds), exhausted)
}
