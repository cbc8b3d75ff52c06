//! The pool under load on 127.0.0.1: 256 tasks × 200 calls through `max_total = 8`, in both
//! modes; every reply is the right one, and the server never holds more than 8 connections.

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::sync::Arc;
use std::time::Duration;

use hello::*;
use pool::*;
use thrift_net::pool::Mode;
use thrift_net::{Pool, PoolConfig, Server};

const TASKS: usize = 256;
const CALLS: usize = 200;
const LOAD_DEADLINE: Duration = Duration::from_secs(60);

/// Runs TASKS × CALLS distinct greetings through `config` against a fresh server; returns
/// the most connections the server held at once and the pool.
async fn hammer(config: PoolConfig) -> (u64, Pool, Arc<thrift_net::ServerHandle>) {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let handle = Arc::new(handle);
    let watch = ConnectionWatch::start(handle.clone());
    let pool = Pool::new([handle.local_addr()], config);
    let client = hello_service::Client::new(pool.clone());
    let tasks: Vec<_> = (0..TASKS)
        .map(|t| {
            let client = client.clone();
            tokio::spawn(async move {
                for c in 0..CALLS {
                    let name = format!("{t}-{c}");
                    let reply = client.say_hello(HelloRequest { name: name.clone() }).await;
                    assert_eq!(reply.expect("every call succeeds").message, format!("hello, {name}"));
                }
            })
        })
        .collect();
    // 51,200 calls take a few seconds optimized, and up to ~15 s in a debug build on two
    // cores: a deadline of its own, still bounded.
    let all = async {
        for task in tasks {
            task.await.expect("a caller task panicked");
        }
    };
    tokio::time::timeout(LOAD_DEADLINE, all).await.expect("the load did not finish in time");
    let most = watch.finish().await;
    (most, pool, handle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exclusive_256_tasks_never_exceed_max_total_connections() {
    let config = PoolConfig::default().with_max_total(8).with_wait_timeout(Duration::from_secs(15));
    let (most, pool, handle) = hammer(config).await;
    let server = handle.metrics();
    assert_eq!(server.requests, (TASKS * CALLS) as u64);
    assert!(most <= 8, "the server saw {most} connections open at once");
    assert!(server.connections_accepted <= 8, "{server:?}");
    let [m] = pool.metrics()[..] else { panic!("one endpoint") };
    assert_eq!(m.created, server.connections_accepted, "{m:?}");
    assert_eq!((m.destroyed, m.timeouts, m.active, m.in_flight, m.waiting), (0, 0, 0, 0, 0), "{m:?}");
    assert_eq!(m.idle as u64, m.created, "every connection is back, idle: {m:?}");
    // With 256 callers for 8 connections, the pool used them all.
    assert_eq!(m.created, 8, "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_256_tasks_never_exceed_max_total_connections() {
    let config = PoolConfig::default().with_max_total(8).with_mode(Mode::Shared { connections: 100 });
    let (most, pool, handle) = hammer(config).await;
    let server = handle.metrics();
    assert_eq!(server.requests, (TASKS * CALLS) as u64);
    assert!(most <= 8, "the server saw {most} connections open at once");
    assert!(server.connections_accepted <= 8, "{server:?}");
    let [m] = pool.metrics()[..] else { panic!("one endpoint") };
    assert_eq!(m.created, server.connections_accepted, "{m:?}");
    assert_eq!((m.destroyed, m.timeouts, m.active, m.in_flight), (0, 0, 0, 0), "{m:?}");
    assert_eq!(pool.config().mode, Mode::Shared { connections: 8 }, "connections capped by max_total");
}
