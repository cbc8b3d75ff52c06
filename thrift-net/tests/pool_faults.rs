//! Faults the pool survives, on 127.0.0.1: the server killed and restarted on the same port,
//! a server closing idle connections, every connection busy past `wait_timeout`, a slow
//! server tripping call timeouts, a call abandoned midway, a server sending replies no call
//! asked for.

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::time::{Duration, Instant};

use hello::*;
use pool::*;
use thrift_net::pool::Mode;
use thrift_net::{CallError, ClientConfig, Pool, PoolConfig, Server, Unavailable};

fn hello(name: &str) -> HelloRequest {
    HelloRequest { name: name.into() }
}

/// A call during an outage must fail at once, not after a timeout.
const FAST: Duration = Duration::from_millis(500);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_killed_and_restarted_calls_fail_fast_then_the_first_call_succeeds() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let addr = handle.local_addr();
    let pool = Pool::new([addr], PoolConfig::default().with_max_total(4));
    let client = hello_service::Client::new(pool.clone());
    // Four connections open and idle.
    let calls = (0..4).map(|i| client.slow_hello(format!("{i}"), 50));
    for reply in within(futures_join_all(calls)).await {
        assert!(reply.unwrap().starts_with("hello, "));
    }
    assert_eq!(pool.metrics()[0].idle, 4);

    kill(&handle).await;
    // During the outage: every call fails at once. The first ones may still find a connection
    // whose close the client has not read yet (a transport error: the call may have been
    // sent); once the pool has seen the refusal, every call says the endpoint is down.
    let mut unavailable = 0;
    for i in 0..40 {
        let started = Instant::now();
        let result = within(client.say_hello(hello(&format!("outage {i}")))).await;
        assert!(started.elapsed() < FAST, "call {i} took {:?}", started.elapsed());
        match result {
            Err(CallError::Unavailable(why, ..)) => {
                let why = why.to_string();
                assert!(why.contains(&addr.to_string()), "names the endpoint: {why}");
                assert!(why.to_lowercase().contains("refused"), "says why: {why}");
                unavailable += 1;
            }
            Err(CallError::Transport(e, ..)) if unavailable == 0 => eprintln!("a stale connection's call failed: {e}"),
            other => panic!("call {i} during the outage: {other:?}"),
        }
    }
    assert!(unavailable >= 36, "{unavailable} of 40 calls named the refusal");
    let m = pool.metrics()[0];
    assert!(m.connect_failures >= 1 && m.idle == 0, "stale connections are gone: {m:?}");

    // Restart on the same port: the very first call succeeds, with no reset by hand.
    let (handle, _) = serve_on(addr, &Server::new());
    let reply = within(client.say_hello(hello("back"))).await;
    assert_eq!(reply.expect("the first call after the restart").message, "hello, back");
    assert!(!pool.metrics()[0].ejected);
    assert_eq!(handle.metrics().connections_accepted, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_stale_connection_is_handed_out_after_a_restart_without_calls_in_between() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let addr = handle.local_addr();
    let pool = Pool::new([addr], PoolConfig::default().with_max_total(4));
    let client = hello_service::Client::new(pool.clone());
    let calls = (0..4).map(|i| client.slow_hello(format!("{i}"), 50));
    for reply in within(futures_join_all(calls)).await {
        reply.unwrap();
    }
    assert_eq!(pool.metrics()[0].idle, 4);

    kill(&handle).await;
    let (handle, _) = serve_on(addr, &Server::new());
    // The kill closed the four sockets before `kill` returned; give each connection's
    // reader a moment to read that close (a scheduling delay, not a network one).
    tokio::time::sleep(Duration::from_millis(100)).await;
    for i in 0..8 {
        let reply = within(client.say_hello(hello(&format!("{i}")))).await;
        assert_eq!(reply.expect("no stale connection").message, format!("hello, {i}"));
    }
    let m = pool.metrics()[0];
    assert_eq!((m.created, m.destroyed, m.connect_failures), (5, 4, 0), "{m:?}");
    assert_eq!(handle.metrics().connections_accepted, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkout_notices_a_connection_the_server_closed_for_idleness() {
    let server = Server::builder().read_idle_timeout(Duration::from_millis(100)).build();
    let (handle, _) = serve_on(any_port(), &server);
    for test_on_checkout in [true, false] {
        let config = PoolConfig::default().with_test_on_checkout(test_on_checkout);
        let pool = Pool::new([handle.local_addr()], config);
        let client = hello_service::Client::new(pool.clone());
        assert_eq!(within(client.say_hello(hello("first"))).await.unwrap().message, "hello, first");
        eventually("the server closed the idle connection", || handle.metrics().connections == 0).await;
        tokio::time::sleep(Duration::from_millis(50)).await; // the client's reader sees the close

        let second = within(client.say_hello(hello("second"))).await;
        if test_on_checkout {
            assert_eq!(second.expect("checkout replaced the closed connection").message, "hello, second");
            let m = pool.metrics()[0];
            assert_eq!((m.created, m.destroyed), (2, 1), "{m:?}");
        } else {
            // Unchecked, the closed connection is handed out; its call is refused unsent, the
            // connection discarded, and the call sent again on a new one.
            assert_eq!(second.expect("sent again on a new connection").message, "hello, second");
            assert_eq!(within(client.say_hello(hello("third"))).await.unwrap().message, "hello, third");
            let m = pool.metrics()[0];
            assert_eq!((m.created, m.destroyed), (2, 1), "{m:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_timeout_fires_when_every_connection_is_busy() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let wait = Duration::from_millis(100);
    let pool = Pool::new([handle.local_addr()], PoolConfig::default().with_max_total(2).with_wait_timeout(wait));
    let client = hello_service::Client::new(pool.clone());
    let slow: Vec<_> = (0..2)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { client.slow_hello(format!("slow {i}"), 1500).await })
        })
        .collect();
    eventually("both connections busy", || pool.metrics()[0].active == 2).await;

    let waiting = tokio::spawn({
        let client = client.clone();
        async move {
            let started = Instant::now();
            (client.say_hello(hello("third")).await, started.elapsed())
        }
    });
    eventually("the third call waits", || pool.metrics()[0].waiting == 1).await;
    let (result, waited) = within(waiting).await.unwrap();
    match result {
        Err(CallError::Unavailable(Unavailable::Busy { endpoint, in_use, .. }, site)) => {
            assert_eq!((endpoint, in_use, site.method()), (handle.local_addr(), Some(2), Some("sayHello")));
        }
        other => panic!("expected the wait timeout, got {other:?}"),
    }
    assert!(waited >= wait && waited < Duration::from_millis(1400), "waited {waited:?}");
    let m = pool.metrics()[0];
    assert_eq!((m.timeouts, m.waiting, m.created), (1, 0, 2), "{m:?}");

    for call in slow {
        assert_eq!(within(call).await.unwrap().unwrap().len(), "hello, slow 0".len());
    }
    assert_eq!(handle.metrics().connections_accepted, 2, "no connection beyond max_total");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_server_trips_call_timeouts_and_those_connections_are_discarded() {
    let (handle, greeter) = serve_on(any_port(), &Server::new());
    let client_config = ClientConfig::default().with_call_timeout(Duration::from_millis(100));
    let pool = Pool::new([handle.local_addr()], PoolConfig::default().with_max_total(4).with_client(client_config));
    let client = hello_service::Client::new(pool.clone());

    let calls = (0..4).map(|i| client.slow_hello(format!("{i}"), 1000));
    for result in within(futures_join_all(calls)).await {
        assert!(matches!(result, Err(CallError::Timeout(..))), "{result:?}");
    }
    let m = pool.metrics()[0];
    assert_eq!((m.timeouts, m.created, m.destroyed, m.idle, m.active), (4, 4, 4, 0, 0), "{m:?}");
    // Discarded means closed: the server sees the four connections go, and cancels the
    // handlers nobody waits for any more.
    eventually("the server sees the discarded connections close", || handle.metrics().connections == 0).await;
    assert_eq!(handle.metrics().handlers_cancelled, 4);

    // A fast call gets a fresh connection.
    assert_eq!(within(client.say_hello(hello("fast"))).await.unwrap().message, "hello, fast");
    let m = pool.metrics()[0];
    assert_eq!((m.created, m.destroyed, m.idle), (5, 4, 1), "{m:?}");
    assert_eq!(greeter.finished(), 1, "only the fast call ran to its end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_dropped_midway_discards_its_connection() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let pool = Pool::new([handle.local_addr()], PoolConfig::default());
    let client = hello_service::Client::new(pool.clone());
    let abandoned = tokio::time::timeout(Duration::from_millis(50), client.slow_hello("gone".into(), 1000)).await;
    assert!(abandoned.is_err(), "the caller gave up");
    let m = pool.metrics()[0];
    assert_eq!((m.created, m.destroyed, m.active, m.idle, m.in_flight), (1, 1, 0, 0, 0), "{m:?}");
    assert_eq!(within(client.say_hello(hello("next"))).await.unwrap().message, "hello, next");
    assert_eq!(pool.metrics()[0].created, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_mode_retires_a_connection_that_saw_a_timeout_without_failing_its_other_calls() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let client_config = ClientConfig::default().with_call_timeout(Duration::from_millis(300));
    let config = PoolConfig::default().with_mode(Mode::Shared { connections: 1 }).with_client(client_config);
    let pool = Pool::new([handle.local_addr()], config);
    let client = hello_service::Client::new(pool.clone());
    assert_eq!(within(client.say_hello(hello("warm"))).await.unwrap().message, "hello, warm");

    // On the one connection: a call that times out at 300 ms, and one made at 200 ms that
    // is still waiting for its reply (at 400 ms) when the first times out.
    let slow = client.slow_hello("slow".into(), 2000);
    let ok = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        client.slow_hello("in time".into(), 200).await
    };
    let (slow, ok) = within(async { tokio::join!(slow, ok) }).await;
    assert!(matches!(slow, Err(CallError::Timeout(..))), "{slow:?}");
    assert_eq!(ok.expect("a pipelined neighbour is not failed"), "hello, in time");

    // The next call opens a new connection; the retired one closes as soon as it is unused.
    assert_eq!(within(client.say_hello(hello("after"))).await.unwrap().message, "hello, after");
    let m = pool.metrics()[0];
    assert_eq!((m.timeouts, m.created, m.destroyed), (1, 2, 1), "{m:?}");
    assert_eq!(handle.metrics().connections_accepted, 2);
    eventually("the retired connection closed", || handle.metrics().connections == 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_no_call_asked_for_never_reaches_the_next_caller() {
    // Each reply comes twice: the second copy, unasked, is what the next call on that
    // connection would read, were the connection kept.
    let server = ApacheStyleServer::answering(2).await;
    for test_on_checkout in [true, false] {
        let config = PoolConfig::default().with_max_total(1).with_test_on_checkout(test_on_checkout);
        let pool = Pool::new([server.addr], config);
        let client = hello_service::Client::new(pool.clone());
        let mut answered = 0;
        for i in 0..20 {
            let name = format!("call {i}");
            match within(client.say_hello(hello(&name))).await {
                Ok(reply) => {
                    assert_eq!(reply.message, format!("hello, {name}"), "{test_on_checkout}");
                    answered += 1;
                }
                // The unasked copy arrived after the next call was written: that call fails
                // (it may have run), and never takes the copy for its reply.
                Err(CallError::Transport(e, ..)) => assert!(e.to_string().contains("no call was given"), "{e}"),
                Err(other) => panic!("call {i} ({test_on_checkout}): {other:?}"),
            }
        }
        // The copy comes with its reply, in one read, or before the next call: that call
        // goes on a new connection.
        assert!(answered >= 15, "{answered} of 20 answered ({test_on_checkout})");
        let m = pool.metrics()[0];
        assert!(m.created >= 20 && m.destroyed >= 19, "a connection per call: {m:?}");
    }
}

/// Runs futures concurrently on this task and collects their outputs in order.
async fn futures_join_all<F: std::future::Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    let mut out: Vec<Option<F::Output>> = (0..set.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, f) in out.iter_mut().zip(set.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|v| v.expect("every future finished")).collect()
}
