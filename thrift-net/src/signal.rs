//! A cancellation wait that lives as long as its connection.
//!
//! A connection's reader and writer wait for bytes or messages many times a second, and each
//! wait also watches for the connection closing or the server stopping. A fresh
//! `CancellationToken::cancelled()` per wait joins the token's wait list under its lock when
//! first polled and leaves it under the lock again when dropped: with 64 one-call connections
//! those waits were a sixth of the server's instructions per call. A [`Signal`] joins once, at
//! its first poll, and stays: its task is the one woken whenever it is cancelled, so later
//! polls only look at the token.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// A wait for `token`, polled only from one task (a connection's reader or writer).
pub(crate) struct Signal {
    token: CancellationToken,
    wait: Pin<Box<WaitForCancellationFutureOwned>>,
    joined: bool,
}

impl Signal {
    pub fn new(token: CancellationToken) -> Self {
        let wait = Box::pin(token.clone().cancelled_owned());
        Signal { token, wait, joined: false }
    }

    /// Ready once the token is cancelled. Every poll must come from the same task: only the
    /// first one's waker is kept.
    pub fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.joined {
            return if self.token.is_cancelled() { Poll::Ready(()) } else { Poll::Pending };
        }
        self.joined = true;
        self.wait.as_mut().poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::task::Waker;

    use super::*;
    use crate::wake_count::Wakes;

    #[test]
    fn a_signal_polled_many_times_wakes_its_task_once_cancelled() {
        let token = CancellationToken::new();
        let mut signal = Signal::new(token.clone());
        let wakes = Wakes::new();
        let waker = wakes.waker();
        let mut cx = Context::from_waker(&waker);
        for _ in 0..3 {
            assert!(signal.poll(&mut cx).is_pending());
        }
        token.cancel();
        assert_eq!(wakes.count(), 1, "the task is woken by the cancel");
        assert!(signal.poll(&mut cx).is_ready());
        assert!(signal.poll(&mut cx).is_ready(), "and stays ready");
    }

    #[test]
    fn a_signal_of_a_token_cancelled_before_its_first_poll_is_ready() {
        let token = CancellationToken::new();
        token.cancel();
        let mut signal = Signal::new(token);
        assert!(signal.poll(&mut Context::from_waker(Waker::noop())).is_ready());
    }
}
