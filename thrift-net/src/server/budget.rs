//! The bytes one connection may hold in requests being handled and replies not yet written.
//!
//! Every request takes its bytes under the budget when it is read and every reply when it is
//! made, and gives them back when done: two holds and two releases per call. A semaphore's
//! release takes its wait list's lock every time, waiters or not (it was a percent of the
//! server's CPU time with 64 one-call connections); here a hold is a compare-and-swap and a
//! release a subtraction, and the wait list is touched only while someone waits.
//!
//! Waiting is rare (the peer sends requests past `max_pending_bytes`, or leaves replies
//! unread) and not first-come-first-served: a release wakes every waiter, and they race. No
//! one waits for ever: while anyone waits, a new hold waits too, the reader (one request at a
//! time) starts no new requests, and the requests and replies already holding bytes finish
//! and give them back, so the waiters are left with the whole budget.

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use tokio::sync::Notify;

use super::metrics::Counters;

/// A connection's byte budget; each guard it hands out keeps one reference to it.
pub(super) struct Budget {
    held: AtomicUsize,
    max: usize,
    /// Holds waiting for room. A release wakes them only when there are some.
    waiting: AtomicUsize,
    freed: Notify,
    counters: Arc<Counters>,
}

impl Budget {
    pub fn new(max: usize, counters: Arc<Counters>) -> Arc<Self> {
        Arc::new(Budget {
            held: AtomicUsize::new(0),
            max,
            waiting: AtomicUsize::new(0),
            freed: Notify::new(),
            counters,
        })
    }

    /// Holds `len` bytes (at most the whole budget) if they fit now and no one is waiting.
    pub fn try_hold(self: &Arc<Self>, len: usize) -> Option<Owed> {
        let n = self.size(len);
        match self.waiting.load(SeqCst) == 0 && self.take(n) {
            true => Some(self.owed(n)),
            false => None,
        }
    }

    /// Waits until `len` bytes (at most the whole budget) fit, and holds them until the guard
    /// drops.
    pub async fn hold(self: &Arc<Self>, len: usize) -> Owed {
        let n = self.size(len);
        let _waiting = Waiting::new(&self.waiting);
        loop {
            // Created before the look (`notify_waiters` reaches a `Notified` from its creation
            // on), and the look comes after this wait is counted: a release either is seen by
            // the look or sees the count and wakes this wait.
            let freed = pin!(self.freed.notified());
            if self.take(n) {
                return self.owed(n);
            }
            freed.await;
        }
    }

    /// The bytes a message of `len` holds: a larger message than the budget holds all of it
    /// (it is already in memory; it waits until it is alone).
    fn size(&self, len: usize) -> usize {
        len.clamp(1, self.max)
    }

    fn take(&self, n: usize) -> bool {
        self.held.fetch_update(SeqCst, SeqCst, |held| (held + n <= self.max).then_some(held + n)).is_ok()
    }

    fn owed(self: &Arc<Self>, n: usize) -> Owed {
        Counters::add(&self.counters.bytes_pending, n as u64);
        Owed { budget: self.clone(), n }
    }
}

/// Counts one wait while it lasts (a cancelled wait is uncounted as it drops).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(waiting: &'a AtomicUsize) -> Self {
        waiting.fetch_add(1, SeqCst);
        Waiting(waiting)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, SeqCst);
    }
}

/// Bytes held under a connection's [`Budget`], given back on drop.
pub(super) struct Owed {
    budget: Arc<Budget>,
    n: usize,
}

impl Drop for Owed {
    fn drop(&mut self) {
        let budget = &self.budget;
        budget.held.fetch_sub(self.n, SeqCst);
        if budget.waiting.load(SeqCst) > 0 {
            budget.freed.notify_waiters();
        }
        Counters::sub(&budget.counters.bytes_pending, self.n as u64);
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::task::{Context, Poll};

    use super::*;
    use crate::wake_count::Wakes;

    fn budget(max: usize) -> Arc<Budget> {
        Budget::new(max, Arc::new(Counters::default()))
    }

    #[test]
    fn holds_fit_until_the_budget_is_full_and_fit_again_once_given_back() {
        let budget = budget(100);
        let a = budget.try_hold(60).expect("fits");
        assert!(budget.try_hold(41).is_none(), "101 of 100");
        let b = budget.try_hold(40).expect("exactly full");
        drop(a);
        assert!(budget.try_hold(60).is_some());
        drop(b);
        assert_eq!(budget.held.load(SeqCst), 0);
        assert_eq!(budget.counters.snapshot().bytes_pending, 0);
    }

    #[test]
    fn a_message_larger_than_the_budget_holds_all_of_it() {
        let budget = budget(100);
        let all = budget.try_hold(1_000).expect("alone, it fits");
        assert!(budget.try_hold(1).is_none());
        drop(all);
        let empty = budget.try_hold(0).expect("an empty message holds one byte");
        assert_eq!(budget.held.load(SeqCst), 1);
        drop(empty);
    }

    #[test]
    fn a_waiting_hold_is_woken_by_the_release_that_makes_room_and_queues_new_holds_behind_it() {
        let budget = budget(100);
        let first = budget.try_hold(80).unwrap();
        let wakes = Wakes::new();
        let waker = wakes.waker();
        let mut cx = Context::from_waker(&waker);
        let mut wait = Box::pin(budget.hold(50));
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        assert!(budget.try_hold(10).is_none(), "room for 10, but a hold is waiting");
        drop(first);
        assert_eq!(wakes.count(), 1, "the release wakes the wait");
        let Poll::Ready(owed) = wait.as_mut().poll(&mut cx) else { panic!("room was made") };
        assert_eq!(budget.waiting.load(SeqCst), 0);
        assert!(budget.try_hold(50).is_some(), "no one waits any more");
        drop(owed);
    }

    #[test]
    fn a_cancelled_wait_is_uncounted() {
        let budget = budget(10);
        let full = budget.try_hold(10).unwrap();
        let mut wait = Box::pin(budget.hold(5));
        assert!(wait.as_mut().poll(&mut Context::from_waker(&Wakes::new().waker())).is_pending());
        drop(wait);
        drop(full);
        assert!(budget.try_hold(5).is_some(), "the cancelled wait does not hold new holds back");
    }
}
