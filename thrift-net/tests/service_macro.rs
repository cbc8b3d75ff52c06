//! The `#[service]` macro end to end in memory: a typed client calls a generated server
//! through a channel that encodes, dispatches and decodes without a socket.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

use thrift_core::{ApplicationException, ApplicationExceptionKind, Idl, ThriftStruct, ThriftUnion};
use thrift_net::{service, Call, CallError, LocalChannel, ProtocolKind};
use tower::ServiceExt;

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct HelloRequest {
    #[thrift(id = 1)]
    name: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct HelloResponse {
    #[thrift(id = 1)]
    message: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception, throws(id = 1, name = "refused"))]
struct HelloError {
    #[thrift(id = 1)]
    reason: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception)]
struct Busy {
    #[thrift(id = 1)]
    retry_ms: i32,
}

#[derive(ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum SendError {
    #[thrift(id = 1, name = "bad")]
    Bad(HelloError),
    #[thrift(id = 2, name = "busy")]
    Busy(Busy),
}

/// Greets people.
#[service(name = "HelloService")]
trait HelloService {
    /// Says hello, or refuses the empty name.
    #[thrift(name = "sayHello")]
    async fn say_hello(&self, #[thrift(id = 1)] req: HelloRequest) -> Result<HelloResponse, HelloError>;

    #[thrift(name = "send")]
    async fn send(&self, #[thrift(id = 1)] to: String, #[thrift(id = 2)] times: Option<i32>) -> Result<i64, SendError>;

    #[thrift(name = "count")]
    async fn count(&self) -> i32;

    #[thrift(name = "fail")]
    async fn fail(&self) -> Result<(), ApplicationException>;

    #[thrift(name = "log", oneway)]
    async fn log(&self, #[thrift(id = 1)] line: String);
}

#[derive(Default)]
struct Greeter {
    calls: AtomicI32,
    log: Mutex<Vec<String>>,
}

impl HelloService for Greeter {
    async fn say_hello(&self, req: HelloRequest) -> Result<HelloResponse, HelloError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if req.name.is_empty() {
            return Err(HelloError { reason: "no name".into() });
        }
        Ok(HelloResponse { message: format!("hello, {}", req.name) })
    }

    async fn send(&self, to: String, times: Option<i32>) -> Result<i64, SendError> {
        match (to.as_str(), times) {
            ("", _) => Err(SendError::Bad(HelloError { reason: "nobody".into() })),
            (_, Some(t)) if t > 10 => Err(SendError::Busy(Busy { retry_ms: t })),
            (_, t) => Ok(t.unwrap_or(1) as i64 * to.len() as i64),
        }
    }

    async fn count(&self) -> i32 {
        self.calls.load(Ordering::SeqCst)
    }

    async fn fail(&self) -> Result<(), ApplicationException> {
        Err(ApplicationException::new(ApplicationExceptionKind::InternalError, "nope"))
    }

    async fn log(&self, line: String) {
        self.log.lock().unwrap().push(line);
    }
}

fn client(protocol: ProtocolKind) -> hello_service::Client<LocalChannel<hello_service::Server<Greeter>>> {
    hello_service::Client::new(LocalChannel::new(hello_service::Server::new(Greeter::default()), protocol))
}

#[tokio::test]
async fn typed_calls_round_trip_in_both_protocols() {
    for protocol in [ProtocolKind::Binary, ProtocolKind::Compact] {
        let client = client(protocol);
        let reply = client.say_hello(HelloRequest { name: "ada".into() }).await.unwrap();
        assert_eq!(reply.message, "hello, ada");

        match client.say_hello(HelloRequest { name: String::new() }).await {
            Err(CallError::Exception(e)) => assert_eq!(e.reason, "no name"),
            other => panic!("expected the declared exception, got {other:?}"),
        }

        assert_eq!(client.send("abc".into(), Some(2)).await.unwrap(), 6);
        assert_eq!(client.send("abc".into(), None).await.unwrap(), 3);
        assert!(matches!(client.send(String::new(), None).await, Err(CallError::Exception(SendError::Bad(_)))));
        assert!(matches!(
            client.send("x".into(), Some(50)).await,
            Err(CallError::Exception(SendError::Busy(Busy { retry_ms: 50 })))
        ));

        assert_eq!(client.count().await.unwrap(), 2);
        match client.fail().await {
            Err(CallError::Application(e, ..)) => {
                assert_eq!((e.kind, e.message.as_str()), (ApplicationExceptionKind::InternalError, "nope"))
            }
            other => panic!("expected an application exception, got {other:?}"),
        }

        client.log("first".into()).await.unwrap();
        // The oneway handler runs in its own task; give it a moment.
        let log = &client.channel().service().handler().log;
        for _ in 0..100 {
            if !log.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(log.lock().unwrap().as_slice(), ["first"]);
    }
}

#[tokio::test]
async fn unknown_methods_and_bad_arguments_are_application_exceptions() {
    let client = client(ProtocolKind::Binary);
    let channel = client.channel();
    let reply = channel
        .clone()
        .oneshot(Call::new("HelloService", "frobnicate", HelloRequest::default()))
        .await
        .unwrap()
        .expect("a reply");
    match reply.into_result::<thrift_core::__private::Void, thrift_core::NoException>() {
        Err(CallError::Application(e, ..)) => assert_eq!(e.kind, ApplicationExceptionKind::UnknownMethod),
        other => panic!("expected UNKNOWN_METHOD, got {other:?}"),
    }
    // sayHello's args struct holds a required struct at id 1; a string there is reported as
    // the wrong wire type.
    #[derive(ThriftStruct)]
    struct WrongArgs {
        #[thrift(id = 1)]
        req: String,
    }
    let reply = channel
        .clone()
        .oneshot(Call::new("HelloService", "sayHello", WrongArgs { req: "x".into() }))
        .await
        .unwrap()
        .expect("a reply");
    match reply.into_result::<thrift_core::__private::Void, thrift_core::NoException>() {
        Err(CallError::Application(e, ..)) => {
            assert_eq!(e.kind, ApplicationExceptionKind::ProtocolError);
            assert!(e.message.contains("sayHello_args.req (id 1): wire type string, expected struct"), "{}", e.message);
        }
        other => panic!("expected PROTOCOL_ERROR, got {other:?}"),
    }
}

#[test]
fn the_service_exports_its_idl() {
    let idl = Idl::new().add_service::<hello_service::Definition>().render();
    let service = idl.split("service HelloService {").nth(1).expect("the service is defined");
    assert_eq!(
        service,
        "\n  /**\n   * Says hello, or refuses the empty name.\n   */\n  \
         HelloResponse sayHello(1: HelloRequest req) throws (1: HelloError refused)\n  \
         i64 send(1: string to, 2: i32 times) throws (1: HelloError bad, 2: Busy busy)\n  \
         i32 count()\n  void fail()\n  oneway void log(1: string line)\n}\n"
    );
    // The trait's doc comment is the service's; an `Option` argument has no requiredness
    // (Apache ignores it on arguments), and `throws(...)` names the exception's field.
    assert!(idl.contains("/**\n * Greets people.\n */\nservice HelloService {"), "{idl}");
    // Dependencies come first.
    assert!(idl.find("struct HelloRequest").unwrap() < idl.find("service HelloService").unwrap());
    assert!(idl.contains("exception HelloError {\n  1: string reason\n}"));
}

/// An argument's IDL name can differ from its Rust name.
#[service(name = "Sleeper")]
trait Sleeper {
    #[thrift(name = "sleep")]
    async fn sleep(&self, #[thrift(id = 1, name = "secondsToSleep")] seconds: i32);
}

#[test]
fn argument_names_follow_the_name_attribute() {
    let idl = Idl::new().add_service::<sleeper::Definition>().render();
    assert_eq!(
        idl,
        "/**\n * An argument's IDL name can differ from its Rust name.\n */\n\
         service Sleeper {\n  void sleep(1: i32 secondsToSleep)\n}\n"
    );
}
