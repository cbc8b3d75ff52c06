//! The pool's two modes on 127.0.0.1, calls per second at 16, 64 and 256 concurrent callers:
//!
//! - `pool/ours/C`: against this crate's server (which handles a connection's requests
//!   concurrently), a call with no work in it. Exclusive mode with one connection per caller
//!   (`max_total = C`), exclusive capped at 8 connections, and shared mode with 2 pipelined
//!   connections.
//! - `pool/one-at-a-time/64`: against a server that handles one request per connection at a
//!   time (as Apache's `TSimpleServer`, `TThreadPoolServer` and `TNonblockingServer` do), each
//!   call taking 1 ms of server time (a database call, say): the cost of pipelining where the
//!   server serializes.
//!
//! Run: `cargo bench -p thrift-benches --bench pool` (about two minutes). After criterion, a
//! summary prints calls per second of each mode, best of several rounds that alternate the
//! modes. Client and server share the machine's cores, as on a test box; the figures compare
//! modes, not machines.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use thrift_core::{Limits, ThriftStruct};
use thrift_net::codec::FramedCodec;
use thrift_net::pool::Mode;
use thrift_net::server::respond;
use thrift_net::{service, Pool, PoolConfig, ProtocolKind, Request, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio_util::codec::Decoder;

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct HelloRequest {
    #[thrift(id = 1)]
    name: String,
    #[thrift(id = 2)]
    message: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct HelloResponse {
    #[thrift(id = 1)]
    name: String,
    #[thrift(id = 2)]
    age: i32,
    #[thrift(id = 3)]
    message: String,
    #[thrift(id = 4)]
    timestamp: i64,
}

/// The seed document's service.
#[service(name = "HelloService")]
trait HelloService {
    #[thrift(name = "sayHello")]
    async fn say_hello(&self, #[thrift(id = 1)] req: HelloRequest) -> HelloResponse;
}

/// Answers at once, or after `work` of simulated I/O.
struct Greeter {
    work: Option<Duration>,
}

impl HelloService for Greeter {
    async fn say_hello(&self, req: HelloRequest) -> HelloResponse {
        if let Some(work) = self.work {
            tokio::time::sleep(work).await;
        }
        HelloResponse { message: format!("hello, {}", req.name), name: req.name, age: 19, timestamp: 1_700_000_000 }
    }
}

/// A framed binary server that reads one request, answers it, and only then reads the next.
async fn one_at_a_time_server(work: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("addr");
    let service = hello_service::Server::new(Greeter { work: Some(work) });
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut service = service.clone();
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let mut codec = FramedCodec::<thrift_core::Binary>::new();
                let mut buf = BytesMut::new();
                loop {
                    let message = match codec.decode(&mut buf) {
                        Ok(Some(message)) => message,
                        Ok(None) => match stream.read_buf(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(_) => continue,
                        },
                        Err(_) => return,
                    };
                    let Ok(request) = Request::parse(message, ProtocolKind::Binary, true, Limits::default()) else {
                        return;
                    };
                    if let Some(reply) = respond(&mut service, request).await.into_bytes() {
                        if stream.write_all(&reply).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    addr
}

/// `calls` calls split over `callers` tasks through `pool`; the time they took.
async fn run(pool: &Pool, callers: usize, calls: u64) -> Duration {
    let client = hello_service::Client::new(pool.clone());
    let started = Instant::now();
    let tasks: Vec<_> = (0..callers as u64)
        .map(|t| {
            let client = client.clone();
            let share = calls / callers as u64 + u64::from(t < calls % callers as u64);
            tokio::spawn(async move {
                let req = HelloRequest { name: "Jonny".into(), message: "good night".into() };
                for _ in 0..share {
                    let reply = client.say_hello(req.clone()).await.expect("a call through the pool");
                    assert_eq!(reply.message, "hello, Jonny");
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a caller task");
    }
    started.elapsed()
}

fn pool_for(addr: SocketAddr, mode: Mode, max_total: usize) -> Pool {
    let config =
        PoolConfig::default().with_mode(mode).with_max_total(max_total).with_wait_timeout(Duration::from_secs(30));
    Pool::new([addr], config)
}

fn modes(callers: usize) -> [(&'static str, Mode, usize); 3] {
    [
        ("exclusive-per-caller", Mode::Exclusive, callers),
        ("exclusive-8", Mode::Exclusive, 8),
        ("shared-2", Mode::Shared { connections: 2 }, 2),
    ]
}

fn bench(c: &mut Criterion) {
    let rt: Runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let ours = rt.block_on(async {
        let handle = Server::new().bind("127.0.0.1:0", hello_service::Server::new(Greeter { work: None })).await;
        handle.expect("bind 127.0.0.1")
    });

    for callers in [16, 64, 256] {
        let mut group = c.benchmark_group(format!("pool/ours/{callers}"));
        group.throughput(Throughput::Elements(1));
        group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
        for (name, mode, max_total) in modes(callers) {
            let pool = pool_for(ours.local_addr(), mode, max_total);
            // Connections opened before timing.
            rt.block_on(run(&pool, callers, callers as u64 * 4));
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter_custom(|calls| rt.block_on(run(&pool, callers, calls)));
            });
        }
        group.finish();
    }

    let serial = rt.block_on(one_at_a_time_server(Duration::from_millis(1)));
    let callers = 64;
    let mut group = c.benchmark_group(format!("pool/one-at-a-time/{callers}"));
    group.throughput(Throughput::Elements(1));
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (name, mode, max_total) in [modes(callers)[0], modes(callers)[2]] {
        let pool = pool_for(serial, mode, max_total);
        rt.block_on(run(&pool, callers, callers as u64 * 2));
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|calls| rt.block_on(run(&pool, callers, calls)));
        });
    }
    group.finish();
}

/// Calls per second of each mode, best of several rounds that alternate the modes, so load
/// from other processes that comes and goes weighs on every mode alike.
fn summary() {
    const ROUNDS: usize = 5;
    const CALLS: u64 = 6000;
    let rt: Runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let ours = rt.block_on(async {
        let handle = Server::new().bind("127.0.0.1:0", hello_service::Server::new(Greeter { work: None })).await;
        handle.expect("bind 127.0.0.1")
    });
    let serial = rt.block_on(one_at_a_time_server(Duration::from_millis(1)));
    println!("\ncalls/s, best of {ROUNDS} alternating rounds of {CALLS} calls:");
    println!("{:<28} {:>22} {:>14} {:>10}", "server/callers", "exclusive-per-caller", "exclusive-8", "shared-2");
    let cases = [("ours", ours.local_addr(), 16), ("ours", ours.local_addr(), 64), ("ours", ours.local_addr(), 256)];
    for (server, addr, callers) in cases.into_iter().chain([("one-at-a-time", serial, 64)]) {
        let pools: Vec<Pool> = modes(callers).iter().map(|&(_, mode, max)| pool_for(addr, mode, max)).collect();
        let mut best = vec![0f64; pools.len()];
        let calls = if server == "ours" { CALLS } else { CALLS / 10 };
        for _ in 0..ROUNDS {
            for (pool, best) in pools.iter().zip(&mut best) {
                rt.block_on(run(pool, callers, callers as u64));
                let took = rt.block_on(run(pool, callers, calls));
                *best = best.max(calls as f64 / took.as_secs_f64());
            }
        }
        let [a, b, c] = best[..] else { unreachable!("three modes") };
        println!("{:<28} {a:>22.0} {b:>14.0} {c:>10.0}", format!("{server}/{callers}"));
    }
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // Only when benchmarking: `cargo test --benches` runs each benchmark once, quickly.
    if std::env::args().any(|a| a == "--bench") {
        summary();
    }
}
