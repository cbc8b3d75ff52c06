//! The server-wide budget for partly received messages: every connection's bytes of a
//! message not yet whole count against one total, so many peers that each stall inside a
//! large message cannot together hold more than the server allows.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::metrics::Counters;

/// The total, shared by every connection of a server.
#[derive(Debug)]
pub(crate) struct ReceivingBudget {
    held: AtomicUsize,
    max: usize,
    counters: Arc<Counters>,
}

impl ReceivingBudget {
    pub fn new(max: usize, counters: Arc<Counters>) -> Arc<Self> {
        Arc::new(ReceivingBudget { held: AtomicUsize::new(0), max, counters })
    }
}

/// One connection's share of the [`ReceivingBudget`], given back when it drops.
#[derive(Debug)]
pub(crate) struct Receiving {
    budget: Arc<ReceivingBudget>,
    held: usize,
}

impl Receiving {
    pub fn new(budget: Arc<ReceivingBudget>) -> Self {
        Receiving { budget, held: 0 }
    }

    /// Records that the connection now holds `bytes` of a partial message. `false` (and the
    /// share unchanged) when growing to it would take the server past its total.
    pub fn hold(&mut self, bytes: usize) -> bool {
        let budget = &self.budget;
        if bytes > self.held {
            let more = bytes - self.held;
            let before = budget.held.fetch_add(more, Ordering::AcqRel);
            if before + more > budget.max {
                budget.held.fetch_sub(more, Ordering::AcqRel);
                return false;
            }
            Counters::add(&budget.counters.bytes_receiving, more as u64);
        } else {
            let less = self.held - bytes;
            budget.held.fetch_sub(less, Ordering::AcqRel);
            Counters::sub(&budget.counters.bytes_receiving, less as u64);
        }
        self.held = bytes;
        true
    }
}

impl Drop for Receiving {
    fn drop(&mut self) {
        self.hold(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_grow_and_shrink_within_the_total() {
        let counters = Arc::new(Counters::default());
        let budget = ReceivingBudget::new(100, counters.clone());
        let (mut a, mut b) = (Receiving::new(budget.clone()), Receiving::new(budget.clone()));
        assert!(a.hold(60));
        assert!(!b.hold(41), "60 + 41 is past 100");
        assert!(b.hold(40));
        assert_eq!(counters.snapshot().bytes_receiving, 100);
        assert!(a.hold(10), "shrinking always fits");
        assert!(b.hold(90));
        drop(b);
        assert_eq!(budget.held.load(Ordering::Acquire), 10);
        drop(a);
        assert_eq!((budget.held.load(Ordering::Acquire), counters.snapshot().bytes_receiving), (0, 0));
    }
}
