//! The pool's knobs, each seen at the server: `min_idle` pre-warming, `max_idle` and
//! `max_idle_global`, `idle_timeout`, `max_lifetime`, LIFO against FIFO, the maintenance task;
//! and oneway messages through the pool.

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::time::Duration;

use hello::*;
use pool::*;
use thrift_net::pool::{Maintenance, Mode};
use thrift_net::{Pool, PoolConfig, Server};

fn hello(name: &str) -> HelloRequest {
    HelloRequest { name: name.into() }
}

/// `n` calls at once, each holding its connection for `ms`.
async fn concurrent_slow_calls(client: &hello_service::Client<Pool>, n: usize, ms: i32) {
    let calls: Vec<_> = (0..n)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { client.slow_hello(format!("{i}"), ms).await })
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        assert_eq!(within(call).await.unwrap().unwrap(), format!("hello, {i}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintain_opens_min_idle_connections_ahead_of_need() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (b, _) = serve_on(any_port(), &server);
    let down = dead_addr();
    // A backoff longer than the test: the down endpoint stays ejected throughout.
    let config = PoolConfig::default().with_min_idle(3).with_eject_backoff(Duration::from_secs(60));
    let pool = Pool::new([a.local_addr(), b.local_addr(), down], config);
    assert_eq!(a.metrics().connections_accepted, 0, "nothing opens before it is asked to");

    let report = within(pool.maintain()).await;
    assert_eq!((report.opened, report.failed, report.closed), (6, 1, 0), "{report:?}");
    for handle in [&a, &b] {
        eventually("three connections each", || handle.metrics().connections == 3).await;
    }
    let [ma, mb, md] = pool.metrics()[..] else { panic!("three endpoints") };
    assert_eq!((ma.idle, mb.idle, ma.created, mb.created), (3, 3, 3, 3));
    assert!(md.ejected && md.connect_failures == 1, "{md:?}");

    // Already warm: nothing to do (the down endpoint is ejected, so not retried either).
    assert_eq!(within(pool.maintain()).await, Maintenance::default());
    // Calls use the warm connections.
    let client = hello_service::Client::new(pool.clone());
    for i in 0..6 {
        assert_eq!(within(client.say_hello(hello(&format!("{i}")))).await.unwrap().message, format!("hello, {i}"));
    }
    assert_eq!(a.metrics().connections_accepted + b.metrics().connections_accepted, 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_idle_closes_connections_returned_beyond_it() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let pool = Pool::new([handle.local_addr()], PoolConfig::default().with_max_total(6).with_max_idle(2));
    let client = hello_service::Client::new(pool.clone());
    concurrent_slow_calls(&client, 6, 200).await;
    let m = pool.metrics()[0];
    assert_eq!((m.created, m.destroyed, m.idle), (6, 4, 2), "{m:?}");
    eventually("the server holds the two idle connections", || handle.metrics().connections == 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_idle_global_caps_idle_connections_over_all_endpoints() {
    let server = Server::new();
    let (a, _) = serve_on(any_port(), &server);
    let (b, _) = serve_on(any_port(), &server);
    let config = PoolConfig::default().with_max_idle_global(3);
    let pool = Pool::new([a.local_addr(), b.local_addr()], config);
    let client = hello_service::Client::new(pool.clone());
    concurrent_slow_calls(&client, 10, 200).await;
    let idle: usize = pool.metrics().iter().map(|m| m.idle).sum();
    let created: u64 = pool.metrics().iter().map(|m| m.created).sum();
    let destroyed: u64 = pool.metrics().iter().map(|m| m.destroyed).sum();
    assert_eq!((idle, created, destroyed), (3, 10, 7), "{:?}", pool.metrics());
    eventually("three connections stay open", || a.metrics().connections + b.metrics().connections == 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_timeout_expires_connections_at_checkout_and_in_maintenance() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let config = PoolConfig::default().with_idle_timeout(Duration::from_millis(150));
    let pool = Pool::new([handle.local_addr()], config);
    let client = hello_service::Client::new(pool.clone());
    concurrent_slow_calls(&client, 3, 50).await;
    assert_eq!(pool.metrics()[0].idle, 3);

    // Used within the timeout: kept.
    assert_eq!(within(client.say_hello(hello("soon"))).await.unwrap().message, "hello, soon");
    assert_eq!(pool.metrics()[0].created, 3);

    tokio::time::sleep(Duration::from_millis(250)).await;
    // Idle too long: maintenance closes all three...
    let report = within(pool.maintain()).await;
    assert_eq!(report.closed, 3, "{report:?}");
    eventually("the server sees them close", || handle.metrics().connections == 0).await;
    // ...and the next call opens a fresh one.
    assert_eq!(within(client.say_hello(hello("later"))).await.unwrap().message, "hello, later");
    let m = pool.metrics()[0];
    assert_eq!((m.created, m.destroyed, m.idle), (4, 3, 1), "{m:?}");

    // At checkout, without maintenance: the expired connection is passed over.
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(within(client.say_hello(hello("again"))).await.unwrap().message, "hello, again");
    let m = pool.metrics()[0];
    assert_eq!((m.created, m.destroyed, m.idle), (5, 4, 1), "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_lifetime_replaces_connections_however_busy() {
    for mode in [Mode::Exclusive, Mode::Shared { connections: 1 }] {
        let (handle, _) = serve_on(any_port(), &Server::new());
        let config = PoolConfig::default().with_max_lifetime(Duration::from_millis(100)).with_mode(mode);
        let pool = Pool::new([handle.local_addr()], config);
        let client = hello_service::Client::new(pool.clone());
        // Calls back to back for ~350 ms: the connection is replaced as it ages.
        for i in 0..35 {
            assert_eq!(within(client.slow_hello(format!("{i}"), 10)).await.unwrap(), format!("hello, {i}"));
        }
        let m = pool.metrics()[0];
        assert!(m.created >= 3 && m.destroyed >= 2 && m.created - m.destroyed == 1, "{mode:?}: {m:?}");
        assert_eq!(handle.metrics().connections_accepted, m.created);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifo_keeps_the_fewest_connections_warm_and_fifo_rotates_them_all() {
    for lifo in [true, false] {
        let (handle, _) = serve_on(any_port(), &Server::new());
        let config = PoolConfig::default().with_lifo(lifo).with_idle_timeout(Duration::from_millis(200));
        let pool = Pool::new([handle.local_addr()], config);
        let client = hello_service::Client::new(pool.clone());
        concurrent_slow_calls(&client, 4, 50).await;
        // One call at a time for ~400 ms: LIFO takes the same connection every time, so the
        // other three go unused past the idle timeout; FIFO takes each in turn.
        for i in 0..40 {
            within(client.slow_hello(format!("{i}"), 10)).await.unwrap();
        }
        // (Returns prune expired idle connections lazily; maintenance does the rest.)
        within(pool.maintain()).await;
        let m = pool.metrics()[0];
        if lifo {
            assert_eq!((m.idle, m.created, m.destroyed), (1, 4, 3), "LIFO: {m:?}");
            eventually("one connection left", || handle.metrics().connections == 1).await;
        } else {
            assert_eq!((m.idle, m.created, m.destroyed), (4, 4, 0), "FIFO: {m:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_maintenance_task_keeps_min_idle_and_stops_with_its_handle() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let config = PoolConfig::default().with_min_idle(2);
    let pool = Pool::new([handle.local_addr()], config);
    let task = pool.spawn_maintenance(Duration::from_millis(20));
    eventually("pre-warmed by the task", || pool.metrics()[0].idle == 2).await;
    assert_eq!(handle.metrics().connections_accepted, 2);
    drop(task);
    // Stopped: connections closed by the server are no longer replaced.
    kill(&handle).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(pool.metrics()[0].connect_failures, 0, "no maintenance ran after the handle was dropped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oneway_messages_and_declared_exceptions_through_the_pool() {
    for mode in [Mode::Exclusive, Mode::Shared { connections: 2 }] {
        let (handle, greeter) = serve_on(any_port(), &Server::new());
        let pool = Pool::new([handle.local_addr()], PoolConfig::default().with_mode(mode));
        let client = hello_service::Client::new(pool.clone());
        within(client.log("through the pool".into())).await.unwrap();
        eventually("the oneway message was handled", || {
            greeter.0.log.lock().unwrap().contains(&"through the pool".to_string())
        })
        .await;
        match within(client.say_hello(HelloRequest::default())).await {
            Err(thrift_net::CallError::Exception(e)) => assert_eq!(e.reason, "no name"),
            other => panic!("{mode:?}: expected the declared exception, got {other:?}"),
        }
        let m = pool.metrics()[0];
        assert_eq!((m.created, m.destroyed), (1, 0), "{mode:?}: replies and oneways keep the connection: {m:?}");
    }
}
