//! How much a pool may send calls again: tower's retry budget (Finagle's design), so that
//! retries cannot multiply the load on endpoints that are already failing.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use tower::retry::budget::{Budget, TpsBudget};

use crate::channel::CallError;

/// How many calls a [`Pool`](super::Pool) may send again, over the calls it was given: each
/// call adds `percent`/100 of a retry to the budget, kept for `ttl`, on top of
/// `min_per_second` retries a second that let a quiet pool retry at all. A retry the budget
/// cannot pay for is not made: the call fails with its error. (Tower's `TpsBudget`, with
/// Finagle's defaults: 20% over 10 seconds, and 10 a second.)
///
/// ```
/// use std::time::Duration;
/// use thrift_net::PoolConfig;
/// use thrift_net::pool::RetryBudget;
///
/// // At most one retry per ten calls, and no floor: an outage is not made worse.
/// let config = PoolConfig::default().with_retry_budget(RetryBudget { percent: 10, min_per_second: 0, ..RetryBudget::default() });
/// # let _ = config;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryBudget {
    /// How long a call's share of a retry is kept: between 1 and 60 seconds.
    pub ttl: Duration,
    /// Retries a second allowed whatever the calls.
    pub min_per_second: u32,
    /// The share of calls that may be retried, in percent (at most 100 000).
    pub percent: u32,
}

impl Default for RetryBudget {
    fn default() -> Self {
        RetryBudget { ttl: Duration::from_secs(10), min_per_second: 10, percent: 20 }
    }
}

impl RetryBudget {
    /// No retries at all.
    pub const NONE: RetryBudget = RetryBudget { ttl: Duration::from_secs(1), min_per_second: 0, percent: 0 };
}

/// What a pool's retries did, from [`Pool::retries`](super::Pool::retries).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryStats {
    /// Calls sent again, after a failure that allowed it.
    pub retried: u64,
    /// Retries not made because the budget was spent.
    pub refused_by_budget: u64,
}

/// A pool's budget and its counters.
pub(crate) struct Retries {
    budget: TpsBudget,
    /// Calls made, so that one deposit in `deposit_every` calls pays for them all.
    calls: AtomicU64,
    deposit_every: u64,
    retried: AtomicU64,
    refused: AtomicU64,
}

/// Calls per deposit into tower's budget. Its `deposit` locks a mutex and reads the clock,
/// which measured as ~8% of a pooled call's throughput at 64 callers on 2 cores; one deposit
/// after every 16 calls, into a budget whose percent is 16 times as large, allows the same
/// retries, never more (up to 15 calls wait to be counted; the `min_per_second` floor
/// covers a quiet pool).
const DEPOSIT_EVERY: u64 = 16;

/// The largest retry ratio tower's budget takes (100 000 %).
const MAX_RATIO: f32 = 1000.0;

impl Retries {
    pub fn new(config: &RetryBudget) -> Self {
        // Tower asserts its ranges: brought within them here.
        let ttl = config.ttl.clamp(Duration::from_secs(1), Duration::from_secs(60));
        let min = config.min_per_second.min(i32::MAX as u32 - 1);
        let ratio = config.percent.min(100_000) as f32 / 100.0;
        let deposit_every = match ratio * DEPOSIT_EVERY as f32 <= MAX_RATIO {
            true => DEPOSIT_EVERY,
            false => 1,
        };
        Retries {
            budget: TpsBudget::new(ttl, min, ratio * deposit_every as f32),
            calls: AtomicU64::new(0),
            deposit_every,
            retried: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }

    /// A call arrived: it earns its share of a retry.
    pub fn called(&self) {
        if (self.calls.fetch_add(1, Relaxed) + 1) % self.deposit_every == 0 {
            self.budget.deposit();
        }
    }

    /// Whether a retry may be made now; counts it either way.
    pub fn withdraw(&self) -> bool {
        let allowed = self.budget.withdraw();
        let counter = if allowed { &self.retried } else { &self.refused };
        counter.fetch_add(1, Relaxed);
        allowed
    }

    pub fn stats(&self) -> RetryStats {
        RetryStats { retried: self.retried.load(Relaxed), refused_by_budget: self.refused.load(Relaxed) }
    }
}

impl std::fmt::Debug for Retries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retries").field("stats", &self.stats()).finish()
    }
}

/// Whether a call that failed with `error` may be sent again: when it certainly did not
/// run, or, for an idempotent method, when it may have run but its outcome was lost (the
/// connection failed, or no reply came in time). Never when the server answered.
pub(crate) fn may_retry(error: &CallError, idempotent: bool) -> bool {
    match error {
        CallError::Unavailable(..) => false,
        _ if error.is_retry_safe() => true,
        CallError::Transport(..) | CallError::Timeout(..) => idempotent,
        _ => false,
    }
}
