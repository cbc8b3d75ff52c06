//! Helpers for the pool tests: HelloService servers that can be stopped and started again on
//! the same port, a watch on how many connections a server holds, and an Apache-style server
//! that handles one request per connection at a time. Every wait is bounded in time.
//!
//! Included by the pool tests with `#[path = "common/pool.rs"] mod pool;`, after
//! `#[path = "common/hello.rs"] mod hello;`.
#![allow(dead_code)] // each test file uses a different part

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use thrift_core::Limits;
use thrift_net::codec::FramedCodec;
use thrift_net::server::{respond, ThriftService};
use thrift_net::{ProtocolKind, Request, Server, ServerHandle};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket};
use tokio::task::JoinHandle;
use tokio_util::codec::Decoder;

use super::hello::{hello_service, within, Greeter};

/// A listener on `addr` (port 0: any), with `SO_REUSEADDR` so a stopped server's port can be
/// bound again while its old connections linger in `TIME_WAIT`.
pub fn listen(addr: SocketAddr) -> TcpListener {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.set_reuseaddr(true).expect("SO_REUSEADDR");
    socket.bind(addr).expect("bind 127.0.0.1");
    socket.listen(1024).expect("listen")
}

/// A HelloService server on `addr` (port 0: any free port), and its handler's shared state.
pub fn serve_on(addr: SocketAddr, server: &Server) -> (ServerHandle, Greeter) {
    let greeter = Greeter::default();
    let handle = server.serve(listen(addr), hello_service::Server::new(greeter.clone())).expect("serve");
    (handle, greeter)
}

/// Any free port on 127.0.0.1.
pub fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Stops a server at once, closing every connection (no grace: as if it were killed), and
/// waits until it is down.
pub async fn kill(handle: &ServerHandle) {
    within(handle.shutdown(Duration::ZERO)).await;
}

/// An address nothing listens on: a port bound and released.
pub fn dead_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr")
}

/// Samples a server's open connection count every millisecond and keeps the highest.
pub struct ConnectionWatch {
    most: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    task: JoinHandle<()>,
}

impl ConnectionWatch {
    pub fn start(handle: Arc<ServerHandle>) -> ConnectionWatch {
        let most = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn({
            let (most, stop) = (most.clone(), stop.clone());
            async move {
                while !stop.load(Ordering::Relaxed) {
                    most.fetch_max(handle.metrics().connections, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
        });
        ConnectionWatch { most, stop, task }
    }

    /// The most connections seen open at once.
    pub async fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        within(self.task).await.expect("the watch task");
        self.most.load(Ordering::Relaxed)
    }
}

/// What an [`ApacheStyleServer`] saw.
#[derive(Default)]
pub struct ApacheStats {
    pub connections: AtomicUsize,
    pub requests: AtomicUsize,
    /// Requests being handled now, over all connections.
    pub running: AtomicUsize,
    /// The most requests handled at once over all connections: the parallelism a client got
    /// (each connection contributes at most one).
    pub most_running: AtomicUsize,
}

/// A framed binary server that behaves as Apache's `TSimpleServer` and `TThreadPoolServer`
/// do on each connection: read one request, handle it, write the reply, then read the next.
/// A pipelining client's calls on one connection are served one after another.
pub struct ApacheStyleServer {
    pub addr: SocketAddr,
    pub stats: Arc<ApacheStats>,
    pub greeter: Greeter,
    task: JoinHandle<()>,
}

impl ApacheStyleServer {
    pub async fn start() -> ApacheStyleServer {
        ApacheStyleServer::answering(1).await
    }

    /// A faulty one, that writes each reply `copies` times (in one write): every copy after
    /// the first answers no call.
    pub async fn answering(copies: usize) -> ApacheStyleServer {
        let listener = listen(any_port());
        let addr = listener.local_addr().unwrap();
        let stats = Arc::new(ApacheStats::default());
        let greeter = Greeter::default();
        let service = hello_service::Server::new(greeter.clone());
        let task = tokio::spawn({
            let stats = stats.clone();
            async move {
                while let Ok((stream, _)) = listener.accept().await {
                    stats.connections.fetch_add(1, Ordering::SeqCst);
                    tokio::spawn(serve_one_at_a_time(stream, service.clone(), stats.clone(), copies));
                }
            }
        });
        ApacheStyleServer { addr, stats, greeter, task }
    }
}

impl Drop for ApacheStyleServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve_one_at_a_time<S: ThriftService>(
    mut stream: tokio::net::TcpStream,
    mut service: S,
    stats: Arc<ApacheStats>,
    copies: usize,
) {
    let mut codec = FramedCodec::<thrift_core::Binary>::new();
    let mut buf = BytesMut::new();
    loop {
        let message = loop {
            match codec.decode(&mut buf) {
                Ok(Some(message)) => break message,
                Ok(None) => {}
                Err(_) => return,
            }
            match stream.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        };
        let Ok(request) = Request::parse(message, ProtocolKind::Binary, true, Limits::default()) else { return };
        let now = stats.running.fetch_add(1, Ordering::SeqCst) + 1;
        stats.most_running.fetch_max(now, Ordering::SeqCst);
        stats.requests.fetch_add(1, Ordering::SeqCst);
        let reply = respond(&mut service, request).await;
        stats.running.fetch_sub(1, Ordering::SeqCst);
        if let Some(bytes) = reply.into_bytes() {
            if stream.write_all(&bytes.repeat(copies)).await.is_err() {
                return;
            }
        }
    }
}
