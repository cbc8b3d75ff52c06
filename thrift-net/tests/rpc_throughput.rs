//! Calls per second over one connection, sequential and pipelined, on every wire; every
//! reply checked. Bounded: 2,000 calls per case by default; for a figure, run in release
//! with more:
//!
//! `THRIFT_RPC_CALLS=40000 cargo test --release -p thrift-net --test rpc_throughput -- --nocapture`

#[path = "common/hello.rs"]
mod hello;

use std::time::Instant;

use hello::*;
use thrift_net::{ClientConfig, Server};
use tokio::task::JoinSet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_per_second_over_one_connection() {
    let calls: usize =
        std::env::var("THRIFT_RPC_CALLS").ok().and_then(|n| n.parse().ok()).unwrap_or(2000).min(1_000_000);
    let handle = start(Server::new()).await;
    for (transport, protocol) in wires() {
        for callers in [1, 64] {
            let client = hello_client(&handle, ClientConfig::new(transport, protocol)).await;
            let per_caller = calls / callers;
            let started = Instant::now();
            let mut set = JoinSet::new();
            for c in 0..callers {
                let client = client.clone();
                set.spawn(async move {
                    for i in 0..per_caller {
                        let name = format!("{c}.{i}");
                        let reply = client.say_hello(HelloRequest { name: name.clone() }).await.unwrap();
                        assert_eq!(reply.message, format!("hello, {name}"));
                    }
                });
            }
            while let Some(done) = within(set.join_next()).await {
                done.unwrap();
            }
            let elapsed = started.elapsed();
            let total = per_caller * callers;
            println!(
                "{transport:?} {protocol:?}, {callers} caller(s): {total} calls in {elapsed:.2?} = {:.0} calls/s",
                total as f64 / elapsed.as_secs_f64()
            );
        }
    }
}
