//! Both pool modes against a server that handles one request per connection at a time, as
//! Apache's `TSimpleServer`, `TThreadPoolServer` and `TNonblockingServer` do: every reply
//! correct either way; only exclusive mode gets parallelism from such a server. And every
//! transport × protocol through the pool.

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::sync::atomic::Ordering;
use std::time::Duration;

use hello::*;
use pool::*;
use thrift_core::__private::Void;
use thrift_core::{ApplicationExceptionKind, NoException};
use thrift_net::pool::Mode;
use thrift_net::{Call, CallError, ClientConfig, Pool, PoolConfig, ProtocolKind, Server, Transport};
use tower::ServiceExt;

/// 32 callers × 10 calls, each reply checked; slow ones (5 ms) so calls overlap.
async fn correct_replies(pool: &Pool) {
    let client = hello_service::Client::new(pool.clone());
    let tasks: Vec<_> = (0..32)
        .map(|t| {
            let client = client.clone();
            tokio::spawn(async move {
                for c in 0..10 {
                    let name = format!("{t}-{c}");
                    assert_eq!(client.slow_hello(name.clone(), 5).await.unwrap(), format!("hello, {name}"));
                    let reply = client.say_hello(HelloRequest { name: name.clone() }).await.unwrap();
                    assert_eq!(reply.message, format!("hello, {name}"));
                }
            })
        })
        .collect();
    for task in tasks {
        within(task).await.expect("a caller panicked");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_modes_are_correct_against_a_one_request_at_a_time_server() {
    for (mode, parallel) in
        [(Mode::Exclusive, 4), (Mode::Shared { connections: 1 }, 1), (Mode::Shared { connections: 4 }, 4)]
    {
        let server = ApacheStyleServer::start().await;
        let pool = Pool::new([server.addr], PoolConfig::default().with_mode(mode).with_max_total(4));
        correct_replies(&pool).await;
        let stats = &server.stats;
        assert_eq!(stats.requests.load(Ordering::SeqCst), 640, "{mode:?}");
        assert!(stats.connections.load(Ordering::SeqCst) <= 4, "{mode:?}");
        // Such a server runs at most one request per connection: the parallelism a mode
        // gets is its number of connections.
        assert_eq!(stats.most_running.load(Ordering::SeqCst), parallel, "{mode:?}");

        // Errors are replies: the connection stays.
        let client = hello_service::Client::new(pool.clone());
        match within(client.say_hello(HelloRequest::default())).await {
            Err(CallError::Exception(e)) => assert_eq!(e.reason, "no name"),
            other => panic!("{mode:?}: {other:?}"),
        }
        let reply = within(client.channel().clone().oneshot(Call::new(
            "HelloService",
            "noSuchMethod",
            HelloRequest::default(),
        )))
        .await;
        match reply.unwrap().expect("a reply").into_result::<Void, NoException>() {
            Err(CallError::Application(e, ..)) => assert_eq!(e.kind, ApplicationExceptionKind::UnknownMethod),
            other => panic!("{mode:?}: {other:?}"),
        }
        let m = pool.metrics()[0];
        assert_eq!(m.destroyed, 0, "{mode:?}: {m:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_call_does_not_misplace_replies_on_a_one_request_at_a_time_server() {
    // A call times out; its late reply must reach no other call. Exclusive mode discards the
    // connection; shared mode keeps it draining while the next calls go elsewhere, and the
    // late reply, matched by sequence id, is dropped.
    for mode in [Mode::Exclusive, Mode::Shared { connections: 2 }] {
        let server = ApacheStyleServer::start().await;
        let client_config = ClientConfig::default().with_call_timeout(Duration::from_millis(100));
        let pool = Pool::new([server.addr], PoolConfig::default().with_mode(mode).with_client(client_config));
        let client = hello_service::Client::new(pool.clone());
        let slow = within(client.slow_hello("late".into(), 300)).await;
        assert!(matches!(slow, Err(CallError::Timeout(..))), "{mode:?}: {slow:?}");
        for i in 0..10 {
            let name = format!("{i}");
            assert_eq!(within(client.slow_hello(name.clone(), 20)).await.unwrap(), format!("hello, {name}"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_transport_and_protocol_through_the_pool() {
    let (handle, _) = serve_on(any_port(), &Server::new());
    let headers = [
        (Transport::Header, ProtocolKind::Compact),
        (Transport::FramedHeader, ProtocolKind::Binary),
        (Transport::TTHeader, ProtocolKind::Binary),
        (Transport::Buffered, ProtocolKind::Json),
    ];
    for (transport, protocol) in wires().into_iter().chain(headers) {
        for mode in [Mode::Exclusive, Mode::Shared { connections: 2 }] {
            let client = ClientConfig::new(transport, protocol);
            let pool = Pool::new([handle.local_addr()], PoolConfig::default().with_mode(mode).with_client(client));
            let hello = hello_service::Client::new(pool);
            let (a, b) = within(async {
                tokio::join!(hello.slow_hello("a".into(), 20), hello.say_hello(HelloRequest { name: "b".into() }))
            })
            .await;
            assert_eq!(
                (a.unwrap(), b.unwrap().message),
                ("hello, a".into(), "hello, b".into()),
                "{transport:?} {protocol:?} {mode:?}"
            );
        }
    }
    assert_eq!(handle.metrics().errors, 0);
}
