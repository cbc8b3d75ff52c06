//! The server is tower-native: generated servers are `tower::Service`s, the server takes
//! tower's own layers, their errors reach callers as the `TApplicationException`s Thrift
//! clients know, and handlers may see their request's context. Real servers on 127.0.0.1.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use thrift_core::ApplicationExceptionKind;
use thrift_net::codec::ttheader_keys;
use thrift_net::server::OVERLOADED;
use thrift_net::server::{Peer, Request, ThriftService};
use thrift_net::{service, CallError, Client, ClientConfig, Headers, Multiplexed, ProtocolKind, Server, Transport};
use tokio::sync::Semaphore;
use tower::limit::ConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower::timeout::TimeoutLayer;
use tower::ServiceBuilder;

/// Every wait ends within this, or the test fails.
const DEADLINE: Duration = Duration::from_secs(20);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(DEADLINE, f).await.expect("hung past the test deadline")
}

/// What a handler saw of its request.
#[derive(thrift_core::ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Seen {
    #[thrift(id = 1)]
    method: String,
    #[thrift(id = 2)]
    seqid: i32,
    #[thrift(id = 3)]
    peer_is_loopback: bool,
    #[thrift(id = 4)]
    transport: String,
    #[thrift(id = 5)]
    deadline_ms: Option<i64>,
    #[thrift(id = 6)]
    tag: Option<String>,
}

#[service]
trait Gate {
    /// Waits until the test opens the gate, then answers `n`.
    async fn pass(&self, #[thrift(id = 1)] n: i32) -> i32;

    /// What the handler sees of its own request.
    #[thrift(idempotent)]
    async fn whoami(&self, #[thrift(context)] request: &Request, #[thrift(id = 1)] tag: Option<String>) -> Seen;
}

struct Gatekeeper {
    gate: Semaphore,
    waiting: AtomicUsize,
}

impl Default for Gatekeeper {
    fn default() -> Self {
        Gatekeeper { gate: Semaphore::new(0), waiting: AtomicUsize::new(0) }
    }
}

impl Gate for Gatekeeper {
    async fn pass(&self, n: i32) -> i32 {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _open = self.gate.acquire().await.expect("never closed");
        n
    }

    async fn whoami(&self, request: &Request, tag: Option<String>) -> Seen {
        Seen {
            method: request.method().to_owned(),
            seqid: request.seqid(),
            peer_is_loopback: matches!(request.peer(), Peer::Tcp(addr) if addr.ip().is_loopback()),
            transport: format!("{:?}", request.transport()),
            deadline_ms: request.deadline().map(|d| d.duration_since(request.arrived()).as_millis() as i64),
            tag,
        }
    }
}

async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..2000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("never happened: {what}");
}

async fn connect(addr: std::net::SocketAddr) -> gate::Client<Client> {
    gate::Client::new(within(Client::connect(addr, ClientConfig::default())).await.expect("connect"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn towers_timeout_layer_answers_timeout_and_the_connection_stays_usable() {
    let keeper = Arc::new(Gatekeeper::default());
    let server = Server::builder().layer(TimeoutLayer::new(Duration::from_millis(50))).build();
    let handle = server.bind("127.0.0.1:0", gate::Server::new(keeper.clone())).await.unwrap();
    let client = connect(handle.local_addr()).await;

    let err = within(client.pass(1)).await.unwrap_err();
    let CallError::Application(e, ..) = &err else { panic!("expected an application exception, got {err:?}") };
    assert_eq!(e.kind, ApplicationExceptionKind::Timeout, "{e}");
    assert!(e.message.contains("pass"), "names the method: {e}");
    assert!(!err.is_retry_safe(), "a timed-out call may have run");

    keeper.gate.add_permits(1);
    let seen = within(client.whoami(None)).await.unwrap();
    assert_eq!(seen.method, "whoami");
    assert_eq!(handle.metrics().errors, 1);
    handle.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_shed_over_a_concurrency_limit_answers_overloaded_which_is_retry_safe() {
    let keeper = Arc::new(Gatekeeper::default());
    let server = Server::builder().layer(LoadShedLayer::new()).layer(ConcurrencyLimitLayer::new(1)).build();
    let handle = server.bind("127.0.0.1:0", gate::Server::new(keeper.clone())).await.unwrap();
    let client = connect(handle.local_addr()).await;

    // The first call takes the only place and waits at the gate.
    let first = tokio::spawn({
        let client = client.clone();
        async move { within(client.pass(7)).await }
    });
    eventually("the first call reached its handler", || keeper.waiting.load(Ordering::SeqCst) == 1).await;

    // The second is shed, unrun, with the exception a client may retry elsewhere.
    let err = within(client.pass(8)).await.unwrap_err();
    let CallError::Application(e, ..) = &err else { panic!("expected an application exception, got {err:?}") };
    assert_eq!((e.kind, e.message.as_str()), (ApplicationExceptionKind::Loadshedding, OVERLOADED));
    assert!(err.is_retry_safe());
    assert_eq!(keeper.waiting.load(Ordering::SeqCst), 1, "the shed call never ran");

    keeper.gate.add_permits(1);
    assert_eq!(first.await.unwrap().unwrap(), 7);
    // With the place free again, calls go through.
    keeper.gate.add_permits(1);
    assert_eq!(within(client.pass(9)).await.unwrap(), 9);
    handle.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_sees_its_requests_context() {
    let handle = Server::new().bind("127.0.0.1:0", gate::Server::new(Gatekeeper::default())).await.unwrap();
    let client = connect(handle.local_addr()).await;
    let first = within(client.whoami(Some("a".into()))).await.unwrap();
    let second = within(client.whoami(None)).await.unwrap();
    assert_eq!(first.method, "whoami");
    assert!(first.peer_is_loopback, "{first:?}");
    assert_eq!(first.transport, "Framed");
    assert_eq!(first.deadline_ms, None, "a framed call carries no timeout");
    assert_eq!(first.tag.as_deref(), Some("a"), "the Thrift arguments still arrive");
    assert_ne!(first.seqid, second.seqid);

    // A TTHeader call's RPC timeout is the request's deadline.
    let config = ClientConfig::new(Transport::TTHeader, ProtocolKind::Binary);
    let mut headers = Headers::new();
    headers.insert_int(ttheader_keys::RPC_TIMEOUT, "1500");
    let connection = within(Client::connect(handle.local_addr(), config)).await.unwrap();
    let timed = gate::Client::new(connection.with_headers(headers));
    let seen = within(timed.whoami(None)).await.unwrap();
    assert_eq!((seen.transport.as_str(), seen.deadline_ms), ("TTHeader", Some(1500)));
    assert_eq!(gate::IDEMPOTENT_METHODS, ["whoami"]);

    // A client's timeout travels with its calls on header transports: the configured one,
    // or one set per handle.
    for transport in [Transport::TTHeader, Transport::Header] {
        let config = ClientConfig::new(transport, ProtocolKind::Compact);
        let default_ms = config.call_timeout.map(|t| t.as_millis() as i64);
        let connection = within(Client::connect(handle.local_addr(), config)).await.unwrap();
        let seen = within(gate::Client::new(connection.clone()).whoami(None)).await.unwrap();
        assert_eq!(seen.deadline_ms, default_ms, "{transport:?}");
        let hasty = gate::Client::new(connection.with_timeout(Duration::from_millis(700)));
        assert_eq!(within(hasty.whoami(None)).await.unwrap().deadline_ms, Some(700), "{transport:?}");
        let patient = gate::Client::new(connection.with_timeout(None));
        assert_eq!(within(patient.whoami(None)).await.unwrap().deadline_ms, None, "{transport:?}");
    }
    handle.shutdown(Duration::from_secs(5)).await;
}

/// Serves `service` on 127.0.0.1 and asks it `whoami(tag)` over a real connection.
async fn whoami_over<S: ThriftService>(service: S, tag: &str) -> Seen {
    let handle = Server::new().bind("127.0.0.1:0", service).await.unwrap();
    let seen = within(connect(handle.local_addr()).await.whoami(Some(tag.into()))).await.unwrap();
    handle.shutdown(Duration::from_secs(5)).await;
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_static_and_layered_handlers_serve_as_they_are() {
    static KEEPER: std::sync::LazyLock<Gatekeeper> = std::sync::LazyLock::new(Gatekeeper::default);
    let shared = Arc::new(Gatekeeper::default());
    // `Arc<T>` and `&'static T` are handlers too; `from_arc` takes a handler already shared.
    assert_eq!(whoami_over(gate::Server::new(shared.clone()), "arc").await.tag.as_deref(), Some("arc"));
    assert_eq!(whoami_over(gate::Server::new(&*KEEPER), "static").await.tag.as_deref(), Some("static"));
    let layered = ServiceBuilder::new().timeout(Duration::from_secs(5)).service(gate::Server::from_arc(shared));
    assert_eq!(whoami_over(layered.clone(), "layered").await.tag.as_deref(), Some("layered"));
    // A layered service behind the multiplexing router, under its IDL name.
    let router = Multiplexed::builder().with_name("Gate", layered).build();
    let handle = Server::new().bind("127.0.0.1:0", router).await.unwrap();
    let config = ClientConfig::default().with_multiplexed(true);
    let client = gate::Client::new(within(Client::connect(handle.local_addr(), config)).await.unwrap());
    assert_eq!(within(client.whoami(Some("routed".into()))).await.unwrap().tag.as_deref(), Some("routed"));
    handle.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_to_a_service_not_ready_waits_for_it_and_then_runs() {
    let keeper = Arc::new(Gatekeeper::default());
    let server = Server::builder().layer(ConcurrencyLimitLayer::new(1)).build();
    let handle = server.bind("127.0.0.1:0", gate::Server::new(keeper.clone())).await.unwrap();
    let client = connect(handle.local_addr()).await;

    let first = tokio::spawn({
        let client = client.clone();
        async move { within(client.pass(1)).await }
    });
    eventually("the first call reached its handler", || keeper.waiting.load(Ordering::SeqCst) == 1).await;
    // The same connection: the service is not ready for this one until the first ends.
    let second = tokio::spawn({
        let client = client.clone();
        async move { within(client.pass(2)).await }
    });
    eventually("the second request was read", || handle.metrics().requests == 2).await;
    assert_eq!(keeper.waiting.load(Ordering::SeqCst), 1, "the second waits for the service, unrun");

    keeper.gate.add_permits(1);
    assert_eq!(first.await.unwrap().unwrap(), 1);
    eventually("the second call reached its handler", || keeper.waiting.load(Ordering::SeqCst) == 2).await;
    keeper.gate.add_permits(1);
    assert_eq!(second.await.unwrap().unwrap(), 2);
    handle.shutdown(Duration::from_secs(5)).await;
}

/// A service that never becomes ready: its readiness fails, or panics.
#[derive(Clone)]
struct NeverReady {
    panics: bool,
    called: Arc<AtomicUsize>,
}

impl tower::Service<Request> for NeverReady {
    type Response = thrift_net::server::Response;
    type Error = thrift_net::server::BoxError;
    type Future = std::future::Ready<Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        if self.panics {
            panic!("readiness panicked");
        }
        std::task::Poll::Ready(Err("the backend is gone".into()))
    }

    fn call(&mut self, _: Request) -> Self::Future {
        self.called.fetch_add(1, Ordering::SeqCst);
        std::future::ready(Err("called although not ready".into()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_whose_readiness_fails_or_panics_is_answered_internal_error_and_the_connection_stays() {
    for panics in [false, true] {
        let called = Arc::new(AtomicUsize::new(0));
        let handle =
            Server::builder().build().bind("127.0.0.1:0", NeverReady { panics, called: called.clone() }).await.unwrap();
        let client = connect(handle.local_addr()).await;
        for n in 0..2 {
            let err = within(client.pass(n)).await.unwrap_err();
            let CallError::Application(e, ..) = &err else { panic!("expected an application exception, got {err:?}") };
            assert_eq!(e.kind, ApplicationExceptionKind::InternalError, "panics: {panics}: {e}");
        }
        assert_eq!(called.load(Ordering::SeqCst), 0, "never called");
        assert_eq!(handle.metrics().errors, 2, "panics: {panics}");
        handle.shutdown(Duration::from_secs(5)).await;
    }
}
