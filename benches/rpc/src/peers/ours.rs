//! This project's server and clients: the ones `thrift-loadtest` runs, measured here the
//! same way as the peers.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use thrift_loadtest::{run_cell, CellSettings, Stats, Strategy};
use thrift_net::{ClientConfig, Transport};

use crate::LoadArgs;

/// Serves HelloService with `thrift-net`'s server until the process is killed.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(addr: SocketAddr) -> io::Result<()> {
    let _handle = thrift_loadtest::start_server(addr).await?;
    std::future::pending::<()>().await;
    Ok(())
}

/// Loads `addr` with one of `thrift-loadtest`'s strategies, on `transport` (binary).
pub async fn load(strategy: Strategy, addr: SocketAddr, args: &LoadArgs, transport: Transport) -> Stats {
    let mut client = ClientConfig::default().with_call_timeout(args.call_timeout()).with_transport(transport);
    client.connect_timeout = client.call_timeout;
    let settings = CellSettings {
        duration: args.duration(),
        warmup: args.warmup(),
        payload: args.payload(),
        client,
        pool_size: None,
        max_connections: 100_000,
        tls: None,
        http: false,
    };
    run_cell(addr, strategy, args.concurrency, &settings, Arc::new(AtomicU64::new(0))).await.stats
}
