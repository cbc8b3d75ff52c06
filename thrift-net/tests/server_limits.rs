//! The server's limits: the read-idle timeout, the connection limit, requests in flight per
//! connection, and frame sizes.

#[path = "common/hello.rs"]
mod hello;

use std::time::Duration;

use hello::*;
use thrift_core::{Limits, MessageType};
use thrift_net::{CallError, ClientConfig, Phase, ProtocolKind, Server, Transport};
use tokio::io::AsyncWriteExt;
use tokio::task::JoinSet;
use tokio::time::Instant;

const IDLE: Duration = Duration::from_millis(300);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_sends_nothing_is_disconnected_after_the_read_idle_timeout() {
    let handle = start(Server::builder().read_idle_timeout(IDLE).build()).await;
    let started = Instant::now();
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
    assert!(conn.closed_within(DEADLINE).await);
    let waited = started.elapsed();
    assert!(waited >= IDLE - Duration::from_millis(20), "closed after {waited:?}, before the timeout");
    eventually("the connection released", || handle.metrics().connections == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_trickles_is_disconnected_although_bytes_keep_coming() {
    let handle = start(Server::builder().read_idle_timeout(IDLE).build()).await;
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: "x".repeat(100) } };
    let message = encode_call(ProtocolKind::Binary, true, "sayHello", MessageType::Call, 1, &args);
    // One byte every 50 ms: each gap is well inside the timeout, the whole message is not
    // (it would take over 7 seconds).
    let started = Instant::now();
    let mut closed_after = None;
    for byte in &message {
        if conn.stream.write_all(&[*byte]).await.is_err() {
            closed_after = Some(started.elapsed());
            break;
        }
        if conn.closed_within(Duration::from_millis(50)).await {
            closed_after = Some(started.elapsed());
            break;
        }
    }
    let closed_after = closed_after.expect("the trickling peer was never disconnected");
    assert!(closed_after < Duration::from_secs(3), "disconnected only after {closed_after:?}");
    assert!(closed_after >= IDLE - Duration::from_millis(20), "disconnected after {closed_after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_handler_does_not_count_as_an_idle_peer() {
    let handle = start(Server::builder().read_idle_timeout(IDLE).build()).await;
    let client = hello_client(&handle, ClientConfig::default()).await;
    // The reply takes three timeouts to come; the peer is waiting on us meanwhile.
    let reply = within(client.slow_hello("patient".into(), 900)).await;
    assert_eq!(reply.unwrap(), "hello, patient");
    // Calls keep the connection alive...
    for _ in 0..3 {
        tokio::time::sleep(IDLE / 2).await;
        within(client.say_hello(HelloRequest { name: "again".into() })).await.unwrap();
    }
    // ...and once the client falls silent, the server closes it and the client sees it.
    within(client.channel().closed()).await;
    assert!(client.channel().is_closed());
    let e = within(client.say_hello(HelloRequest { name: "late".into() })).await.unwrap_err();
    assert!(matches!(e, CallError::NotSent(..)), "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_limit_are_turned_away_with_a_retryable_answer() {
    let handle = start(Server::builder().max_connections(2).build()).await;
    let first = hello_client(&handle, ClientConfig::default()).await;
    let second = hello_client(&handle, ClientConfig::default()).await;
    for client in [&first, &second] {
        within(client.say_hello(HelloRequest { name: "in".into() })).await.unwrap();
    }
    assert_eq!(handle.metrics().connections, 2);

    // A peer that sends nothing is closed once the short window for its first request ends.
    let mut third = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
    assert!(third.closed_within(Duration::from_secs(5)).await, "the third connection was kept");
    assert_eq!(handle.metrics().connections_rejected, 1);
    // A client's first call is answered, unrun: the server is full, not broken.
    let rejected = hello_client(&handle, ClientConfig::default()).await;
    let e = within(rejected.say_hello(HelloRequest { name: "no".into() })).await.unwrap_err();
    let CallError::Application(exception, ..) = &e else { panic!("expected AT_CAPACITY, got {e:?}") };
    assert_eq!(exception.message, thrift_net::server::AT_CAPACITY);
    assert!(e.is_retry_safe());
    // The client sends nothing more on that connection.
    let e = within(rejected.say_hello(HelloRequest { name: "again".into() })).await.unwrap_err();
    assert!(matches!(e, CallError::NotSent(..)), "{e:?}");
    assert_eq!(handle.metrics().connections_rejected, 2);
    assert_eq!(handle.metrics().requests, 2, "the turned-away call was not run");

    // A place frees up when a connection closes.
    drop(first);
    eventually("the first connection released", || handle.metrics().connections == 1).await;
    let fourth = hello_client(&handle, ClientConfig::default()).await;
    within(fourth.say_hello(HelloRequest { name: "in".into() })).await.unwrap();
    within(second.say_hello(HelloRequest { name: "still".into() })).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_in_flight_per_connection_are_bounded() {
    let (handle, greeter) = start_greeter(Server::builder().max_in_flight_per_connection(4).build()).await;
    let client = hello_client(&handle, ClientConfig::default()).await;
    let mut calls = JoinSet::new();
    for i in 0..40 {
        let client = client.clone();
        calls.spawn(async move { (i, client.slow_hello(format!("{i}"), 20).await) });
    }
    while let Some(joined) = within(calls.join_next()).await {
        let (i, reply) = joined.unwrap();
        assert_eq!(reply.unwrap(), format!("hello, {i}"));
    }
    assert_eq!(greeter.most_running(), 4, "never more than the limit at once, and the limit reached");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_beyond_the_limit_close_the_connection_and_fail_its_calls() {
    let limits = Limits { max_frame_len: 1024, ..Limits::default() };
    let handle = start(Server::builder().limits(limits).build()).await;
    let big = HelloRequest { name: "x".repeat(2000) };

    // A client that allows it: the server drops the connection, the call fails with a
    // transport error instead of hanging.
    let client = hello_client(&handle, ClientConfig::default()).await;
    let e = within(client.say_hello(big.clone())).await.unwrap_err();
    assert!(matches!(e, CallError::Transport(..)), "{e:?}");
    assert!(client.channel().is_closed());

    // A client with the same limit refuses to send it, and its connection stays usable.
    let config = ClientConfig::new(Transport::Framed, ProtocolKind::Compact).with_limits(limits);
    let client = hello_client(&handle, config).await;
    match within(client.say_hello(big)).await {
        Err(CallError::Transport(e, ..)) => assert_eq!(e.phase(), Phase::Encode, "{e}"),
        other => panic!("expected an encode error, got {other:?}"),
    }
    assert!(!client.channel().is_closed());
    within(client.say_hello(HelloRequest { name: "small".into() })).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_beyond_the_limit_is_answered_with_what_went_wrong_not_left_to_time_out() {
    let limits = Limits { max_frame_len: 1024, ..Limits::default() };
    let handle = start(Server::builder().limits(limits).build()).await;
    // A request of exactly the limit: its reply, "hello, " longer, is beyond it.
    let request = |name: String| hello_service::SayHelloArgs { req: HelloRequest { name } };
    let overhead =
        encode_call(ProtocolKind::Binary, true, "sayHello", MessageType::Call, 1, &request(String::new())).len() - 4;
    let name = "x".repeat(1024 - overhead);
    let client = hello_client(&handle, ClientConfig::default()).await;
    let e = within(client.say_hello(request(name).req)).await.unwrap_err();
    let CallError::Application(exception, ..) = &e else { panic!("expected INTERNAL_ERROR, got {e:?}") };
    assert_eq!(exception.kind, thrift_core::ApplicationExceptionKind::InternalError);
    assert!(exception.message.contains("exceeds the maximum frame size 1024"), "{}", exception.message);
    // The connection was not dropped: the next call is answered.
    within(client.say_hello(HelloRequest { name: "small".into() })).await.unwrap();
}
