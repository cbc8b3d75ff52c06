//! Endpoints from a stream of changes (tower's `Discover` shape): a task applies each
//! `Change::Insert(key, addr)` and `Change::Remove(key)` to a pool until the stream ends or
//! the pool is dropped.

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Weak};

use futures_core::Stream;
use tower::discover::Change;

use super::{Inner, Pool, PoolConfig};

/// What a discovery task has done so far ([`DiscoveryTask::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscoveryStats {
    /// Changes applied (inserts and removes, including those that left the list as it was:
    /// a key moved to the address it had, or a second key for a listed address).
    pub changes: u64,
    /// Endpoints listed by an insert (an address not listed before).
    pub added: u64,
    /// Endpoints retired by a remove (the last key for an address).
    pub removed: u64,
    /// Errors the stream yielded (each logged, and then the next item read).
    pub errors: u64,
    /// The stream ended (or the pool was dropped): the pool keeps its last endpoints.
    pub ended: bool,
}

#[derive(Default)]
struct Counts {
    changes: AtomicU64,
    added: AtomicU64,
    removed: AtomicU64,
    errors: AtomicU64,
    ended: AtomicBool,
}

/// The task [`Pool::discover`] or [`Pool::resolve`] started: it applies the stream's changes
/// to the pool until the stream ends or the last clone of the pool is dropped (it does not
/// keep the pool alive). Dropping this handle leaves the task running; [`stop`](Self::stop)
/// ends it (the pool then keeps the endpoints it has).
#[derive(Debug)]
pub struct DiscoveryTask {
    task: tokio::task::JoinHandle<()>,
    counts: Arc<Counts>,
    /// Bumped after each item the stream yields, and when it ends.
    progress: tokio::sync::watch::Receiver<u64>,
}

impl std::fmt::Debug for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counts").finish_non_exhaustive()
    }
}

impl DiscoveryTask {
    /// What the task has done so far.
    pub fn stats(&self) -> DiscoveryStats {
        let c = &self.counts;
        DiscoveryStats {
            changes: c.changes.load(Relaxed),
            added: c.added.load(Relaxed),
            removed: c.removed.load(Relaxed),
            errors: c.errors.load(Relaxed),
            ended: c.ended.load(Relaxed),
        }
    }

    /// Waits until the stream has yielded its first item (a change applied or an error
    /// counted) or ended: after [`Pool::discover`], so that the first call does not find the
    /// pool still empty. Bound it with a timeout if the source may stay silent.
    pub async fn ready(&self) {
        let mut progress = self.progress.clone();
        // An error means the task ended, which counts as ready too.
        let _ = progress.wait_for(|&n| n > 0).await;
    }

    /// Whether the task has ended (its stream ended, or the pool was dropped).
    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Stops the task; the pool keeps the endpoints it has.
    pub fn stop(self) {
        self.task.abort();
    }
}

impl Pool {
    /// A pool whose endpoints come from `changes`, a stream of tower's
    /// [`Change`]`<K, SocketAddr>` (what DNS SRV, Consul, etcd or Kubernetes watchers
    /// produce), applied by a tokio task as they arrive. The pool starts with no endpoints:
    /// await [`DiscoveryTask::ready`] before the first call, which otherwise fails at once
    /// with [`CallError::Unavailable`](crate::CallError::Unavailable).
    ///
    /// Keys name endpoints: `Insert(k, addr)` lists `addr` under `k` (a key inserted again
    /// with another address moves there), `Remove(k)` removes it. The address is the
    /// endpoint: two keys for one address share its connections, and it leaves the list
    /// with its last key. A removed endpoint takes no new calls; its idle connections close
    /// at once and its busy ones when their calls end. A `Remove` of an unknown key is
    /// ignored. An `Err` item is logged (a `tracing` warning) and counted
    /// ([`DiscoveryStats::errors`]), and the task goes on; when the stream ends the pool
    /// keeps its last endpoints. [`Pool::endpoints`] shows the list in force.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub fn discover<S, K, E>(changes: S, config: PoolConfig) -> (Pool, DiscoveryTask)
    where
        S: Stream<Item = Result<Change<K, SocketAddr>, E>> + Send + 'static,
        K: Hash + Eq + Clone + Send + Sync + 'static,
        E: Display + Send + 'static,
    {
        let pool = Pool::new([], config);
        let task = pool.follow(changes, HashMap::new());
        (pool, task)
    }

    /// Starts the task applying `changes`, with `keys` already listed (each key to its
    /// address, counted once in the endpoint list).
    pub(super) fn follow<S, K, E>(&self, changes: S, keys: HashMap<K, SocketAddr>) -> DiscoveryTask
    where
        S: Stream<Item = Result<Change<K, SocketAddr>, E>> + Send + 'static,
        K: Hash + Eq + Clone + Send + Sync + 'static,
        E: Display + Send + 'static,
    {
        let counts = Arc::new(Counts::default());
        let (progress_tx, progress) = tokio::sync::watch::channel(0);
        let dropped = self.inner.dropped.subscribe();
        let pool = Arc::downgrade(&self.inner);
        let run = apply(pool, Box::pin(changes), keys, counts.clone(), progress_tx, dropped);
        DiscoveryTask { task: tokio::spawn(run), counts, progress }
    }
}

/// A change stream, boxed so the task's loop is one function whatever the source.
type Changes<K, E> = Pin<Box<dyn Stream<Item = Result<Change<K, SocketAddr>, E>> + Send>>;

async fn apply<K, E>(
    pool: Weak<Inner>,
    mut changes: Changes<K, E>,
    mut keys: HashMap<K, SocketAddr>,
    counts: Arc<Counts>,
    progress: tokio::sync::watch::Sender<u64>,
    mut dropped: tokio::sync::watch::Receiver<()>,
) where
    K: Hash + Eq + Clone + Send + Sync + 'static,
    E: Display + Send + 'static,
{
    loop {
        let next = tokio::select! {
            next = std::future::poll_fn(|cx| changes.as_mut().poll_next(cx)) => next,
            // Only ever an error: the pool's sender went with its last clone.
            _ = dropped.changed() => None,
        };
        let Some(next) = next else { break };
        let Some(inner) = pool.upgrade() else { break };
        let (endpoints, settings) = (&inner.endpoints, &inner.settings);
        match next {
            Ok(Change::Insert(key, addr)) => {
                let previous = keys.insert(key, addr);
                if previous != Some(addr) {
                    if endpoints.insert(addr, settings) {
                        counts.added.fetch_add(1, Relaxed);
                    }
                    if previous.is_some_and(|old| endpoints.remove(old)) {
                        counts.removed.fetch_add(1, Relaxed);
                    }
                }
                counts.changes.fetch_add(1, Relaxed);
            }
            Ok(Change::Remove(key)) => {
                if keys.remove(&key).is_some_and(|old| endpoints.remove(old)) {
                    counts.removed.fetch_add(1, Relaxed);
                }
                counts.changes.fetch_add(1, Relaxed);
            }
            Err(e) => {
                counts.errors.fetch_add(1, Relaxed);
                tracing::warn!(error = %e, "pool discovery: the change stream yielded an error; keeping the endpoints");
            }
        }
        drop(inner);
        progress.send_modify(|n| *n += 1);
    }
    counts.ended.store(true, Relaxed);
    progress.send_modify(|n| *n += 1);
}
