//! The JSON protocol end to end: a typed client and the server over buffered and framed
//! TCP (replies, the declared exception, an unknown method, oneway, pre-encoded arguments),
//! and Apache's exact bytes from a hand-written client.

#[path = "common/hello.rs"]
mod hello;

use hello::*;
use thrift_core::__private::Void;
use thrift_core::{ApplicationExceptionKind, NoException};
use thrift_net::{Call, CallError, ClientConfig, ProtocolKind, Server, Transport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::ServiceExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_client_and_the_server_speak_json_buffered_and_framed() {
    let (handle, greeter) = start_greeter(Server::new()).await;
    for transport in [Transport::Buffered, Transport::Framed] {
        let client = hello_client(&handle, ClientConfig::new(transport, ProtocolKind::Json)).await;
        let reply = within(client.say_hello(HelloRequest { name: "ünï \"q\" \\ /".into() })).await;
        assert_eq!(reply.unwrap().message, "hello, ünï \"q\" \\ /", "{transport:?}");
        match within(client.say_hello(HelloRequest::default())).await {
            Err(CallError::Exception(e)) => assert_eq!(e.reason, "no name"),
            other => panic!("{transport:?}: expected the declared exception, got {other:?}"),
        }
        let reply = within(client.channel().clone().oneshot(Call::new(
            "HelloService",
            "noSuchMethod",
            HelloRequest::default(),
        )))
        .await;
        match reply.unwrap().expect("a reply").into_result::<Void, NoException>() {
            Err(CallError::Application(e, ..)) => assert_eq!(e.kind, ApplicationExceptionKind::UnknownMethod),
            other => panic!("{transport:?}: expected UNKNOWN_METHOD, got {other:?}"),
        }
        within(client.log(format!("line {transport:?}"))).await.unwrap();
        // Arguments encoded ahead, in the channel's protocol, go out as they are.
        let args = hello_service::SayHelloArgs { req: HelloRequest { name: "pre".into() } };
        let encoded = Call::encode_args(ProtocolKind::Json, &args);
        assert_eq!(&encoded[..], br#"{"1":{"rec":{"1":{"str":"pre"}}}}"#);
        let reply = within(client.channel().clone().oneshot(Call::encoded("HelloService", "sayHello", encoded))).await;
        let value = reply
            .unwrap()
            .expect("a reply")
            .into_result::<thrift_core::__private::Returns<HelloResponse>, HelloError>();
        assert_eq!(value.unwrap().message, "hello, pre");
    }
    let logged =
        within(hello_client(&handle, ClientConfig::new(Transport::Buffered, ProtocolKind::Json)).await.logged())
            .await
            .unwrap();
    assert_eq!(logged, ["line Buffered", "line Framed"]);
    assert_eq!(greeter.finished(), 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_written_json_call_gets_apaches_bytes_back() {
    let handle = start(Server::new()).await;
    for framed in [false, true] {
        let call = br#"[1,"sayHello",1,7,{"1":{"rec":{"1":{"str":"x"}}}}]"#;
        let mut stream = within(tokio::net::TcpStream::connect(handle.local_addr())).await.unwrap();
        if framed {
            stream.write_all(&(call.len() as u32).to_be_bytes()).await.unwrap();
        }
        stream.write_all(call).await.unwrap();
        let expected: &[u8] = br#"[1,"sayHello",2,7,{"0":{"rec":{"1":{"str":"hello, x"}}}}]"#;
        let mut reply = vec![0; expected.len() + if framed { 4 } else { 0 }];
        within(stream.read_exact(&mut reply)).await.unwrap();
        if framed {
            assert_eq!(reply[..4], (expected.len() as u32).to_be_bytes());
            reply.drain(..4);
        }
        assert_eq!(std::str::from_utf8(&reply).unwrap(), std::str::from_utf8(expected).unwrap());
        // A message type the envelope cannot have is no call: the connection is dropped.
        stream.write_all(br#"[1,"sayHello",9,8,{}]"#).await.unwrap();
        let mut rest = Vec::new();
        let _ = within(stream.read_to_end(&mut rest)).await;
        assert!(!rest.starts_with(b"[1,\"sayHello\",2"), "{rest:?}");
    }
}
