//! Thrift over HTTP: the service in an axum app beside an ordinary route and on its own
//! server loop, the HTTP client against both, and what each side answers to what is not a
//! Thrift call.

#[path = "common/hello.rs"]
mod hello;

use std::time::Duration;

use axum::routing::get;
use axum::Router;
use hello::*;
use thrift_core::MessageType;
use thrift_net::http::{serve_http, HttpClient, HttpService};
use thrift_net::{CallError, ClientConfig, Multiplexed, ProtocolKind, Transport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// An axum app on 127.0.0.1: `/thrift` serves HelloService, `/health` answers "ok".
async fn axum_app() -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route_service("/thrift", HttpService::new(hello_service::Server::new(Greeter::default())));
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (base, task)
}

fn client(url: &str, protocol: ProtocolKind) -> hello_service::Client<HttpClient> {
    let config = ClientConfig::new(Transport::Buffered, protocol).with_call_timeout(DEADLINE);
    hello_service::Client::new(HttpClient::new(url.parse().unwrap(), config))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_work_in_an_axum_app_beside_its_other_routes() {
    let (base, app) = axum_app().await;
    for protocol in [ProtocolKind::Binary, ProtocolKind::Compact] {
        let hello = client(&format!("{base}/thrift"), protocol);
        let reply = within(hello.say_hello(HelloRequest { name: "ada".into() })).await.unwrap();
        assert_eq!(reply.message, "hello, ada");
        let err = within(hello.say_hello(HelloRequest::default())).await.unwrap_err();
        assert!(matches!(err, CallError::Exception(ref e) if e.to_string().contains("no name")), "{err}");
        // Concurrent calls, each on its own request.
        let (slow, fast) = tokio::join!(hello.slow_hello("slow".into(), 100), hello.slow_hello("fast".into(), 0));
        assert_eq!((slow.unwrap(), fast.unwrap()), ("hello, slow".into(), "hello, fast".into()));
        // A oneway call is answered with an empty body at once, and runs after.
        within(hello.log(format!("{protocol:?}"))).await.unwrap();
        let logged = within(async {
            loop {
                let logged = hello.logged().await.unwrap();
                if logged.contains(&format!("{protocol:?}")) {
                    return logged;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        assert!(!logged.await.is_empty());
        // A panicking handler: INTERNAL_ERROR, and the app serves on.
        let err = within(hello.explode()).await.unwrap_err();
        assert!(err.to_string().contains("internal error processing explode"), "{err}");
    }
    // The ordinary route is untouched.
    let mut stream = TcpStream::connect(base.trim_start_matches("http://")).await.unwrap();
    stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut answer = String::new();
    within(stream.read_to_string(&mut answer)).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("ok"), "{answer}");
    app.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_frames_ride_in_bodies_as_apaches_header_protocol_over_http_sends_them() {
    let (base, app) = axum_app().await;
    let url = format!("{base}/thrift");
    for (transport, protocol) in [
        (Transport::Header, ProtocolKind::Binary),
        (Transport::Header, ProtocolKind::Compact),
        (Transport::Header, ProtocolKind::Json),
        (Transport::TTHeader, ProtocolKind::Binary),
    ] {
        let config = ClientConfig::new(transport, protocol).with_call_timeout(DEADLINE);
        let hello = hello_service::Client::new(HttpClient::new(url.parse().unwrap(), config));
        let reply = within(hello.say_hello(HelloRequest { name: "ada".into() })).await;
        assert_eq!(reply.unwrap().message, "hello, ada", "{transport:?} {protocol:?}");
        let err = within(hello.say_hello(HelloRequest::default())).await.unwrap_err();
        assert!(err.to_string().contains("no name"), "{transport:?} {protocol:?}: {err}");
    }
    // The reply is a header frame too: THeader's magic after its length.
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: "x".into() } };
    let call = encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, 3, &args);
    let mut frame = Vec::new();
    frame.extend_from_slice(&((10 + 4 + call.len()) as u32).to_be_bytes());
    frame.extend_from_slice(&[0x0f, 0xff, 0, 0, 0, 0, 0, 3, 0, 1, 0, 0, 0, 0]);
    frame.extend_from_slice(&call);
    let addr = base.trim_start_matches("http://").to_string();
    let answer = exchange(&addr, &post(&frame)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // One frame and something after it is not one frame.
    frame.extend_from_slice(b"junk");
    let answer = exchange(&addr, &post(&frame)).await;
    assert!(answer.starts_with("HTTP/1.1 400") && answer.contains("one whole header frame"), "{answer}");
    app.abort();
}

/// Sends `request` on a new connection and answers the whole response.
async fn exchange(addr: &str, request: &[u8]) -> String {
    let mut stream = within(TcpStream::connect(addr)).await.unwrap();
    within(stream.write_all(request)).await.unwrap();
    let mut answer = Vec::new();
    within(stream.read_to_end(&mut answer)).await.unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn post(body: &[u8]) -> Vec<u8> {
    let head = format!(
        "POST /thrift HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-thrift\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    [head.as_bytes(), body].concat()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_not_a_thrift_call_gets_a_status_that_says_why() {
    let (base, app) = axum_app().await;
    let addr = base.trim_start_matches("http://").to_string();
    let answer = exchange(&addr, b"GET /thrift HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 405") && answer.contains("allow: POST"), "{answer}");
    let answer = exchange(&addr, &post(b"not thrift at all")).await;
    assert!(answer.starts_with("HTTP/1.1 400") && answer.contains("unrecognized protocol"), "{answer}");
    // A framed message is not a bare one.
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: "x".into() } };
    let framed = encode_call(ProtocolKind::Binary, true, "sayHello", MessageType::Call, 1, &args);
    let answer = exchange(&addr, &post(&framed)).await;
    assert!(answer.starts_with("HTTP/1.1 400") && answer.contains("one bare message or one header frame"), "{answer}");
    // Beyond the message limit: refused without reading it all.
    let big = vec![0u8; 100_000];
    let small = HttpService::new(hello_service::Server::new(Greeter::default()))
        .limits(thrift_core::Limits { max_message_len: 1024, ..Default::default() });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let small_addr = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_http(listener, small, async { drop(stopped.await) }, Duration::from_secs(1)));
    let answer = exchange(&small_addr, &post(&big)).await;
    assert!(answer.starts_with("HTTP/1.1 413") && answer.contains("maximum message size 1024"), "{answer}");
    stop.send(()).unwrap();
    within(server).await.unwrap();
    app.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_names_what_went_wrong() {
    let (base, app) = axum_app().await;
    // A route that is not Thrift: the status and the body's start.
    let err = within(client(&format!("{base}/health"), ProtocolKind::Binary).logged()).await.unwrap_err();
    assert!(matches!(err, CallError::Transport(..)), "{err:?}");
    assert!(err.to_string().contains("HTTP 405"), "{err}");
    let err = within(client(&format!("{base}/nowhere"), ProtocolKind::Binary).logged()).await.unwrap_err();
    assert!(err.to_string().contains("HTTP 404"), "{err}");
    app.abort();
    // Nobody listening: not sent, so safe to retry.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed = format!("http://{}/thrift", listener.local_addr().unwrap());
    drop(listener);
    let err = within(client(&closed, ProtocolKind::Binary).logged()).await.unwrap_err();
    assert!(matches!(err, CallError::NotSent(..)) && err.is_retry_safe(), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multiplexed_router_serves_over_http_and_shuts_down_gracefully() {
    let router = Multiplexed::builder()
        .with(hello_service::Server::new(Greeter::default()))
        .with(calculator::Server::new(Adder))
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_http(listener, HttpService::new(router), async { drop(stopped.await) }, DEADLINE));
    let config = ClientConfig::default().with_multiplexed(true);
    let calc = calculator::Client::new(HttpClient::new(url.parse().unwrap(), config.clone()));
    assert_eq!(within(calc.add(2, 3)).await.unwrap(), 5);
    let hello = hello_service::Client::new(HttpClient::new(url.parse().unwrap(), config));
    // A call in flight when shutdown begins still gets its reply.
    let slow = tokio::spawn(async move { hello.slow_hello("late".into(), 300).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    assert_eq!(within(slow).await.unwrap().unwrap(), "hello, late");
    within(server).await.unwrap();
}

#[thrift_net::service]
trait Whoami {
    /// The caller's address as the handler sees it.
    async fn peer(&self, #[thrift(context)] request: &thrift_net::Request) -> String;
}

struct Mirror;

impl Whoami for Mirror {
    async fn peer(&self, request: &thrift_net::Request) -> String {
        request.peer().to_string()
    }
}

/// Under axum, a handler sees the caller's address once a layer copies axum's
/// `ConnectInfo` into the request's extensions; without it, a request comes from nowhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_under_axum_see_the_callers_address_from_connect_info() {
    use axum::extract::ConnectInfo;
    use std::net::SocketAddr;
    use tower::ServiceBuilder;

    let with_address = ServiceBuilder::new()
        .map_request(|mut request: axum::http::Request<axum::body::Body>| {
            if let Some(ConnectInfo(addr)) = request.extensions().get::<ConnectInfo<SocketAddr>>().copied() {
                request.extensions_mut().insert(addr);
            }
            request
        })
        .service(HttpService::new(whoami::Server::new(Mirror)));
    let app = Router::new()
        .route_service("/thrift", with_address)
        .route_service("/plain", HttpService::new(whoami::Server::new(Mirror)));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await.unwrap();
    });
    let config = ClientConfig::default().with_call_timeout(DEADLINE);
    let call = |path: &str| {
        let channel = HttpClient::new(format!("{base}{path}").parse().unwrap(), config.clone());
        async move { within(whoami::Client::new(channel).peer()).await.unwrap() }
    };
    let seen: SocketAddr = call("/thrift").await.parse().expect("a socket address");
    assert!(seen.ip().is_loopback() && seen.port() != 0, "{seen}");
    assert_eq!(call("/plain").await, "(local)");
    task.abort();
}
