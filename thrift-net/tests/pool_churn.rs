//! The pool under churn, as production sees it: 256 callers through a pool of 8 connections
//! per endpoint over 3 endpoints found by one host name; mid-run one endpoint is killed
//! (every connection cut, calls in flight lost) and started again on its port, and the host
//! name's answer changes (one address replaced by another). Every idempotent call
//! succeeds (the pool retries those whose outcome was lost), a call that fails is one the
//! policy may not retry, no caller gets another's reply, and retries stay within the budget.
//!
//! The figures are printed (`cargo test -p thrift-net --test pool_churn -- --nocapture`).

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hello::within;
use pool::{any_port, kill, listen};
use thrift_net::pool::{Resolve, RetryBudget};
use thrift_net::{service, CallError, PoolConfig, Server, ServerHandle};

const CALLERS: usize = 256;
const HOST: &str = "service.test:9090";

#[service]
trait Store {
    /// Reads: running it twice does no harm.
    #[thrift(idempotent)]
    async fn get(&self, #[thrift(id = 1)] key: String) -> String;

    /// Writes: never sent twice once it may have run.
    async fn put(&self, #[thrift(id = 1)] key: String) -> String;
}

struct Memory;

impl Store for Memory {
    async fn get(&self, key: String) -> String {
        tokio::time::sleep(Duration::from_micros(200)).await;
        format!("got {key}")
    }
    async fn put(&self, key: String) -> String {
        tokio::time::sleep(Duration::from_micros(200)).await;
        format!("put {key}")
    }
}

fn serve(addr: SocketAddr) -> ServerHandle {
    Server::new().serve(listen(addr), store::Server::new(Memory)).expect("serve")
}

/// A resolver whose answer the test changes.
#[derive(Clone)]
struct Answer(Arc<Mutex<Vec<SocketAddr>>>);

impl Resolve for Answer {
    fn resolve<'a>(
        &'a self,
        _: &'a str,
    ) -> Pin<Box<dyn std::future::Future<Output = std::io::Result<Vec<SocketAddr>>> + Send + 'a>> {
        let addrs = self.0.lock().unwrap().clone();
        Box::pin(async move { Ok(addrs) })
    }
}

#[derive(Default)]
struct Tally {
    gets: AtomicU64,
    puts: AtomicU64,
    puts_lost: AtomicU64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_see_no_retryable_failure_and_no_wrong_reply_through_a_kill_a_restart_and_a_dns_change() {
    let (a, b, c, d) = (serve(any_port()), serve(any_port()), serve(any_port()), serve(any_port()));
    let a_addr = a.local_addr();
    let answer = Answer(Arc::new(Mutex::new(vec![a_addr, b.local_addr(), c.local_addr()])));
    let config = PoolConfig::default().with_max_total(8).with_max_eject_backoff(Duration::from_secs(1));
    let (pool, _dns) =
        within(thrift_net::Pool::resolve_with([HOST], Duration::from_millis(50), answer.clone(), config))
            .await
            .expect("the first lookup");
    let client = store::Client::new(pool.clone());

    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let callers: Vec<_> = (0..CALLERS)
        .map(|caller| {
            let (client, stop, tally) = (client.clone(), stop.clone(), tally.clone());
            tokio::spawn(async move {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let key = format!("{caller}.{n}");
                    if n % 2 == 0 {
                        match client.get(key.clone()).await {
                            Ok(value) => assert_eq!(value, format!("got {key}"), "another caller's reply"),
                            Err(e) => panic!("an idempotent call failed: {e:?}"),
                        }
                        tally.gets.fetch_add(1, Ordering::Relaxed);
                    } else {
                        match client.put(key.clone()).await {
                            Ok(value) => assert_eq!(value, format!("put {key}"), "another caller's reply"),
                            // Lost with its connection: it may have run, so it is not retried.
                            Err(e @ (CallError::Transport(..) | CallError::Timeout(..))) => {
                                assert!(!e.is_retry_safe(), "{e:?}");
                                tally.puts_lost.fetch_add(1, Ordering::Relaxed);
                            }
                            Err(e) => panic!("a call failed that the pool may retry: {e:?}"),
                        }
                        tally.puts.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();

    // The timeline: load, kill A, start it again, move the name from C to D, load.
    tokio::time::sleep(Duration::from_millis(500)).await;
    kill(&a).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let a = serve(a_addr);
    // Once its ejection's backoff runs out, a call probes A and readmits it.
    hello::eventually("A takes calls again", || a.metrics().requests > 0).await;
    *answer.0.lock().unwrap() = vec![a_addr, b.local_addr(), d.local_addr()];
    hello::eventually("the pool follows the new answer", || pool.endpoints().contains(&d.local_addr())).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::Relaxed);
    for caller in callers {
        within(caller).await.expect("a caller's assertion failed");
    }
    let elapsed = started.elapsed();

    let (gets, puts, lost) = (
        tally.gets.load(Ordering::Relaxed),
        tally.puts.load(Ordering::Relaxed),
        tally.puts_lost.load(Ordering::Relaxed),
    );
    let retries = pool.retries();
    let budget = RetryBudget::default();
    let allowed =
        u64::from(budget.min_per_second) * budget.ttl.as_secs() + (gets + puts) * u64::from(budget.percent) / 100;
    eprintln!(
        "churn: {} calls in {elapsed:.1?} ({gets} idempotent, 0 failed; {puts} not, {lost} lost with a killed \
         connection); {} retries (budget allowed {allowed}), {} refused by the budget; requests served: A {} since \
         its restart, B {}, C {}, D {}",
        gets + puts,
        retries.retried,
        retries.refused_by_budget,
        a.metrics().requests,
        b.metrics().requests,
        c.metrics().requests,
        d.metrics().requests,
    );
    assert!(gets > 1000 && puts > 1000, "the run made calls: {gets} gets, {puts} puts");
    assert!(retries.retried <= allowed, "{} retries, the budget allows {allowed}", retries.retried);
    assert_eq!(pool.endpoints().len(), 3);
    assert!(!pool.endpoints().contains(&c.local_addr()), "C left the pool");
    assert!(a.metrics().requests > 0, "A took calls again after its restart");
    assert!(d.metrics().requests > 0, "D took calls once the name pointed at it");
}
