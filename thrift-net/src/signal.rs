//! A cancellation wait that lives as long as its connection.
//!
//! A connection's reader and writer wait for bytes or messages many times a second, and each
//! wait also watches for the connection closing or the server stopping. A fresh
//! `CancellationToken::cancelled()` per wait joins the token's wait list under its lock when
//! first polled and leaves it under the lock again when dropped: with 64 one-call connections
//! those waits were a sixth of the server's instructions per call. A [`Signal`] joins once, at
//! its first poll, and stays. It joins with a waker of its own that notes the cancellation
//! before waking the task, so later polls read one flag: `is_cancelled` would take the
//! token's lock, on every poll, and the server-wide tokens' locks are shared by every
//! connection.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// A wait for `token`, polled only from one task (a connection's reader or writer).
pub(crate) struct Signal {
    /// For a look before the first poll. (Only the server's reader looks; the client waits.)
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    token: CancellationToken,
    wait: Pin<Box<WaitForCancellationFutureOwned>>,
    /// The waker the token's wait list holds, from the first poll on; its flag is set when
    /// the token is cancelled.
    joined: Option<Arc<Fired>>,
}

/// The waker a [`Signal`] joins its token's wait list with: notes the cancellation, then
/// wakes the task that joined.
struct Fired {
    fired: AtomicBool,
    task: Waker,
}

impl Wake for Fired {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.fired.store(true, Ordering::Release);
        self.task.wake_by_ref();
    }
}

impl Signal {
    pub fn new(token: CancellationToken) -> Self {
        Signal { wait: Box::pin(token.clone().cancelled_owned()), token, joined: None }
    }

    /// Whether the token is cancelled, without waiting: once the signal has been polled, a
    /// load of its flag (which the cancel sets before it returns) rather than the token's lock.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub fn is_set(&self) -> bool {
        match &self.joined {
            Some(joined) => joined.fired.load(Ordering::Acquire),
            None => self.token.is_cancelled(),
        }
    }

    /// Ready once the token is cancelled. Every poll must come from the same task: only the
    /// first one's waker is kept.
    pub fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(joined) = &self.joined {
            return match joined.fired.load(Ordering::Acquire) {
                true => Poll::Ready(()),
                false => Poll::Pending,
            };
        }
        let joined = Arc::new(Fired { fired: AtomicBool::new(false), task: cx.waker().clone() });
        let waker = Waker::from(joined.clone());
        let first = self.wait.as_mut().poll(&mut Context::from_waker(&waker));
        if first.is_ready() {
            joined.fired.store(true, Ordering::Release);
        }
        self.joined = Some(joined);
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wake_count::Wakes;

    #[test]
    fn a_signal_polled_many_times_wakes_its_task_once_cancelled() {
        let token = CancellationToken::new();
        let mut signal = Signal::new(token.clone());
        let wakes = Wakes::new();
        let waker = wakes.waker();
        let mut cx = Context::from_waker(&waker);
        assert!(!signal.is_set());
        for _ in 0..3 {
            assert!(signal.poll(&mut cx).is_pending());
        }
        assert!(!signal.is_set());
        token.cancel();
        assert_eq!(wakes.count(), 1, "the task is woken by the cancel");
        assert!(signal.is_set(), "the cancel is seen without a poll");
        assert!(signal.poll(&mut cx).is_ready());
        assert!(signal.poll(&mut cx).is_ready(), "and stays ready");
    }

    #[test]
    fn a_signal_of_a_token_cancelled_before_its_first_poll_is_ready() {
        let token = CancellationToken::new();
        token.cancel();
        let mut signal = Signal::new(token);
        assert!(signal.is_set(), "seen before the first poll");
        assert!(signal.poll(&mut Context::from_waker(&Wakes::new().waker())).is_ready());
    }
}
