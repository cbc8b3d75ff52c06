//! A small self-timer for the summary: warm up, size batches from the warm-up rate, take
//! the fastest batch's time per operation.
//!
//! Time is the benchmarking thread's CPU time, not wall time: the machine is shared (other
//! builds run beside the benchmarks), and time spent preempted is not the codec's. The
//! fastest batch rather than the median, because what is left of the interference (caches
//! another process evicted) only ever adds time, and the code timed is deterministic.

use std::time::Duration;

use cpu_time::ThreadTime;

use crate::cases::Routine;

/// How long to time one cell.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Running before timing, to warm caches and the allocator and estimate the rate.
    pub warm_up: Duration,
    /// Total time of the timed batches.
    pub measure: Duration,
    /// Batches; the fastest one's per-operation time is reported.
    pub batches: u32,
}

impl Budget {
    /// The budget of the summary: about 1 s per cell.
    pub const FULL: Budget =
        Budget { warm_up: Duration::from_millis(300), measure: Duration::from_millis(700), batches: 11 };
    /// A smoke run that only shows every cell works (CI): about 20 ms per cell.
    pub const QUICK: Budget =
        Budget { warm_up: Duration::from_millis(5), measure: Duration::from_millis(15), batches: 3 };
}

/// The time of one call of `routine` in the fastest batch, in nanoseconds.
pub fn ns_per_op(routine: &mut Routine, budget: Budget) -> f64 {
    let start = ThreadTime::now();
    let mut warm_iters = 0u64;
    while start.elapsed() < budget.warm_up || warm_iters == 0 {
        routine();
        warm_iters += 1;
    }
    let per_op = start.elapsed().as_secs_f64() / warm_iters as f64;
    let batch_secs = budget.measure.as_secs_f64() / budget.batches as f64;
    let iters = ((batch_secs / per_op) as u64).max(1);
    (0..budget.batches.max(1))
        .map(|_| {
            let t = ThreadTime::now();
            for _ in 0..iters {
                routine();
            }
            t.elapsed().as_secs_f64() * 1e9 / iters as f64
        })
        .fold(f64::INFINITY, f64::min)
}
