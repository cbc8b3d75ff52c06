//! The pipelining client against real and hand-written servers: timeouts, broken
//! connections, replies in any order, names, closing, and its tower face.

#[path = "common/hello.rs"]
mod hello;

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hello::*;
use thrift_core::__private::Returns;
use thrift_core::{Binary, Limits, MessageType};
use thrift_net::codec::FramedCodec;
use thrift_net::server::Peer;
use thrift_net::{Call, CallError, Client, ClientConfig, ProtocolKind, Request, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::codec::Decoder;
use tower::{ServiceBuilder, ServiceExt};

/// A hand-written server's side of one connection: framed binary requests in, bytes out.
struct FakeServer {
    stream: TcpStream,
    buf: BytesMut,
    codec: FramedCodec<Binary>,
}

impl FakeServer {
    /// Listens on 127.0.0.1 and returns its address and the future accepting one connection.
    async fn listen() -> (std::net::SocketAddr, impl std::future::Future<Output = FakeServer>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accept = async move {
            let (stream, _) = within(listener.accept()).await.unwrap();
            FakeServer { stream, buf: BytesMut::new(), codec: FramedCodec::new() }
        };
        (addr, accept)
    }

    /// The next request, or `None` when the client closed the connection.
    async fn request(&mut self) -> Option<Request> {
        loop {
            if let Some(message) = self.codec.decode(&mut self.buf).unwrap() {
                return Some(Request::parse(message, ProtocolKind::Binary, true, Limits::default()).unwrap());
            }
            if within(self.stream.read_buf(&mut self.buf)).await.unwrap_or(0) == 0 {
                return None;
            }
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        within(self.stream.write_all(bytes)).await.unwrap();
    }
}

fn say_hello_args(name: &str) -> hello_service::SayHelloArgs {
    hello_service::SayHelloArgs { req: HelloRequest { name: name.into() } }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_timeout_fails_and_its_late_reply_reaches_no_one() {
    let handle = start(Server::new()).await;
    let config = ClientConfig::default().with_call_timeout(Duration::from_millis(100));
    let client = hello_client(&handle, config).await;
    let started = Instant::now();
    match within(client.slow_hello("late".into(), 400)).await {
        Err(e @ CallError::Timeout(..)) => {
            let CallError::Timeout(limit, site) = &e else { unreachable!() };
            assert_eq!(*limit, Some(Duration::from_millis(100)));
            // The error names the call and where it went, on one line.
            let peer = Peer::Tcp(handle.local_addr());
            assert_eq!(
                (site.service(), site.method(), site.endpoint()),
                (Some("HelloService"), Some("slowHello"), Some(&peer))
            );
            assert_eq!(e.to_string(), format!("calling HelloService.slowHello on {peer}: no reply within 100ms"));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_millis(350), "{:?}", started.elapsed());
    assert_eq!(client.channel().in_flight(), 0, "a timed-out call is forgotten");
    // The late reply arrives meanwhile and is dropped; the next call gets its own.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let reply = within(client.say_hello(HelloRequest { name: "next".into() })).await.unwrap();
    assert_eq!(reply.message, "hello, next");
    assert!(!client.channel().is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_connection_fails_every_pending_call_at_once() {
    let (addr, accept) = FakeServer::listen().await;
    let config = ClientConfig::default().with_call_timeout(Duration::from_secs(60));
    let client = hello_service::Client::new(within(Client::connect(addr, config)).await.unwrap());
    let mut server = accept.await;

    let mut calls = JoinSet::new();
    for i in 0..10 {
        let client = client.clone();
        calls.spawn(async move { client.say_hello(HelloRequest { name: format!("{i}") }).await });
    }
    for _ in 0..10 {
        server.request().await.expect("a call");
    }
    assert_eq!(client.channel().in_flight(), 10);
    let broke = Instant::now();
    drop(server);
    while let Some(joined) = within(calls.join_next()).await {
        match joined.unwrap() {
            Err(CallError::Transport(e, site)) => {
                assert!(e.is_io(), "{e}");
                assert_eq!((site.method(), site.endpoint()), (Some("sayHello"), Some(&Peer::Tcp(addr))));
            }
            other => panic!("expected a transport error, got {other:?}"),
        }
    }
    assert!(broke.elapsed() < Duration::from_secs(2), "the calls waited {:?}", broke.elapsed());
    assert!(client.channel().is_closed());
    assert_eq!(client.channel().in_flight(), 0);
    // Later calls fail at once, without waiting for their timeout, as never sent.
    let started = Instant::now();
    let e = within(client.say_hello(HelloRequest { name: "after".into() })).await.unwrap_err();
    assert!(matches!(e, CallError::NotSent(..)) && e.is_retry_safe(), "{e:?}");
    assert!(started.elapsed() < Duration::from_millis(100));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_are_matched_by_seqid_in_any_order_and_strays_are_dropped() {
    let (addr, accept) = FakeServer::listen().await;
    let config = ClientConfig::default().with_multiplexed(true);
    let client = hello_service::Client::new(within(Client::connect(addr, config)).await.unwrap());
    let mut server = accept.await;

    // A call abandoned once sent: its late reply is a stray.
    let abandoned = tokio::spawn({
        let client = client.clone();
        async move { client.say_hello(HelloRequest { name: "abandoned".into() }).await }
    });
    let stray_seqid = server.request().await.expect("a call").seqid();
    abandoned.abort();
    let _ = abandoned.await;

    let mut calls = JoinSet::new();
    for i in 0..5 {
        let client = client.clone();
        calls.spawn(async move { (i, client.say_hello(HelloRequest { name: format!("caller-{i}") }).await) });
    }
    let mut requests = Vec::new();
    for _ in 0..5 {
        let request = server.request().await.expect("a call");
        assert_eq!((request.service(), request.method()), (Some("HelloService"), "sayHello"), "prefixed name");
        requests.push(request);
    }
    let seqids: std::collections::HashSet<i32> = requests.iter().map(Request::seqid).collect();
    assert_eq!(seqids.len(), 5, "every call waiting has its own seqid");

    // A reply nobody waits for, then the real ones in reverse order, all in one write.
    let mut replies = Vec::new();
    let call =
        encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, stray_seqid, &say_hello_args("x"));
    let fake = Request::parse(Bytes::from(call), ProtocolKind::Binary, true, Limits::default()).unwrap();
    let result: Result<HelloResponse, HelloError> = Ok(HelloResponse { message: "stray".into() });
    replies.extend_from_slice(&fake.reply_result::<Returns<HelloResponse>, HelloError>(result).into_bytes().unwrap());
    for request in requests.iter().rev() {
        let args: hello_service::SayHelloArgs = request.decode_args().unwrap();
        let result: Result<HelloResponse, HelloError> = Ok(HelloResponse { message: format!("to {}", args.req.name) });
        replies.extend_from_slice(
            &request.reply_result::<Returns<HelloResponse>, HelloError>(result).into_bytes().unwrap(),
        );
    }
    server.send(&replies).await;

    while let Some(joined) = within(calls.join_next()).await {
        let (i, reply) = joined.unwrap();
        assert_eq!(reply.unwrap().message, format!("to caller-{i}"));
    }
    assert!(!client.channel().is_closed(), "a late reply is no reason to close");
    assert_eq!(client.channel().stray_replies(), 1, "and it is counted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undecodable_reply_fails_the_pending_calls() {
    let (addr, accept) = FakeServer::listen().await;
    let client = hello_service::Client::new(within(Client::connect(addr, ClientConfig::default())).await.unwrap());
    let mut server = accept.await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.say_hello(HelloRequest { name: "x".into() }).await }
    });
    server.request().await.expect("a call");
    server.send(&[0, 0, 0, 3, 1, 2, 3]).await; // a frame that holds no envelope
    match within(call).await.unwrap() {
        // The protocol's own error, kept typed.
        Err(CallError::Protocol(e, ..)) => assert!(!e.to_string().is_empty()),
        other => panic!("expected a protocol error, got {other:?}"),
    }
    assert!(client.channel().is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_last_clone_closes_the_connection() {
    let (addr, accept) = FakeServer::listen().await;
    let client = within(Client::connect(addr, ClientConfig::default())).await.unwrap();
    let mut server = accept.await;
    let clone = client.clone();
    drop(client);
    // A clone keeps it open.
    let still_open = tokio::time::timeout(Duration::from_millis(200), server.request()).await;
    assert!(still_open.is_err(), "closed while a clone lived");
    drop(clone);
    assert!(server.request().await.is_none(), "the server sees the connection end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_fails_the_waiting_calls_of_every_clone() {
    let handle = start(Server::new()).await;
    let client = hello_client(&handle, ClientConfig::default()).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.slow_hello("x".into(), 10_000).await }
    });
    eventually("the call waiting", || client.channel().in_flight() == 1).await;
    client.channel().close();
    assert!(matches!(within(call).await.unwrap(), Err(CallError::Transport(..))));
    assert!(client.channel().is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_to_a_closed_port_fails() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let e = within(Client::connect(addr, ClientConfig::default())).await.unwrap_err();
    assert!(e.is_io(), "{e}");
}

#[test]
fn the_client_is_clone_send_sync_and_static() {
    fn shareable<T: Clone + Send + Sync + 'static>() {}
    shareable::<Client>();
    shareable::<hello_service::Client<Client>>();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tower_layers_wrap_the_client() {
    let (handle, greeter) = start_greeter(Server::new()).await;
    let config = ClientConfig::new(thrift_net::Transport::Buffered, ProtocolKind::Compact);
    let client = within(Client::connect(handle.local_addr(), config)).await.unwrap();

    // A call through oneshot, its arguments encoded by the client in its protocol.
    let call = Call::new("HelloService", "sayHello", say_hello_args("tower"));
    let reply = within(client.clone().oneshot(call)).await.unwrap();
    let value = reply.expect("a call has a reply").into_result::<Returns<HelloResponse>, HelloError>().unwrap();
    assert_eq!(value.message, "hello, tower");

    // Arguments already encoded are written as they are.
    let args = Call::encode_args(ProtocolKind::Compact, &say_hello_args("bytes"));
    let reply = within(client.clone().oneshot(Call::encoded("HelloService", "sayHello", args))).await.unwrap();
    let value = reply.expect("a call has a reply").into_result::<Returns<HelloResponse>, HelloError>().unwrap();
    assert_eq!(value.message, "hello, bytes");

    // A oneway message: no reply.
    let call = Call::new("HelloService", "log", hello_service::LogArgs { line: "via tower".into() }).oneway();
    let reply = within(client.clone().oneshot(call)).await.unwrap();
    assert!(reply.is_none());
    eventually("the line logged", || greeter.0.log.lock().unwrap().contains(&"via tower".to_string())).await;

    // The typed client over tower's timeout layer: the layer's timeout is a typed timeout.
    let stack = ServiceBuilder::new().timeout(Duration::from_millis(50)).service(client.clone());
    let typed = hello_service::Client::new(stack);
    assert_eq!(
        within(typed.say_hello(HelloRequest { name: "layered".into() })).await.unwrap().message,
        "hello, layered"
    );
    match within(typed.slow_hello("s".into(), 2000)).await {
        // A layer's error knows no endpoint, but the typed client names the method.
        Err(CallError::Timeout(None, site)) => assert_eq!((site.method(), site.endpoint()), (Some("slowHello"), None)),
        other => panic!("expected the layer's timeout, got {other:?}"),
    }

    // A client-side load shedder's refusal names the layer, and the call may go elsewhere.
    let shed = ServiceBuilder::new().load_shed().concurrency_limit(1).service(client.clone());
    let typed = hello_service::Client::new(shed);
    let (slow, refused) = tokio::join!(typed.slow_hello("s".into(), 300), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        typed.say_hello(HelloRequest { name: "shed".into() }).await
    });
    assert_eq!(slow.unwrap(), "hello, s");
    match refused {
        Err(e @ CallError::Layer(..)) => assert!(e.is_retry_safe(), "{e}"),
        other => panic!("expected the load shedder's refusal, got {other:?}"),
    }

    // A closed client is not ready: a balancer drops it.
    client.close();
    let mut closed = client.clone();
    match within(closed.ready()).await {
        Err(e @ CallError::NotSent(..)) => assert!(e.is_retry_safe()),
        other => panic!("expected the closed connection's error, got {other:?}"),
    }
}

/// A reply under the call's seqid but naming another method is not taken as the call's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_naming_another_method_is_refused() {
    let (addr, accept) = FakeServer::listen().await;
    let client = hello_service::Client::new(within(Client::connect(addr, ClientConfig::default())).await.unwrap());
    let mut server = accept.await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.say_hello(HelloRequest { name: "x".into() }).await }
    });
    let request = server.request().await.expect("a call");
    // The same seqid, another method's name.
    let other =
        encode_call(ProtocolKind::Binary, false, "logged", MessageType::Call, request.seqid(), &say_hello_args("x"));
    let other = Request::parse(Bytes::from(other), ProtocolKind::Binary, true, Limits::default()).unwrap();
    let result: Result<HelloResponse, HelloError> = Ok(HelloResponse { message: "wrong".into() });
    server.send(&other.reply_result::<Returns<HelloResponse>, HelloError>(result).into_bytes().unwrap()).await;
    match within(call).await.unwrap() {
        Err(CallError::Application(e, ..)) => {
            assert_eq!(e.kind, thrift_core::ApplicationExceptionKind::WrongMethodName, "{e}");
            assert!(e.message.contains("logged") && e.message.contains("sayHello"), "{e}");
        }
        other => panic!("expected WRONG_METHOD_NAME, got {other:?}"),
    }
}

/// A reply with a seqid no call was ever given means the server is confused: the calls
/// waiting fail at once rather than wait out their timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_with_a_seqid_never_given_fails_the_waiting_calls_at_once() {
    let (addr, accept) = FakeServer::listen().await;
    let config = ClientConfig::default().with_call_timeout(Duration::from_secs(30));
    let client = hello_service::Client::new(within(Client::connect(addr, config)).await.unwrap());
    let mut server = accept.await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.say_hello(HelloRequest { name: "x".into() }).await }
    });
    let request = server.request().await.expect("a call");
    let bogus = encode_call(
        ProtocolKind::Binary,
        false,
        "sayHello",
        MessageType::Call,
        request.seqid() + 1000,
        &say_hello_args("x"),
    );
    let bogus = Request::parse(Bytes::from(bogus), ProtocolKind::Binary, true, Limits::default()).unwrap();
    let result: Result<HelloResponse, HelloError> = Ok(HelloResponse { message: "bogus".into() });
    let started = Instant::now();
    server.send(&bogus.reply_result::<Returns<HelloResponse>, HelloError>(result).into_bytes().unwrap()).await;
    match within(call).await.unwrap() {
        Err(CallError::Transport(e, ..)) => assert!(e.to_string().contains("no call was given"), "{e}"),
        other => panic!("expected a transport error, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(10), "failed at once, not at the 30 s timeout");
    assert!(client.channel().is_closed());
    assert_eq!(client.channel().stray_replies(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_buffered_reply_stream_fails_the_calls_with_the_protocols_own_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = ClientConfig::new(thrift_net::Transport::Buffered, ProtocolKind::Binary);
    let client = hello_service::Client::new(within(Client::connect(addr, config)).await.unwrap());
    let (mut stream, _) = within(listener.accept()).await.unwrap();
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.say_hello(HelloRequest { name: "x".into() }).await }
    });
    let mut scratch = [0u8; 256];
    assert!(within(stream.read(&mut scratch)).await.unwrap() > 0, "the call arrived");
    // A strict reply envelope for seqid 1, then a field header whose type id names no type.
    let mut reply = vec![0x80, 0x01, 0x00, 0x02, 0, 0, 0, 8];
    reply.extend_from_slice(b"sayHello");
    reply.extend_from_slice(&[0, 0, 0, 1, 0x1f, 0, 1]);
    within(stream.write_all(&reply)).await.unwrap();
    match within(call).await.unwrap() {
        Err(CallError::Protocol(e, ..)) => {
            assert_eq!(e.kind(), &thrift_core::ErrorKind::InvalidType(0x1f), "{e}");
            assert!(e.offset().is_some(), "the place is kept: {e}");
        }
        other => panic!("expected the protocol's error, got {other:?}"),
    }
}
