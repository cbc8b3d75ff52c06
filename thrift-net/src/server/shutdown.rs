//! Graceful shutdown: stop accepting and reading, let requests in flight finish up to a
//! deadline, then abandon the rest and close.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// After the deadline, how long to wait for the abandoned tasks to notice. Only a handler
/// that blocks its thread (never returning to the runtime) can outlast it.
const ABANDON_WAIT: Duration = Duration::from_secs(1);

/// How a [`ServerHandle::shutdown`](super::ServerHandle::shutdown) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shutdown {
    /// Every request in flight was answered and every connection closed within the deadline.
    Graceful,
    /// The deadline passed: the requests still running were abandoned unanswered and their
    /// connections closed.
    Forced,
}

impl Shutdown {
    /// Whether everything finished within the deadline.
    pub fn is_graceful(self) -> bool {
        self == Shutdown::Graceful
    }
}

/// The signals and the task set a shutdown works with.
#[derive(Clone, Debug)]
pub(crate) struct Signals {
    /// Stop accepting connections and reading requests.
    pub stop: CancellationToken,
    /// Abandon requests in flight and unwritten replies.
    pub force: CancellationToken,
    /// Every task of the server: accept loop, connections, writers, requests.
    pub tracker: TaskTracker,
}

impl Signals {
    pub fn new() -> Self {
        Signals { stop: CancellationToken::new(), force: CancellationToken::new(), tracker: TaskTracker::new() }
    }

    /// Stops accepting and reading at once; the future waits for the rest.
    pub fn shutdown(&self, grace: Duration) -> impl Future<Output = Shutdown> + Send + 'static {
        self.stop.cancel();
        self.tracker.close();
        let signals = self.clone();
        async move {
            if tokio::time::timeout(grace, signals.tracker.wait()).await.is_ok() {
                return Shutdown::Graceful;
            }
            tracing::debug!(tasks = signals.tracker.len(), "shutdown deadline passed; abandoning requests in flight");
            signals.force.cancel();
            let _ = tokio::time::timeout(ABANDON_WAIT, signals.tracker.wait()).await;
            Shutdown::Forced
        }
    }
}
