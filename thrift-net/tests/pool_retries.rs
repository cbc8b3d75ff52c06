//! The pool sends a call again only when that is safe, and only within its retry budget: a
//! call that may have run is retried for idempotent methods alone, and a budget of 10% lets
//! an endpoint that fails every call see about a tenth more calls, not three times as many.

use std::net::SocketAddr;
use std::time::Duration;

use thrift_net::pool::{Balance, RetryBudget};
use thrift_net::{service, CallError, Pool, PoolConfig, Server};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

const DEADLINE: Duration = Duration::from_secs(20);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(DEADLINE, f).await.expect("hung past the test deadline")
}

#[service]
trait Store {
    /// Reads: running it twice does no harm.
    #[thrift(idempotent)]
    async fn get(&self, #[thrift(id = 1)] key: String) -> String;

    /// Writes: not marked, so never sent twice after it may have run.
    async fn put(&self, #[thrift(id = 1)] key: String) -> String;
}

struct Memory;

impl Store for Memory {
    async fn get(&self, key: String) -> String {
        format!("got {key}")
    }
    async fn put(&self, key: String) -> String {
        format!("put {key}")
    }
}

/// An endpoint that takes each call and closes the connection without an answer: the call
/// may have run there.
struct Dropper {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Dropper {
    async fn start() -> Dropper {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut buf = [0u8; 1024];
                    let _ = stream.read(&mut buf).await;
                    // Dropped here: closed with the call unanswered.
                });
            }
        });
        Dropper { addr, task }
    }
}

impl Drop for Dropper {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn config(budget: RetryBudget) -> PoolConfig {
    PoolConfig::default().with_balance(Balance::RoundRobin).with_eject_after_failures(0).with_retry_budget(budget)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_idempotent_calls_are_sent_again_after_they_may_have_run() {
    let dropper = Dropper::start().await;
    let server = Server::new().bind("127.0.0.1:0", store::Server::new(Memory)).await.unwrap();
    let endpoints = [dropper.addr, server.local_addr()];

    // Writes: those that reach the dropper fail as it left them, none is sent again.
    let pool = Pool::new(endpoints, config(RetryBudget::default()));
    let writes = store::Client::new(pool.clone());
    let mut lost = 0;
    for i in 0..10 {
        match within(writes.put(format!("k{i}"))).await {
            Ok(reply) => assert_eq!(reply, format!("put k{i}")),
            Err(CallError::Transport(..)) => lost += 1,
            Err(other) => panic!("unexpected: {other}"),
        }
    }
    assert_eq!(lost, 5, "round robin: every other write reached the dropper");
    assert_eq!(pool.retries().retried, 0);

    // Reads: each one the dropper lost is sent again, to the other endpoint.
    let pool = Pool::new(endpoints, config(RetryBudget::default()));
    let reads = store::Client::new(pool.clone());
    for i in 0..10 {
        assert_eq!(within(reads.get(format!("k{i}"))).await.unwrap(), format!("got k{i}"));
    }
    // Round robin: each read's retry takes the good endpoint's turn, so the next read
    // starts at the dropper again.
    assert_eq!(pool.retries().retried, 10);
    assert_eq!(pool.retries().refused_by_budget, 0);
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_bounds_retries_against_an_endpoint_that_fails_everything() {
    let dropper = Dropper::start().await;
    let budget = RetryBudget { min_per_second: 0, percent: 10, ..RetryBudget::default() };
    let pool = Pool::new([dropper.addr], config(budget));
    let reads = store::Client::new(pool.clone());
    let calls = 50;
    for i in 0..calls {
        let err = within(reads.get(format!("k{i}"))).await.unwrap_err();
        assert!(matches!(err, CallError::Transport(..)), "{err}");
    }
    let stats = pool.retries();
    // Without the budget each call would be sent three times: 100 retries.
    assert!(stats.retried <= calls / 10 + 1, "{stats:?}");
    assert!(stats.retried >= 1, "the budget pays for some: {stats:?}");
    assert!(stats.refused_by_budget >= calls - stats.retried - 1, "{stats:?}");
}
