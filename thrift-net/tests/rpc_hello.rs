//! HelloService end to end on 127.0.0.1 over every transport × protocol: replies, the
//! declared exception, unknown methods, bad arguments, a panicking handler, oneway messages.

#[path = "common/hello.rs"]
mod hello;

use std::time::Duration;

use hello::*;
use thrift_core::__private::Void;
use thrift_core::{ApplicationExceptionKind, NoException, ThriftStruct};
use thrift_net::{Call, CallError, ClientConfig, Server};
use tower::ServiceExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hello_over_every_transport_and_protocol() {
    let handle = start(Server::new()).await;
    for (transport, protocol) in wires() {
        let client = hello_client(&handle, ClientConfig::new(transport, protocol)).await;
        let reply = within(client.say_hello(HelloRequest { name: "ada".into() })).await;
        assert_eq!(reply.unwrap().message, "hello, ada", "{transport:?} {protocol:?}");
        let reply = within(client.slow_hello("bob".into(), 1)).await;
        assert_eq!(reply.unwrap(), "hello, bob", "{transport:?} {protocol:?}");
    }
    let metrics = handle.metrics();
    assert_eq!(metrics.requests, 8);
    assert_eq!(metrics.errors, 0);
    assert_eq!(metrics.connections_accepted, 4);
    assert!(metrics.bytes_in > 0 && metrics.bytes_out > 0, "{metrics:?}");
    assert!(within(handle.shutdown(Duration::from_secs(5))).await.is_graceful());
}

/// sayHello's args hold a struct at id 1; a string there is skipped as a type mismatch,
/// and then the required argument is missing.
#[derive(ThriftStruct)]
struct WrongArgs {
    #[thrift(id = 1)]
    req: String,
}

fn application_error<T: std::fmt::Debug, E: std::fmt::Debug>(
    result: Result<T, CallError<E>>,
) -> thrift_core::ApplicationException {
    match result {
        Err(CallError::Application(e, ..)) => e,
        other => panic!("expected a TApplicationException, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_outcome_behaves_as_apache_servers_do_on_every_wire() {
    let handle = start(Server::new()).await;
    for (transport, protocol) in wires() {
        let wire = format!("{transport:?} {protocol:?}");
        let client = hello_client(&handle, ClientConfig::new(transport, protocol)).await;

        // The declared exception comes back typed.
        match within(client.say_hello(HelloRequest::default())).await {
            Err(CallError::Exception(e)) => assert_eq!(e.reason, "no name", "{wire}"),
            other => panic!("{wire}: expected the declared exception, got {other:?}"),
        }

        // An unknown method: UNKNOWN_METHOD, naming it.
        let reply = within(client.channel().clone().oneshot(Call::new(
            "HelloService",
            "noSuchMethod",
            HelloRequest::default(),
        )))
        .await;
        let e = application_error(reply.unwrap().expect("a reply").into_result::<Void, NoException>());
        assert_eq!(e.kind, ApplicationExceptionKind::UnknownMethod, "{wire}");
        assert!(e.message.contains("noSuchMethod"), "{wire}: {}", e.message);

        // Arguments that don't decode: PROTOCOL_ERROR.
        let reply = within(client.channel().clone().oneshot(Call::new(
            "HelloService",
            "sayHello",
            WrongArgs { req: "x".into() },
        )))
        .await;
        let e = application_error(reply.unwrap().expect("a reply").into_result::<Void, NoException>());
        assert_eq!(e.kind, ApplicationExceptionKind::ProtocolError, "{wire}");

        // A panicking handler: INTERNAL_ERROR, and the same connection keeps working.
        let e = application_error(within(client.explode()).await);
        assert_eq!(e.kind, ApplicationExceptionKind::InternalError, "{wire}");
        assert!(e.message.contains("explode"), "{wire}: {}", e.message);
        let reply = within(client.say_hello(HelloRequest { name: "after".into() })).await.unwrap();
        assert_eq!(reply.message, "hello, after", "{wire}");

        // A oneway message: accepted, handled, never answered (an answer would reach no
        // waiting call and be dropped; the raw tests check none is sent).
        let line = format!("line over {wire}");
        within(client.log(line.clone())).await.unwrap();
        let mut seen = Vec::new();
        for _ in 0..2000 {
            seen = within(client.logged()).await.unwrap();
            if seen.contains(&line) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        assert!(seen.contains(&line), "{wire}: {seen:?}");

        assert!(!client.channel().is_closed(), "{wire}: errors are replies, not broken connections");
        assert_eq!(client.channel().in_flight(), 0, "{wire}");
    }
    // Unknown method, bad args, panic: three per wire.
    assert_eq!(handle.metrics().errors, 12);
    assert_eq!(handle.metrics().connections_accepted, 4);
}
