//! The server and the pool report through the `metrics` facade: a debugging recorder sees
//! the counters move with real calls on 127.0.0.1, and one duration sample per call under
//! its method's label.

#[path = "common/hello.rs"]
mod hello;

use std::sync::OnceLock;

use hello::*;
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use thrift_net::metrics_names as names;
use thrift_net::{ClientConfig, Pool, PoolConfig, Server};

/// One recorder for the whole test binary (the facade takes one global recorder; the
/// handles the server registers are used from the runtime's worker threads); each test
/// tells its own metrics apart by a `test` label.
fn snapshotter() -> &'static Snapshotter {
    static SNAPSHOTTER: OnceLock<Snapshotter> = OnceLock::new();
    SNAPSHOTTER.get_or_init(|| {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        recorder.install().expect("the only recorder of this binary");
        snapshotter
    })
}

/// One metric read: its name, its labels, its value.
type Entry = (String, Vec<(String, String)>, DebugValue);

/// The recorder's snapshot zeroes what it reads, so the tests take turns.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Every metric named `name` whose labels include all of `labels`.
fn values<'a>(snapshot: &'a [Entry], name: &str, labels: &[(&str, &str)]) -> Vec<&'a DebugValue> {
    snapshot
        .iter()
        .filter(|(n, l, _)| n == name && labels.iter().all(|(k, v)| l.iter().any(|(lk, lv)| lk == k && lv == v)))
        .map(|(_, _, v)| v)
        .collect()
}

fn take() -> Vec<Entry> {
    snapshotter()
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| {
            let key = key.key();
            let labels = key.labels().map(|l| (l.key().to_owned(), l.value().to_owned())).collect();
            (key.name().to_owned(), labels, value)
        })
        .collect()
}

fn counter(snapshot: &[Entry], name: &str, labels: &[(&str, &str)]) -> u64 {
    match values(snapshot, name, labels).as_slice() {
        [DebugValue::Counter(n)] => *n,
        other => panic!("{name} {labels:?}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_counts_requests_connections_errors_and_times_each_call() {
    let _turn = TURN.lock().await;
    snapshotter();
    let server = Server::builder().metrics_labels([("test", "server")]).build();
    let handle = start(server).await;
    let client = hello_client(&handle, ClientConfig::default()).await;
    for name in ["a", "b", "c"] {
        let reply = within(client.say_hello(HelloRequest { name: name.into() })).await.unwrap();
        assert_eq!(reply.message, format!("hello, {name}"));
    }
    // An unknown method: answered with an exception, counted as an error.
    let mut raw = RawConnection::connect(&handle, thrift_net::ProtocolKind::Binary, true).await;
    raw.send(&encode_call(
        thrift_net::ProtocolKind::Binary,
        true,
        "noSuchMethod",
        thrift_core::MessageType::Call,
        9,
        &HelloRequest::default(),
    ))
    .await;
    raw.read_reply().await;
    // A reply reaches its client a moment before its request is marked done and timed.
    eventually("requests done", || handle.metrics().in_flight == 0).await;
    let snapshot_api = handle.metrics();
    let snapshot = take();
    let labels = [("test", "server")];
    assert_eq!(counter(&snapshot, names::SERVER_REQUESTS_TOTAL, &labels), 4);
    assert_eq!(counter(&snapshot, names::SERVER_REQUESTS_TOTAL, &labels), snapshot_api.requests);
    assert_eq!(counter(&snapshot, names::SERVER_CONNECTIONS_ACCEPTED_TOTAL, &labels), 2);
    assert_eq!(counter(&snapshot, names::SERVER_ERRORS_TOTAL, &labels), 1);
    assert_eq!(counter(&snapshot, names::SERVER_RECEIVED_BYTES_TOTAL, &labels), snapshot_api.bytes_in);
    assert!(snapshot_api.bytes_in > 0);
    match values(&snapshot, names::SERVER_CONNECTIONS, &labels).as_slice() {
        [DebugValue::Gauge(open)] => assert_eq!(open.into_inner(), 2.0),
        other => panic!("connections gauge: {other:?}"),
    }
    match values(&snapshot, names::SERVER_IN_FLIGHT, &labels).as_slice() {
        [DebugValue::Gauge(n)] => assert_eq!(n.into_inner(), 0.0),
        other => panic!("connections gauge: {other:?}"),
    }
    match values(&snapshot, names::SERVER_REQUEST_DURATION_SECONDS, &[("test", "server"), ("method", "sayHello")])
        .as_slice()
    {
        [DebugValue::Histogram(samples)] => {
            assert_eq!(samples.len(), 3, "one sample per call");
            assert!(samples.iter().all(|s| s.into_inner() >= 0.0 && s.into_inner() < 20.0));
        }
        other => panic!("sayHello durations: {other:?}"),
    }
    match values(&snapshot, names::SERVER_REQUEST_DURATION_SECONDS, &[("test", "server"), ("method", "noSuchMethod")])
        .as_slice()
    {
        [DebugValue::Histogram(samples)] => assert_eq!(samples.len(), 1),
        other => panic!("noSuchMethod durations: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_counts_connections_and_calls_per_endpoint() {
    let _turn = TURN.lock().await;
    snapshotter();
    let handle = start(Server::new()).await;
    let config = PoolConfig::default().with_metrics_labels(vec![("test".into(), "pool".into())]);
    let pool = Pool::new([handle.local_addr()], config);
    let client = hello_service::Client::new(pool.clone());
    for name in ["x", "y"] {
        within(client.say_hello(HelloRequest { name: name.into() })).await.unwrap();
    }
    let endpoint = handle.local_addr().to_string();
    let labels = [("test", "pool"), ("endpoint", endpoint.as_str())];
    let snapshot = take();
    let created = counter(&snapshot, names::POOL_CONNECTIONS_CREATED_TOTAL, &labels);
    assert_eq!(created, pool.metrics()[0].created);
    assert!(created >= 1);
    assert_eq!(counter(&snapshot, names::POOL_TIMEOUTS_TOTAL, &labels), 0);
    match values(&snapshot, names::POOL_CALLS_IN_FLIGHT, &labels).as_slice() {
        [DebugValue::Gauge(n)] => assert_eq!(n.into_inner(), 0.0, "both calls finished"),
        other => panic!("in flight: {other:?}"),
    }
    match values(&snapshot, names::POOL_CONNECTIONS_OPEN, &labels).as_slice() {
        [DebugValue::Gauge(n)] => assert_eq!(n.into_inner(), created as f64),
        other => panic!("open: {other:?}"),
    }
}
