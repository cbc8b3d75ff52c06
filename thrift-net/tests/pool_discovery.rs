//! A pool whose endpoints come from a change stream (`Pool::discover`) or from host names
//! looked up again on an interval (`Pool::resolve`): endpoints follow the source, a removed
//! one drains (its call in flight finishes, no new calls reach it), and a source's error or
//! end keeps the endpoints. Servers on 127.0.0.1; every wait bounded.

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use hello::*;
use pool::*;
use thrift_net::pool::{Change, Resolve};
use thrift_net::{Pool, PoolConfig, Server};
use tokio::sync::mpsc;

type Item = Result<Change<&'static str, SocketAddr>, String>;

/// A tokio mpsc receiver as a `Stream` (what a watcher task would hand the pool).
struct Changes(mpsc::Receiver<Item>);

impl futures_core::Stream for Changes {
    type Item = Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Item>> {
        self.0.poll_recv(cx)
    }
}

async fn hello_ok(client: &hello_service::Client<Pool>, n: usize) {
    for i in 0..n {
        let name = format!("call {i}");
        let reply = within(client.say_hello(HelloRequest { name: name.clone() })).await;
        assert_eq!(reply.expect("every call succeeds").message, format!("hello, {name}"));
    }
}

fn sorted(mut addrs: Vec<SocketAddr>) -> Vec<SocketAddr> {
    addrs.sort();
    addrs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_stream_drives_the_endpoints_and_a_removed_one_drains() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (b, _) = serve_on(any_port(), &server);
    let (tx, rx) = mpsc::channel(8);
    let (pool, task) = Pool::discover(Changes(rx), PoolConfig::default());
    let client = hello_service::Client::new(pool.clone());

    tx.send(Ok(Change::Insert("a", a.local_addr()))).await.unwrap();
    within(task.ready()).await;
    assert_eq!(pool.endpoints(), vec![a.local_addr()]);
    hello_ok(&client, 10).await;
    assert_eq!((a.metrics().requests, b.metrics().requests), (10, 0), "only A is listed");

    tx.send(Ok(Change::Insert("b", b.local_addr()))).await.unwrap();
    eventually("B is listed", || pool.endpoints().len() == 2).await;
    for _ in 0..50 {
        if b.metrics().requests > 0 {
            break;
        }
        hello_ok(&client, 5).await;
    }
    assert!(b.metrics().requests > 0, "calls reach B once it is inserted");

    // Slow calls on both endpoints (power of two choices spreads calls in flight), then A
    // removed while its call runs.
    let slow: Vec<_> = (0..4)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { client.slow_hello(format!("slow {i}"), 600).await })
        })
        .collect();
    let in_flight_on_a = || pool.metrics().iter().any(|m| m.addr == a.local_addr() && m.in_flight >= 1);
    eventually("a slow call runs on A", in_flight_on_a).await;
    tx.send(Ok(Change::Remove("a"))).await.unwrap();
    eventually("A is removed", || pool.endpoints() == vec![b.local_addr()]).await;
    let a_before = a.metrics().requests;
    hello_ok(&client, 20).await;
    assert_eq!(a.metrics().requests, a_before, "no new call reaches a removed endpoint");
    for (i, call) in slow.into_iter().enumerate() {
        let reply = within(call).await.expect("caller").expect("a call in flight finishes after its removal");
        assert_eq!(reply, format!("hello, slow {i}"));
    }

    // A stream error is counted and changes nothing; the stream's end keeps the endpoints.
    tx.send(Err("watch interrupted".into())).await.unwrap();
    eventually("the error is counted", || task.stats().errors == 1).await;
    drop(tx);
    eventually("the task ends with its stream", || task.is_finished()).await;
    let stats = task.stats();
    assert!(stats.ended && stats.added == 2 && stats.removed == 1 && stats.changes == 3, "{stats:?}");
    assert_eq!(pool.endpoints(), vec![b.local_addr()]);
    hello_ok(&client, 5).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_keys_for_one_address_share_it_until_both_go_and_the_task_stops_with_the_pool() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (tx, rx) = mpsc::channel(8);
    let (pool, task) = Pool::discover(Changes(rx), PoolConfig::default());
    tx.send(Ok(Change::Insert("one", a.local_addr()))).await.unwrap();
    tx.send(Ok(Change::Insert("two", a.local_addr()))).await.unwrap();
    tx.send(Ok(Change::Remove("one"))).await.unwrap();
    eventually("three changes applied", || task.stats().changes == 3).await;
    assert_eq!(pool.endpoints(), vec![a.local_addr()], "still named by \"two\"");
    tx.send(Ok(Change::Remove("two"))).await.unwrap();
    eventually("the last key gone", || pool.endpoints().is_empty()).await;
    drop(pool);
    eventually("the task stops once the pool is dropped", || task.is_finished()).await;
    assert!(task.stats().ended);
}

/// A resolver whose answer a test sets; `None` answers fail the lookup.
#[derive(Clone, Default)]
struct Fake(Arc<Mutex<Option<Vec<SocketAddr>>>>);

impl Fake {
    fn answer(&self, addrs: Option<Vec<SocketAddr>>) {
        *self.0.lock().unwrap() = addrs;
    }
}

impl Resolve for Fake {
    fn resolve<'a>(
        &'a self,
        target: &'a str,
    ) -> Pin<Box<dyn std::future::Future<Output = std::io::Result<Vec<SocketAddr>>> + Send + 'a>> {
        let answer = self.0.lock().unwrap().clone();
        Box::pin(async move {
            assert_eq!(target, "service.test:9090");
            answer.ok_or_else(|| std::io::Error::other("SERVFAIL"))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_follows_changing_answers_and_a_failed_lookup_keeps_the_endpoints() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (b, _) = serve_on(any_port(), &server);
    let (a_addr, b_addr) = (a.local_addr(), b.local_addr());
    let fake = Fake::default();

    fake.answer(None);
    let failed =
        Pool::resolve_with(["service.test:9090"], Duration::from_millis(20), fake.clone(), PoolConfig::default());
    assert!(within(failed).await.unwrap_err().to_string().contains("SERVFAIL"), "no first answer: an error");

    fake.answer(Some(vec![a_addr]));
    let every = Duration::from_millis(20);
    let (pool, task) =
        within(Pool::resolve_with(["service.test:9090"], every, fake.clone(), PoolConfig::default())).await.unwrap();
    assert_eq!(pool.endpoints(), vec![a_addr], "resolved before it returns");
    let client = hello_service::Client::new(pool.clone());
    hello_ok(&client, 5).await;

    fake.answer(Some(vec![b_addr]));
    eventually("the pool moves to B", || pool.endpoints() == vec![b_addr]).await;
    let a_before = a.metrics().requests;
    hello_ok(&client, 5).await;
    assert_eq!(a.metrics().requests, a_before, "A no longer takes calls");

    fake.answer(Some(vec![a_addr, b_addr]));
    eventually("the pool lists both", || sorted(pool.endpoints()) == sorted(vec![a_addr, b_addr])).await;

    fake.answer(None);
    let errors = task.stats().errors;
    eventually("failed lookups are counted", || task.stats().errors >= errors + 2).await;
    assert_eq!(sorted(pool.endpoints()), sorted(vec![a_addr, b_addr]), "a DNS failure keeps the endpoints");
    hello_ok(&client, 5).await;
    fake.answer(Some(vec![]));
    let errors = task.stats().errors;
    eventually("an empty answer counts as a failure", || task.stats().errors > errors).await;
    assert_eq!(pool.endpoints().len(), 2, "and keeps the endpoints too");

    drop((client, pool));
    eventually("the task stops once the pool is dropped", || task.is_finished()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn localhost_resolves_with_the_system_resolver_and_calls_succeed() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let target = format!("localhost:{}", a.local_addr().port());
    let (pool, _task) =
        within(Pool::resolve([target], Duration::from_secs(1), PoolConfig::default())).await.expect("localhost");
    // localhost may also name ::1, where nothing listens: that endpoint refuses, is
    // ejected, and its calls move to 127.0.0.1.
    assert!(pool.endpoints().contains(&a.local_addr()), "{:?}", pool.endpoints());
    let client = hello_service::Client::new(pool.clone());
    hello_ok(&client, 20).await;
    assert_eq!(a.metrics().requests, 20);

    // Where localhost names ::1 too and nothing listens there (not so on every machine):
    // the same as a name with one dead address, whose calls move to the live one.
    let fake = Fake::default();
    fake.answer(Some(vec![dead_addr(), a.local_addr()]));
    let every = Duration::from_secs(1);
    let (pool, _task) =
        within(Pool::resolve_with(["service.test:9090"], every, fake, PoolConfig::default())).await.unwrap();
    assert_eq!(pool.endpoints().len(), 2);
    hello_ok(&hello_service::Client::new(pool), 20).await;
    assert_eq!(a.metrics().requests, 40);
}
