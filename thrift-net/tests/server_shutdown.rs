//! Graceful shutdown: stop accepting, finish the requests in flight up to a deadline, close;
//! under load, the client's pending calls fail promptly and none hangs.

#[path = "common/hello.rs"]
mod hello;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hello::*;
use thrift_net::server::Shutdown;
use thrift_net::{CallError, ClientConfig, ProtocolKind, Server, Transport};
use tokio::net::TcpStream;
use tokio::task::JoinSet;
use tokio::time::Instant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_in_flight_finish_within_the_deadline() {
    let (handle, greeter) = start_greeter(Server::new()).await;
    let addr = handle.local_addr();
    let client = hello_client(&handle, ClientConfig::default()).await;
    let idle = hello_client(&handle, ClientConfig::new(Transport::Buffered, ProtocolKind::Compact)).await;
    within(idle.say_hello(HelloRequest { name: "idle".into() })).await.unwrap();

    let mut calls = JoinSet::new();
    for i in 0..20 {
        let client = client.clone();
        calls.spawn(async move { (i, client.slow_hello(format!("{i}"), 300).await) });
    }
    eventually("every call running", || greeter.0.running.load(Ordering::SeqCst) == 20).await;

    let outcome = within(handle.shutdown(Duration::from_secs(10))).await;
    assert_eq!(outcome, Shutdown::Graceful);
    // Each call in flight was answered.
    while let Some(joined) = within(calls.join_next()).await {
        let (i, reply) = joined.unwrap();
        assert_eq!(reply.unwrap(), format!("hello, {i}"));
    }
    // Connections are closed, the idle one too, and the port is no longer listening.
    within(client.channel().closed()).await;
    within(idle.channel().closed()).await;
    let e = within(client.say_hello(HelloRequest { name: "after".into() })).await.unwrap_err();
    assert!(matches!(e, CallError::NotSent(..)), "{e:?}");
    assert!(within(TcpStream::connect(addr)).await.is_err());
    let metrics = handle.metrics();
    assert_eq!((metrics.connections, metrics.in_flight), (0, 0), "{metrics:?}");
}

/// `Ok` for the errors a shutdown may give: a transport error (the connection closed under
/// the call) or a retry-safe one (refused unrun while shutting down, or never sent); the
/// error's description otherwise.
fn transport<E: std::fmt::Debug>(e: &CallError<E>) -> Result<(), String> {
    match e {
        CallError::Transport(..) => Ok(()),
        e if e.is_retry_safe() => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_shut_down_under_load_fails_the_pending_calls_promptly() {
    let (handle, greeter) = start_greeter(Server::new()).await;
    let config = ClientConfig::default().with_call_timeout(Duration::from_secs(60));
    let clients = [hello_client(&handle, config.clone()).await, hello_client(&handle, config).await];

    // Callers keep the connections busy with fast calls, and slow ones the deadline cuts.
    let stop = Arc::new(AtomicBool::new(false));
    let mut callers = JoinSet::new();
    for (n, client) in clients.iter().enumerate() {
        for i in 0..50 {
            let client = client.clone();
            let stop = stop.clone();
            callers.spawn(async move {
                let mut answered = 0;
                loop {
                    // Ok(reply), or whether the error was the transport's.
                    let result = if i % 5 == 0 {
                        client.slow_hello(format!("{n}-{i}"), 30_000).await.map_err(|e| transport(&e))
                    } else {
                        let reply = client.say_hello(HelloRequest { name: format!("{n}-{i}") }).await;
                        reply.map(|r| r.message).map_err(|e| transport(&e))
                    };
                    match result {
                        Ok(message) => {
                            assert!(message.ends_with(&format!("{n}-{i}")), "another call's reply: {message}");
                            answered += 1;
                        }
                        Err(Ok(())) => return (answered, Instant::now()),
                        Err(Err(other)) => panic!("unexpected error: {other}"),
                    }
                    if stop.load(Ordering::Relaxed) {
                        return (answered, Instant::now());
                    }
                }
            });
        }
    }
    eventually("the slow calls running", || greeter.0.running.load(Ordering::SeqCst) >= 20).await;
    eventually("fast calls answered", || greeter.finished() > 500).await;

    let started = Instant::now();
    let outcome = within(handle.shutdown(Duration::from_millis(200))).await;
    assert_eq!(outcome, Shutdown::Forced, "the 30 s calls cannot finish in 200 ms");
    assert!(started.elapsed() < Duration::from_secs(3), "shutdown took {:?}", started.elapsed());
    stop.store(true, Ordering::Relaxed);

    let mut answered = 0;
    while let Some(joined) = within(callers.join_next()).await {
        let (n, ended) = joined.expect("no caller panicked");
        answered += n;
        // Every caller finished promptly after the shutdown: none waited for its timeout.
        assert!(ended.duration_since(started) < Duration::from_secs(3), "a call hung for {:?}", ended - started);
    }
    assert!(answered > 0);
    for client in &clients {
        assert!(client.channel().is_closed());
        assert_eq!(client.channel().in_flight(), 0);
    }
}
