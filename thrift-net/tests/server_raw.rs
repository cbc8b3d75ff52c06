//! The server as hand-written Apache-style clients see it: bytes in, bytes out, one call at
//! a time or pipelined, in every envelope, and what happens to bytes that are not Thrift.

#[path = "common/hello.rs"]
mod hello;

use std::time::Duration;

use hello::*;
use thrift_core::__private::{MethodResult, Returns, Void};
use thrift_core::{ApplicationExceptionKind, Binary, Limits, MessageHeader, MessageType, NoException};
use thrift_net::codec::Message;
use thrift_net::{CallError, ProtocolKind, Server, ServerBuilder};

fn say_hello(name: &str) -> hello_service::SayHelloArgs {
    hello_service::SayHelloArgs { req: HelloRequest { name: name.into() } }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sequential_apache_client_gets_byte_exact_ordinary_replies() {
    let handle = start(Server::new()).await;
    // TBinaryProtocol (strict) over TBufferedTransport, one call at a time.
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
    for seqid in 1..=3 {
        let name = format!("caller {seqid}");
        conn.send(&encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, seqid, &say_hello(&name)))
            .await;
        let reply = conn.read_message().await.expect("a reply");
        // What an Apache server writes: strict REPLY envelope with the request's name and
        // seqid, then the result struct with the success value at field 0.
        let result: MethodResult<Returns<HelloResponse>, HelloError> =
            MethodResult::Ok(Returns(HelloResponse { message: format!("hello, {name}") }));
        let mut expected = Vec::new();
        Message::new(MessageHeader { name: "sayHello", kind: MessageType::Reply, seqid }, &result)
            .encode::<Binary, _>(&mut expected);
        assert_eq!(reply[..], expected[..], "call {seqid}");
    }
    // The declared exception, in its result field.
    conn.send(&encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, 9, &say_hello(""))).await;
    let reply = conn.read_reply().await;
    assert_eq!((reply.kind(), reply.seqid()), (MessageType::Reply, 9));
    match reply.into_result::<Returns<HelloResponse>, HelloError>() {
        Err(CallError::Exception(e)) => assert_eq!(e.reason, "no name"),
        other => panic!("expected the declared exception, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_envelope_and_transport_is_answered_in_kind() {
    let handle = start(Server::new()).await;
    let cases = [
        (ProtocolKind::Binary, false),
        (ProtocolKind::Binary, true),
        (ProtocolKind::Compact, false),
        (ProtocolKind::Compact, true),
    ];
    for (protocol, framed) in cases {
        let mut conn = RawConnection::connect(&handle, protocol, framed).await;
        conn.send(&encode_call(protocol, framed, "sayHello", MessageType::Call, 77, &say_hello("x"))).await;
        let reply = conn.read_reply().await;
        assert_eq!((reply.kind(), reply.seqid()), (MessageType::Reply, 77), "{protocol:?} framed={framed}");
        let value = reply.into_result::<Returns<HelloResponse>, HelloError>().unwrap();
        assert_eq!(value.message, "hello, x");
    }
    // Old clients write the non-strict envelope, which a server reads once strict mode is
    // off; the reply is strict, which they read.
    let lenient = Limits { strict_binary_envelope: false, ..ServerBuilder::default_limits() };
    let handle = start(Server::builder().limits(lenient).build()).await;
    for framed in [false, true] {
        let mut conn = RawConnection::connect(&handle, ProtocolKind::BinaryNonStrict, framed).await;
        conn.send(&encode_non_strict_call(framed, "sayHello", 5, &say_hello("old"))).await;
        let reply = conn.read_reply().await;
        assert_eq!(reply.seqid(), 5, "non-strict framed={framed}");
        assert_eq!(reply.message()[..2], [0x80, 0x01], "a strict reply");
        let value = reply.into_result::<Returns<HelloResponse>, HelloError>().unwrap();
        assert_eq!(value.message, "hello, old");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_strict_binary_call_is_refused_by_default() {
    let handle = start(Server::new()).await;
    for framed in [false, true] {
        let mut conn = RawConnection::connect(&handle, ProtocolKind::BinaryNonStrict, framed).await;
        conn.send(&encode_non_strict_call(framed, "sayHello", 5, &say_hello("old"))).await;
        // No reply (its seqid is not read): the connection closes.
        assert!(conn.read_message().await.is_none(), "a reply to a non-strict call, framed={framed}");
    }
    assert_eq!(handle.metrics().errors, 2);
    // The same call with the strict envelope is answered.
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
    conn.send(&encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, 6, &say_hello("new"))).await;
    assert_eq!(conn.read_reply().await.seqid(), 6);
    eventually("the refused connections closed", || handle.metrics().connections == 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_calls_are_handled_concurrently_and_answered_as_they_finish() {
    let handle = start(Server::new()).await;
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Compact, true).await;
    // Three calls in one write; the first is the slowest, so the answers come back reversed.
    let mut burst = Vec::new();
    for (seqid, ms) in [(1, 600), (2, 300), (3, 0)] {
        let args = hello_service::SlowHelloArgs { name: format!("n{seqid}"), ms };
        burst.extend(encode_call(ProtocolKind::Compact, true, "slowHello", MessageType::Call, seqid, &args));
    }
    conn.send(&burst).await;
    let started = tokio::time::Instant::now();
    for expected in [3, 2, 1] {
        let reply = conn.read_reply().await;
        assert_eq!(reply.seqid(), expected);
        let value = reply.into_result::<Returns<String>, NoException>().unwrap();
        assert_eq!(value, format!("hello, n{expected}"), "each reply carries its own request's seqid");
    }
    // Handled at once, not one after the other (which would take 900 ms).
    assert!(started.elapsed() < Duration::from_millis(850), "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oneway_messages_get_no_reply_even_when_they_fail() {
    let handle = start(Server::new()).await;
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
    let mut burst = Vec::new();
    let log = hello_service::LogArgs { line: "one".into() };
    burst.extend(encode_call(ProtocolKind::Binary, true, "log", MessageType::Oneway, 1, &log));
    // Oneway messages that would be errors if they were calls: still no reply.
    burst.extend(encode_call(ProtocolKind::Binary, true, "noSuchMethod", MessageType::Oneway, 2, &log));
    burst.extend(encode_call(ProtocolKind::Binary, true, "log", MessageType::Oneway, 3, &say_hello("wrong")));
    burst.extend(encode_call(
        ProtocolKind::Binary,
        true,
        "explode",
        MessageType::Oneway,
        4,
        &hello_service::ExplodeArgs {},
    ));
    burst.extend(encode_call(
        ProtocolKind::Binary,
        true,
        "logged",
        MessageType::Call,
        5,
        &hello_service::LoggedArgs {},
    ));
    conn.send(&burst).await;
    let reply = conn.read_reply().await;
    assert_eq!(reply.seqid(), 5, "the only reply is the call's");
    // Nothing else arrives.
    let more = tokio::time::timeout(Duration::from_millis(300), conn.read_message()).await;
    assert!(more.is_err(), "unexpected message: {more:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_answered_with_the_requests_seqid_and_the_connection_goes_on() {
    let handle = start(Server::new()).await;
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
    let cases: [(&str, Vec<u8>, ApplicationExceptionKind); 3] = [
        (
            "unknown",
            encode_call(ProtocolKind::Binary, false, "frobnicate", MessageType::Call, 11, &say_hello("x")),
            ApplicationExceptionKind::UnknownMethod,
        ),
        (
            "bad args",
            encode_call(ProtocolKind::Binary, false, "slowHello", MessageType::Call, 12, &say_hello("x")),
            ApplicationExceptionKind::ProtocolError,
        ),
        (
            "panic",
            encode_call(ProtocolKind::Binary, false, "explode", MessageType::Call, 13, &hello_service::ExplodeArgs {}),
            ApplicationExceptionKind::InternalError,
        ),
    ];
    for (what, bytes, kind) in cases {
        conn.send(&bytes).await;
        let reply = conn.read_reply().await;
        assert_eq!(reply.kind(), MessageType::Exception, "{what}");
        let seqid = reply.seqid();
        match reply.into_result::<Void, NoException>() {
            Err(CallError::Application(e, ..)) => assert_eq!(e.kind, kind, "{what}: {}", e.message),
            other => panic!("{what}: expected a TApplicationException, got {other:?}"),
        }
        assert!((11..=13).contains(&seqid), "{what}: seqid {seqid}");
    }
    // A multiplexed name reaches a plain service when it names that service...
    conn.send(&encode_call(
        ProtocolKind::Binary,
        false,
        "HelloService:sayHello",
        MessageType::Call,
        14,
        &say_hello("m"),
    ))
    .await;
    let reply = conn.read_reply().await;
    assert_eq!(reply.seqid(), 14);
    assert_eq!(reply.into_result::<Returns<HelloResponse>, HelloError>().unwrap().message, "hello, m");
    // ...and is an unknown method when it names another, as in Apache's plain processors.
    conn.send(&encode_call(ProtocolKind::Binary, false, "Bogus:sayHello", MessageType::Call, 15, &say_hello("m")))
        .await;
    let reply = conn.read_reply().await;
    assert_eq!(reply.seqid(), 15);
    match reply.into_result::<Returns<HelloResponse>, HelloError>() {
        Err(CallError::Application(e, ..)) => {
            assert_eq!(e.kind, ApplicationExceptionKind::UnknownMethod);
            assert_eq!(e.message, "unknown method Bogus:sayHello");
        }
        other => panic!("expected UNKNOWN_METHOD, got {other:?}"),
    }
    assert_eq!(handle.metrics().errors, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_that_are_not_thrift_close_the_connection() {
    let limits = Limits { max_frame_len: 4096, ..Limits::default() };
    let handle = start(Server::builder().limits(limits).build()).await;

    // Not Thrift at all.
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
    conn.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(conn.closed_within(DEADLINE).await, "an HTTP request");

    // A frame beyond the limit: closed before it is read.
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
    let mut huge =
        encode_call(ProtocolKind::Binary, true, "sayHello", MessageType::Call, 1, &say_hello(&"x".repeat(5000)));
    huge.truncate(64);
    conn.send(&huge).await;
    assert!(conn.closed_within(DEADLINE).await, "an oversized frame");

    // A good call, then a corrupt one on the buffered transport: the first is answered,
    // then the connection closes (the second's seqid cannot be known).
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
    let mut bytes = encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, 1, &say_hello("ok"));
    let mut bad = encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, 2, &say_hello("bad"));
    // The inner field header's type byte: before the string's 4-byte length and 2-byte id.
    let name_at = bad.windows(3).rposition(|w| w == b"bad").unwrap();
    assert_eq!(bad[name_at - 7], 0x0b, "the string field's type");
    bad[name_at - 7] = 0x1f; // not a field type
    bytes.extend(bad);
    conn.send(&bytes).await;
    let reply = conn.read_reply().await;
    assert_eq!(reply.seqid(), 1);
    assert!(conn.closed_within(DEADLINE).await, "a corrupt message");

    assert_eq!(handle.metrics().errors, 3);
    eventually("every connection closed", || handle.metrics().connections == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_connects_and_leaves_costs_nothing() {
    let handle = start(Server::new()).await;
    for _ in 0..20 {
        let conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
        drop(conn);
    }
    eventually("the connections accepted", || handle.metrics().connections_accepted == 20).await;
    eventually("every connection closed", || handle.metrics().connections == 0).await;
    assert_eq!(handle.metrics().errors, 0);
    assert!(within(handle.shutdown(Duration::from_secs(5))).await.is_graceful());
}
