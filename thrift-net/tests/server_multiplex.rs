//! Several services on one port with Apache's multiplexed protocol, and a default service
//! for clients that don't multiplex.

#[path = "common/hello.rs"]
mod hello;

use hello::*;
use thrift_core::__private::{MethodResult, Returns, Void};
use thrift_core::{ApplicationExceptionKind, MessageType, NoException};
use thrift_net::{Call, CallError, Client, ClientConfig, Multiplexed, ProtocolKind, Server, ServerHandle, Transport};
use tower::ServiceExt;

async fn serve(router: Multiplexed) -> ServerHandle {
    within(Server::new().bind("127.0.0.1:0", router)).await.expect("bind 127.0.0.1")
}

fn multiplexed(transport: Transport, protocol: ProtocolKind) -> ClientConfig {
    ClientConfig::new(transport, protocol).with_multiplexed(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_services_and_a_default_on_one_port() {
    let named = Greeter::default();
    let default = Greeter::default();
    let router = Multiplexed::builder()
        .with(hello_service::Server::new(named.clone()))
        .with(calculator::Server::new(Adder))
        .default(hello_service::Server::new(default.clone()))
        .build();
    assert_eq!(router.service_names().collect::<Vec<_>>(), ["Calculator", "HelloService"]);
    let handle = serve(router).await;

    for (transport, protocol) in wires() {
        let wire = format!("{transport:?} {protocol:?}");
        // One multiplexed connection carries calls of both services.
        let connection = within(Client::connect(handle.local_addr(), multiplexed(transport, protocol))).await.unwrap();
        let hello = hello_service::Client::new(connection.clone());
        let calc = calculator::Client::new(connection);
        let (greeting, sum) =
            within(async { tokio::join!(hello.say_hello(HelloRequest { name: "mux".into() }), calc.add(40, 2)) }).await;
        assert_eq!(greeting.unwrap().message, "hello, mux", "{wire}");
        assert_eq!(sum.unwrap(), 42, "{wire}");
        within(hello.log(format!("named {wire}"))).await.unwrap();

        // A plain client reaches the default service.
        let plain = hello_client(&handle, ClientConfig::new(transport, protocol)).await;
        within(plain.log(format!("default {wire}"))).await.unwrap();
        assert_eq!(
            within(plain.say_hello(HelloRequest { name: "plain".into() })).await.unwrap().message,
            "hello, plain"
        );
    }
    // The oneway lines went to the service each client named.
    eventually("every line logged", || {
        named.0.log.lock().unwrap().len() == 4 && default.0.log.lock().unwrap().len() == 4
    })
    .await;
    assert!(named.0.log.lock().unwrap().iter().all(|l| l.starts_with("named")));
    assert!(default.0.log.lock().unwrap().iter().all(|l| l.starts_with("default")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_carry_the_plain_method_name_as_apaches_do() {
    let router = Multiplexed::builder().with(calculator::Server::new(Adder)).build();
    let handle = serve(router).await;
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, true).await;
    let args = calculator::AddArgs { a: 1, b: 2 };
    conn.send(&encode_call(ProtocolKind::Binary, true, "Calculator:add", MessageType::Call, 8, &args)).await;
    let reply = conn.read_reply().await;
    let header = thrift_net::codec::decode_message::<thrift_core::Binary, MethodResult<Returns<i32>, NoException>>(
        reply.message(),
        &Default::default(),
    )
    .unwrap()
    .0;
    assert_eq!((header.name, header.kind, header.seqid), ("add", MessageType::Reply, 8));
    assert_eq!(reply.into_result::<Returns<i32>, NoException>().unwrap(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_services_and_plain_names_without_a_default_are_unknown_methods() {
    let router = Multiplexed::builder().with(calculator::Server::new(Adder)).build();
    assert!(!router.has_default());
    let handle = serve(router).await;

    // A service that is not registered.
    let client = within(Client::connect(handle.local_addr(), multiplexed(Transport::Framed, ProtocolKind::Compact)))
        .await
        .unwrap();
    let reply = within(client.clone().oneshot(Call::new("Nope", "add", calculator::AddArgs { a: 1, b: 2 })))
        .await
        .unwrap()
        .expect("a reply");
    match reply.into_result::<Void, NoException>() {
        Err(CallError::Application(e, ..)) => {
            assert_eq!(e.kind, ApplicationExceptionKind::UnknownMethod);
            assert!(e.message.contains("Nope"), "{}", e.message);
        }
        other => panic!("expected UNKNOWN_METHOD, got {other:?}"),
    }

    // A plain name with no default service.
    let plain = within(Client::connect(handle.local_addr(), ClientConfig::default())).await.unwrap();
    let calc = calculator::Client::new(plain);
    match within(calc.add(1, 2)).await {
        Err(CallError::Application(e, ..)) => assert_eq!(e.kind, ApplicationExceptionKind::UnknownMethod),
        other => panic!("expected UNKNOWN_METHOD, got {other:?}"),
    }
    // Both connections still work: the errors were replies.
    let calc = calculator::Client::new(client);
    assert_eq!(within(calc.add(2, 2)).await.unwrap(), 4);
}
