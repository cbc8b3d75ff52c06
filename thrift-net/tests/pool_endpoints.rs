//! A pool over several endpoints on 127.0.0.1: one down (its calls go to the others, and it
//! takes calls again once back), balancing, the list replaced at runtime, and everything
//! down.

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::time::{Duration, Instant};

use hello::*;
use pool::*;
use thrift_net::pool::Balance;
use thrift_net::{CallError, Pool, PoolConfig, Server, ServerHandle, Unavailable};

/// A short backoff, so a test sees an ejected endpoint come back within a few hundred ms.
fn quick_backoff() -> PoolConfig {
    PoolConfig::default()
        .with_eject_backoff(Duration::from_millis(20))
        .with_max_eject_backoff(Duration::from_millis(100))
}

/// `tasks` callers making `calls` calls each, every reply checked.
async fn run_calls(client: &hello_service::Client<Pool>, tasks: usize, calls: usize, tag: &str) {
    let handles: Vec<_> = (0..tasks)
        .map(|t| {
            let client = client.clone();
            let tag = tag.to_string();
            tokio::spawn(async move {
                for c in 0..calls {
                    let name = format!("{tag} {t}-{c}");
                    let reply = client.say_hello(HelloRequest { name: name.clone() }).await;
                    assert_eq!(reply.expect("every call succeeds").message, format!("hello, {name}"));
                }
            })
        })
        .collect();
    for handle in handles {
        within(handle).await.expect("a caller panicked");
    }
}

fn requests(handles: &[&ServerHandle]) -> Vec<u64> {
    handles.iter().map(|h| h.metrics().requests).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_endpoints_one_down_every_call_succeeds_and_it_takes_calls_once_back() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (b, _) = serve_on(any_port(), &server);
    let (c, _) = serve_on(any_port(), &server);
    let c_addr = c.local_addr();
    kill(&c).await;

    let pool = Pool::new([a.local_addr(), b.local_addr(), c_addr], quick_backoff());
    let client = hello_service::Client::new(pool.clone());
    // Long enough that the down endpoint's backoff runs out several times: each retry of it
    // is refused, and that call moves on to another endpoint.
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(300) {
        run_calls(&client, 16, 5, "down").await;
    }
    let [ma, mb, mc] = pool.metrics()[..] else { panic!("three endpoints") };
    assert!(mc.connect_failures >= 2, "the down endpoint was retried after its backoff: {mc:?}");
    assert_eq!((mc.created, mc.in_flight), (0, 0), "{mc:?}");
    assert!(ma.created >= 1 && mb.created >= 1, "{ma:?} {mb:?}");
    let [ra, rb] = requests(&[&a, &b])[..] else { unreachable!() };
    assert!(ra > 50 && rb > 50, "both live endpoints took calls: {ra} {rb}");

    // Back on the same port: within its (at most 100 ms) backoff it is tried again, and
    // then takes its share of the calls.
    let (c, _) = serve_on(c_addr, &server);
    let deadline = Instant::now() + Duration::from_secs(5);
    while c.metrics().requests == 0 {
        assert!(Instant::now() < deadline, "the endpoint never took calls again");
        run_calls(&client, 4, 5, "back").await;
    }
    assert!(!pool.metrics()[2].ejected);
    let before = requests(&[&a, &b, &c]);
    run_calls(&client, 16, 20, "after").await;
    let after = requests(&[&a, &b, &c]);
    let shares: Vec<u64> = after.iter().zip(&before).map(|(x, y)| x - y).collect();
    assert_eq!(shares.iter().sum::<u64>(), 320);
    assert!(shares.iter().all(|&s| s >= 40), "each endpoint takes a share again: {shares:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_robin_gives_each_endpoint_the_same_number_of_calls() {
    let server = Server::new();
    let servers: Vec<_> = (0..3).map(|_| serve_on(any_port(), &server).0).collect();
    let config = PoolConfig::default().with_balance(Balance::RoundRobin);
    let pool = Pool::new(servers.iter().map(|s| s.local_addr()), config);
    let client = hello_service::Client::new(pool);
    run_calls(&client, 1, 300, "rr").await;
    let counts = requests(&servers.iter().collect::<Vec<_>>());
    assert_eq!(counts, vec![100, 100, 100]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn power_of_two_choices_sends_calls_where_fewer_are_in_flight() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (b, _) = serve_on(any_port(), &server);
    let pool = Pool::new([a.local_addr(), b.local_addr()], PoolConfig::default());
    let client = hello_service::Client::new(pool.clone());
    // Twenty slow calls started one after another: with two endpoints both are compared
    // every time, so each call goes where fewer are in flight and they split evenly.
    let mut calls = Vec::new();
    for i in 0..20 {
        let client = client.clone();
        // Slow enough that none finishes before the last starts, however loaded the machine.
        calls.push(tokio::spawn(async move { client.slow_hello(format!("{i}"), 2000).await }));
        let in_flight = i + 1;
        eventually("the call is in flight", || pool.metrics().iter().map(|m| m.in_flight).sum::<usize>() == in_flight)
            .await;
    }
    let [ma, mb] = pool.metrics()[..] else { panic!("two endpoints") };
    assert_eq!((ma.in_flight, mb.in_flight), (10, 10), "{ma:?} {mb:?}");
    for call in calls {
        within(call).await.unwrap().unwrap();
    }
    assert_eq!(requests(&[&a, &b]), vec![10, 10]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replacing_the_endpoints_moves_calls_and_closes_the_old_connections() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (b, _) = serve_on(any_port(), &server);
    let pool = Pool::new([a.local_addr()], PoolConfig::default());
    let client = hello_service::Client::new(pool.clone());
    run_calls(&client, 4, 10, "a").await;
    assert_eq!(requests(&[&a, &b]), vec![40, 0]);
    assert!(a.metrics().connections >= 1);

    pool.set_endpoints([b.local_addr()]);
    assert_eq!(pool.endpoints(), vec![b.local_addr()]);
    eventually("the old endpoint's idle connections closed", || a.metrics().connections == 0).await;
    run_calls(&client, 4, 10, "b").await;
    assert_eq!(requests(&[&a, &b]), vec![40, 40]);
    let [m] = pool.metrics()[..] else { panic!("one endpoint") };
    assert_eq!(m.addr, b.local_addr());

    // Both, listed twice: each once; b keeps its connections.
    let b_created = m.created;
    pool.set_endpoints([a.local_addr(), b.local_addr(), a.local_addr()]);
    assert_eq!(pool.endpoints(), vec![a.local_addr(), b.local_addr()]);
    assert_eq!(pool.metrics()[1].created, b_created, "a kept endpoint keeps its connections");
    run_calls(&client, 8, 25, "ab").await;
    let [ra, rb] = requests(&[&a, &b])[..] else { unreachable!() };
    assert_eq!(ra + rb, 280);
    assert!(ra > 40 && rb > 40, "both take calls: {ra} {rb}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_endpoint_s_calls_finish_after_it_is_removed() {
    let (a, _) = serve_on(any_port(), &Server::new());
    let (b, _) = serve_on(any_port(), &Server::new());
    let pool = Pool::new([a.local_addr()], PoolConfig::default());
    let client = hello_service::Client::new(pool.clone());
    let slow = tokio::spawn({
        let client = client.clone();
        async move { client.slow_hello("slow".into(), 300).await }
    });
    eventually("the slow call is in flight", || pool.metrics()[0].in_flight == 1).await;
    pool.set_endpoints([b.local_addr()]);
    assert_eq!(within(slow).await.unwrap().unwrap(), "hello, slow", "a call in flight finishes");
    eventually("its connection closes once the call is done", || a.metrics().connections == 0).await;
    run_calls(&client, 1, 3, "b").await;
    assert_eq!(requests(&[&a, &b]), vec![1, 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_down_fails_fast_naming_each() {
    let (x, y) = (dead_addr(), dead_addr());
    let pool = Pool::new([x, y], quick_backoff());
    let client = hello_service::Client::new(pool.clone());
    for i in 0..5 {
        let started = Instant::now();
        let result = within(client.say_hello(HelloRequest { name: "nobody".into() })).await;
        assert!(started.elapsed() < Duration::from_millis(500), "call {i} took {:?}", started.elapsed());
        match result {
            Err(e @ CallError::Unavailable(Unavailable::Refused(_) | Unavailable::AllDown(_), _)) => {
                let CallError::Unavailable(Unavailable::Refused(downs) | Unavailable::AllDown(downs), site) = &e else {
                    unreachable!()
                };
                let mut named: Vec<_> = downs.iter().map(|d| d.endpoint).collect();
                named.sort();
                let mut both = vec![x, y];
                both.sort();
                assert_eq!(named, both, "names both: {e}");
                assert_eq!((site.service(), site.method()), (Some("HelloService"), Some("sayHello")), "{e}");
                assert!(e.to_string().starts_with("calling HelloService.sayHello: unavailable: "), "{e}");
            }
            other => panic!("expected the endpoints to be unavailable, got {other:?}"),
        }
    }
    assert!(pool.metrics().iter().all(|m| m.connect_failures >= 1 && m.created == 0));

    let empty = Pool::new([], PoolConfig::default());
    match hello_service::Client::new(empty).say_hello(HelloRequest::default()).await {
        Err(CallError::Unavailable(Unavailable::NoEndpoints, site)) => assert_eq!(site.method(), Some("sayHello")),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_at_its_connection_limit_is_treated_as_refusing_and_its_calls_go_elsewhere() {
    let full = start(Server::builder().max_connections(1).build()).await;
    let spare = start(Server::new()).await;
    // The full server's one place is taken by someone else's idle connection.
    let occupant = within(tokio::net::TcpStream::connect(full.local_addr())).await.unwrap();
    eventually("the occupant holds the only place", || full.metrics().connections == 1).await;

    let config = PoolConfig::default().with_balance(Balance::RoundRobin);
    let pool = Pool::new([full.local_addr(), spare.local_addr()], config);
    let client = hello_service::Client::new(pool.clone());
    run_calls(&client, 4, 10, "full").await;

    let metrics = pool.metrics();
    let at_full = metrics.iter().find(|m| m.addr == full.local_addr()).unwrap();
    assert!(at_full.ejections >= 1, "turned away counts as a refused connection: {at_full:?}");
    let on_full = full.metrics();
    assert!(on_full.connections_rejected >= 1 && on_full.requests == 0, "nothing ran on the full server: {on_full:?}");
    assert_eq!(spare.metrics().requests, 40, "every call ran once, on the spare");
    drop(occupant);
}
