//! For unit tests: a waker that counts how often its task was woken.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Wake, Waker};

/// Counts the wake-ups of the task it stands for.
#[derive(Default)]
pub(crate) struct Wakes(AtomicUsize);

impl Wakes {
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    pub fn waker(self: &Arc<Self>) -> Waker {
        Waker::from(self.clone())
    }

    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for Wakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}
