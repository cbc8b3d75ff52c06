//! A small self-timer for the summary: warm up, size batches from the warm-up rate, take
//! the median of the batches' time per operation.

use std::time::{Duration, Instant};

use crate::cases::Routine;

/// How long to time one cell.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Running before timing, to warm caches and the allocator and estimate the rate.
    pub warm_up: Duration,
    /// Total time of the timed batches.
    pub measure: Duration,
    /// Batches; the median of their per-operation times is reported.
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

/// The median time of one call of `routine`, in nanoseconds.
pub fn ns_per_op(routine: &mut Routine, budget: Budget) -> f64 {
    let start = Instant::now();
    let mut warm_iters = 0u64;
    while start.elapsed() < budget.warm_up || warm_iters == 0 {
        routine();
        warm_iters += 1;
    }
    let per_op = start.elapsed().as_secs_f64() / warm_iters as f64;
    let batch_secs = budget.measure.as_secs_f64() / budget.batches as f64;
    let iters = ((batch_secs / per_op) as u64).max(1);
    let mut samples: Vec<f64> = (0..budget.batches.max(1))
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                routine();
            }
            t.elapsed().as_secs_f64() * 1e9 / iters as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
