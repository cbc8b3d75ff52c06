//! The client side is tower all the way down: the typed client runs over tower's own layers
//! stacked on a pool (timeout, concurrency limit, load shed, retry, buffer), keeps its typed
//! errors through them, and a retry policy can tell idempotent calls from the others.

#[path = "common/hello.rs"]
mod hello;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hello::{hello_service, within, Greeter, HelloRequest};
use thrift_net::{service, Call, CallError, Pool, PoolConfig, Reply, Server};
use tower::retry::Policy;
use tower::ServiceBuilder;

async fn greeter_pool() -> (thrift_net::ServerHandle, Pool) {
    let handle = within(Server::new().bind("127.0.0.1:0", hello_service::Server::new(Greeter::default())))
        .await
        .expect("bind 127.0.0.1");
    let pool = Pool::new([handle.local_addr()], PoolConfig::default());
    (handle, pool)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_client_runs_over_tower_layers_on_a_pool() {
    let (handle, pool) = greeter_pool().await;
    let stack = ServiceBuilder::new().timeout(Duration::from_millis(200)).service(pool.clone());
    let client = hello_service::Client::new(stack);

    let reply = within(client.say_hello(HelloRequest { name: "layers".into() })).await.unwrap();
    assert_eq!(reply.message, "hello, layers");
    // The declared exception stays typed through the stack.
    match within(client.say_hello(HelloRequest::default())).await {
        Err(CallError::Exception(e)) => assert_eq!(e.reason, "no name"),
        other => panic!("expected the declared exception, got {other:?}"),
    }
    // The layer's timeout is a typed timeout, and the pool counts its connection's loss.
    match within(client.slow_hello("late".into(), 2000)).await {
        Err(CallError::Timeout(None, ..)) => {}
        other => panic!("expected the timeout layer's timeout, got {other:?}"),
    }
    // Oneway messages go through the stack too.
    within(client.log("through the stack".into())).await.unwrap();

    // Under a buffer (a stack shared by a worker task) as well.
    let buffered = ServiceBuilder::new().buffer(16).concurrency_limit(4).service(pool.clone());
    let client = hello_service::Client::new(buffered);
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..8 {
        let client = client.clone();
        calls.spawn(async move { (i, client.say_hello(HelloRequest { name: format!("{i}") }).await) });
    }
    while let Some(joined) = within(calls.join_next()).await {
        let (i, reply) = joined.unwrap();
        assert_eq!(reply.unwrap().message, format!("hello, {i}"));
    }
    assert!(within(handle.shutdown(Duration::from_secs(5))).await.is_graceful());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_shedder_over_a_pool_refuses_what_it_cannot_take_as_retry_safe() {
    let (handle, pool) = greeter_pool().await;
    let shed = ServiceBuilder::new().load_shed().concurrency_limit(1).service(pool);
    let client = hello_service::Client::new(shed);
    let (slow, refused) = tokio::join!(client.slow_hello("first".into(), 300), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        client.say_hello(HelloRequest { name: "second".into() }).await
    });
    assert_eq!(slow.unwrap(), "hello, first");
    match refused {
        Err(e @ CallError::Layer(..)) => {
            assert!(e.is_retry_safe(), "{e}");
            assert!(e.to_string().contains("overloaded"), "{e}");
        }
        other => panic!("expected the load shedder's refusal, got {other:?}"),
    }
    assert!(within(handle.shutdown(Duration::from_secs(5))).await.is_graceful());
}

#[service]
trait Counter {
    #[thrift(idempotent)]
    async fn read(&self) -> i32;
    async fn bump(&self) -> i32;
}

/// Answers every call, counting them, so a test sees how often tower's retry layer sent each.
#[derive(Clone, Default)]
struct Counting {
    reads: Arc<AtomicUsize>,
    bumps: Arc<AtomicUsize>,
}

impl Counter for Counting {
    async fn read(&self) -> i32 {
        self.reads.fetch_add(1, Ordering::SeqCst) as i32
    }
    async fn bump(&self) -> i32 {
        self.bumps.fetch_add(1, Ordering::SeqCst) as i32
    }
}

/// Retries a call once more whatever its outcome, if its method is idempotent: what a user's
/// own policy (hedging, retry on a kind of exception) looks like.
#[derive(Clone)]
struct OnceMoreIfIdempotent(bool);

impl Policy<Call, Option<Reply>, CallError> for OnceMoreIfIdempotent {
    type Future = std::future::Ready<()>;

    fn retry(&mut self, call: &mut Call, _: &mut Result<Option<Reply>, CallError>) -> Option<Self::Future> {
        match (call.is_idempotent(), self.0) {
            (true, false) => {
                self.0 = true;
                Some(std::future::ready(()))
            }
            _ => None,
        }
    }

    fn clone_request(&mut self, call: &Call) -> Option<Call> {
        Some(call.clone())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_policy_sees_which_calls_are_idempotent_and_resends_them_whole() {
    let counting = Counting::default();
    let handle = within(Server::new().bind("127.0.0.1:0", counter::Server::new(counting.clone()))).await.unwrap();
    let pool = Pool::new([handle.local_addr()], PoolConfig::default());
    let stack = ServiceBuilder::new().retry(OnceMoreIfIdempotent(false)).service(pool);
    let client = counter::Client::new(stack);

    assert_eq!(within(client.read()).await.unwrap(), 1, "sent twice: the second answer is kept");
    assert_eq!(within(client.bump()).await.unwrap(), 0, "sent once");
    assert_eq!(counting.reads.load(Ordering::SeqCst), 2);
    assert_eq!(counting.bumps.load(Ordering::SeqCst), 1);
    assert!(within(handle.shutdown(Duration::from_secs(5))).await.is_graceful());
}
