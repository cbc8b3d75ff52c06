//! What bounds a request's life on the server: the handler timeout, cancellation when the
//! peer goes away (and half-close for the peers that want their replies after closing), and
//! the server-wide budget for partly received messages. Assertions are on outcomes and
//! counters, never on how fast something went.

#[path = "common/hello.rs"]
mod hello;

use std::time::Duration;

use hello::*;
use thrift_core::{ApplicationExceptionKind, MessageType};
use thrift_net::{CallError, ClientConfig, ProtocolKind, Server};
use tokio::io::AsyncWriteExt;

fn slow_call(seqid: i32, ms: i32) -> Vec<u8> {
    let args = hello_service::SlowHelloArgs { name: "slow".into(), ms };
    encode_call(ProtocolKind::Binary, true, "slowHello", MessageType::Call, seqid, &args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_past_the_timeout_is_cancelled_and_its_call_answered_timeout() {
    let server = Server::builder().handler_timeout(Duration::from_millis(100)).build();
    let (handle, greeter) = start_greeter(server).await;
    let client = hello_client(&handle, ClientConfig::default()).await;

    let err = within(client.slow_hello("late".into(), 60_000)).await.unwrap_err();
    let CallError::Application(e, ..) = err else { panic!("expected an application exception, got {err:?}") };
    assert_eq!(e.kind, ApplicationExceptionKind::Timeout);
    assert!(e.message.contains("slowHello ran past the server's handler timeout of 100ms"), "{}", e.message);
    eventually("the handler's future was dropped", || greeter.0.running.load(std::sync::atomic::Ordering::SeqCst) == 0)
        .await;
    assert_eq!(greeter.finished(), 0, "the handler never ran to its end");

    // A handler within the timeout is untouched, on the same connection.
    assert_eq!(within(client.slow_hello("quick".into(), 1)).await.unwrap(), "hello, quick");
    let m = handle.metrics();
    assert_eq!((m.handler_timeouts, m.in_flight), (1, 0), "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_closes_cancels_its_running_handlers() {
    let (handle, greeter) = start_greeter(Server::new()).await;
    let mut raw = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
    raw.send(&slow_call(1, 60_000)).await;
    raw.send(&slow_call(2, 60_000)).await;
    eventually("both handlers run", || greeter.most_running() == 2).await;
    drop(raw);

    eventually("the handlers were cancelled", || handle.metrics().handlers_cancelled == 2).await;
    eventually("their futures were dropped", || greeter.0.running.load(std::sync::atomic::Ordering::SeqCst) == 0).await;
    eventually("the connection's place is free", || handle.metrics().connections == 0).await;
    let m = handle.metrics();
    assert_eq!((m.in_flight, m.bytes_pending, greeter.finished()), (0, 0, 0), "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_oneway_request_runs_even_when_its_sender_closes_at_once() {
    let (handle, greeter) = start_greeter(Server::new()).await;
    for n in 0..20 {
        let mut raw = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
        let args = hello_service::LogArgs { line: format!("line {n}") };
        raw.send(&encode_call(ProtocolKind::Binary, true, "log", MessageType::Oneway, n, &args)).await;
        // Closed right after the write: the server reads the message and the end together.
        drop(raw);
    }
    eventually("every oneway line was recorded", || greeter.0.log.lock().unwrap().len() == 20).await;
    assert_eq!(handle.metrics().handlers_cancelled, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_half_close_a_peer_that_shuts_its_write_side_still_gets_its_replies() {
    for half_close in [true, false] {
        let (handle, greeter) = start_greeter(Server::builder().half_close(half_close).build()).await;
        let mut raw = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
        raw.send(&slow_call(7, 200)).await;
        eventually("the handler runs", || greeter.most_running() == 1).await;
        within(raw.stream.shutdown()).await.expect("half-close");
        let reply = raw.read_message().await;
        if half_close {
            let reply = reply.expect("the reply after a half-close");
            let reply = thrift_net::Reply::parse(reply, ProtocolKind::Binary, Default::default()).unwrap();
            assert_eq!(reply.seqid(), 7);
            assert_eq!(greeter.finished(), 1);
        } else {
            assert!(reply.is_none(), "without half-close the handler is cancelled and nothing comes back");
            assert_eq!(handle.metrics().handlers_cancelled, 1);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peers_stalled_inside_large_frames_share_one_receiving_budget() {
    const BUDGET: usize = 256 * 1024;
    let server = Server::builder().max_receiving_bytes(BUDGET).read_idle_timeout(None).build();
    let (handle, _greeter) = start_greeter(server).await;
    // Each stalled peer declares a 1 MiB frame and sends 100 KiB of it: at most two fit.
    let mut stalled = Vec::new();
    for seqid in 0..6 {
        let mut raw = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
        let mut head = slow_call(seqid, 0);
        head[..4].copy_from_slice(&(1u32 << 20).to_be_bytes());
        head.resize(100 * 1024, 0);
        raw.send(&head).await;
        stalled.push(raw);
    }
    eventually("the peers past the budget were dropped", || handle.metrics().receive_budget_exceeded >= 4).await;
    let m = handle.metrics();
    assert!(m.bytes_receiving <= BUDGET as u64, "{m:?}");
    assert!(m.bytes_receiving > 100 * 1024, "two stalled peers are still held: {m:?}");
    let mut closed = 0;
    for raw in &mut stalled {
        closed += usize::from(raw.closed_within(Duration::from_millis(200)).await);
    }
    assert_eq!(closed, 4, "the peers that did not fit were disconnected");

    // Small calls still fit beside the stalled peers.
    let client = hello_client(&handle, ClientConfig::default()).await;
    assert_eq!(within(client.slow_hello("ok".into(), 0)).await.unwrap(), "hello, ok");
    drop(stalled);
    eventually("the stalled peers' bytes are given back", || handle.metrics().bytes_receiving == 0).await;
}
