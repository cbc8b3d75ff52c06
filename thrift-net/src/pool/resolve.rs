//! Endpoints by host name: targets (`"host:port"`) looked up on an interval, each answer
//! diffed against the last into [`Change`]s, fed to the pool's discovery task like any other
//! change stream. A failed lookup keeps that target's last known addresses.

use std::collections::BTreeSet;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use tokio::sync::mpsc;
use tower::discover::Change;

use super::{DiscoveryTask, Pool, PoolConfig};

/// Turns a target (`"host:port"`) into addresses: [`SystemResolver`] (the system's
/// resolver, through tokio), or your own (hickory, a test's fake).
pub trait Resolve: Send + Sync + 'static {
    /// The addresses `target` names now. An error, or no address, keeps the target's last
    /// known addresses.
    fn resolve<'a>(&'a self, target: &'a str)
        -> Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send + 'a>>;
}

/// The system's resolver (`getaddrinfo` on a blocking thread), through
/// [`tokio::net::lookup_host`]. A literal address (`"127.0.0.1:9090"`) needs no lookup.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve<'a>(
        &'a self,
        target: &'a str,
    ) -> Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send + 'a>> {
        Box::pin(async move { Ok(tokio::net::lookup_host(target).await?.collect()) })
    }
}

/// The targets and the last answer for each.
struct Lookup {
    resolver: Arc<dyn Resolve>,
    targets: Vec<(String, BTreeSet<SocketAddr>)>,
}

impl Lookup {
    fn new(targets: impl IntoIterator<Item = impl Into<String>>, resolver: Arc<dyn Resolve>) -> Lookup {
        Lookup { resolver, targets: targets.into_iter().map(|t| (t.into(), BTreeSet::new())).collect() }
    }

    /// Looks every target up once; a target whose lookup fails (or finds nothing) keeps its
    /// last answer. The errors, each naming its target.
    async fn round(&mut self) -> Vec<io::Error> {
        let mut errors = Vec::new();
        for (target, known) in &mut self.targets {
            match self.resolver.resolve(target).await {
                Ok(addrs) if !addrs.is_empty() => *known = addrs.into_iter().collect(),
                Ok(_) => errors.push(io::Error::new(io::ErrorKind::NotFound, format!("{target}: no addresses"))),
                Err(e) => errors.push(io::Error::new(e.kind(), format!("{target}: {e}"))),
            }
        }
        errors
    }

    /// Every target's addresses, once each.
    fn addrs(&self) -> BTreeSet<SocketAddr> {
        self.targets.iter().flat_map(|(_, addrs)| addrs.iter().copied()).collect()
    }
}

/// A stream of the [`Change`]s in what targets resolve to, keyed by address: a tokio task
/// looks them up every interval and yields the differences, inserts before removes (so a
/// name moving from one address to another never leaves the pool empty), and an `Err` for
/// each failed lookup (that target keeps its last addresses). The task ends when the stream
/// is dropped. [`Pool::resolve`] feeds one to [`Pool::discover`]'s task; build one yourself to
/// combine it with other sources.
#[derive(Debug)]
pub struct DnsChanges {
    changes: mpsc::Receiver<io::Result<Change<SocketAddr, SocketAddr>>>,
}

impl DnsChanges {
    /// Looks `targets` up now and then every `every` (at least a millisecond) with
    /// `resolver`; the first answers come as inserts.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub fn new(
        targets: impl IntoIterator<Item = impl Into<String>>,
        every: Duration,
        resolver: impl Resolve,
    ) -> DnsChanges {
        DnsChanges::spawn(Lookup::new(targets, Arc::new(resolver)), every, BTreeSet::new())
    }

    /// The stream of changes from `known`, the addresses already listed; when some are, the
    /// first lookup waits for the first interval.
    fn spawn(lookup: Lookup, every: Duration, known: BTreeSet<SocketAddr>) -> DnsChanges {
        let (tx, changes) = mpsc::channel(64);
        tokio::spawn(follow(lookup, every.max(Duration::from_millis(1)), known, tx));
        DnsChanges { changes }
    }
}

impl Stream for DnsChanges {
    type Item = io::Result<Change<SocketAddr, SocketAddr>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.changes.poll_recv(cx)
    }
}

async fn follow(
    mut lookup: Lookup,
    every: Duration,
    mut known: BTreeSet<SocketAddr>,
    tx: mpsc::Sender<io::Result<Change<SocketAddr, SocketAddr>>>,
) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    if !known.is_empty() {
        ticks.tick().await; // the first tick is now: the caller has just looked up
    }
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = tx.closed() => return,
        }
        let errors = tokio::select! {
            errors = lookup.round() => errors,
            _ = tx.closed() => return,
        };
        let now = lookup.addrs();
        let inserts = now.difference(&known).map(|&a| Ok(Change::Insert(a, a)));
        let removes = known.difference(&now).map(|&a| Ok(Change::Remove(a)));
        let items: Vec<_> = errors.into_iter().map(Err).chain(inserts).chain(removes).collect();
        for item in items {
            if tx.send(item).await.is_err() {
                return;
            }
        }
        known = now;
    }
}

impl Pool {
    /// A pool over what `targets` (`"host:port"`, or literal addresses) resolve to with the
    /// system's resolver, looked up again every `every`: see [`Pool::resolve_with`].
    pub async fn resolve(
        targets: impl IntoIterator<Item = impl Into<String>>,
        every: Duration,
        config: PoolConfig,
    ) -> io::Result<(Pool, DiscoveryTask)> {
        Pool::resolve_with(targets, every, SystemResolver, config).await
    }

    /// A pool over what `targets` resolve to with `resolver`, looked up again every `every`
    /// by a tokio task ([`DnsChanges`] fed to the task [`Pool::discover`] runs): a new address
    /// is added, one no longer in any answer drains (no new calls; calls in flight finish).
    /// A failed lookup is logged and counted ([`DiscoveryStats::errors`](super::DiscoveryStats::errors))
    /// and keeps that target's last addresses, so a DNS outage never empties the pool.
    ///
    /// It returns once the first lookup of every target is done, so the first call finds
    /// endpoints; an error when no target resolved to any address. The task stops when the
    /// last clone of the pool is dropped.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub async fn resolve_with(
        targets: impl IntoIterator<Item = impl Into<String>>,
        every: Duration,
        resolver: impl Resolve,
        config: PoolConfig,
    ) -> io::Result<(Pool, DiscoveryTask)> {
        let mut lookup = Lookup::new(targets, Arc::new(resolver));
        let mut errors = lookup.round().await;
        let known = lookup.addrs();
        if known.is_empty() {
            let why = errors.pop().unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no targets"));
            return Err(io::Error::new(why.kind(), format!("no target resolved: {why}")));
        }
        for e in errors {
            tracing::warn!(error = %e, "pool resolve: a target did not resolve; it is looked up again later");
        }
        let pool = Pool::new(known.iter().copied(), config);
        let keys = known.iter().map(|&a| (a, a)).collect();
        let task = pool.follow(DnsChanges::spawn(lookup, every, known), keys);
        Ok((pool, task))
    }
}
