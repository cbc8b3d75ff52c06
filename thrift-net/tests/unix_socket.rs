//! The server and the client over Unix domain sockets: every transport and protocol, the
//! same detection, limits and graceful shutdown as over TCP.
#![cfg(unix)]

#[path = "common/hello.rs"]
mod hello;

use std::path::PathBuf;
use std::time::Duration;

use hello::*;
use thrift_net::{Client, ClientConfig, Server};

/// A socket path of its own for each test, removed when dropped.
struct SocketPath(PathBuf);

impl SocketPath {
    fn new(name: &str) -> SocketPath {
        let path = std::env::temp_dir().join(format!("thrift-net-{}-{name}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        SocketPath(path)
    }
}

impl Drop for SocketPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wire_works_over_a_unix_socket() {
    let path = SocketPath::new("wires");
    let greeter = Greeter::default();
    let handle = Server::new().bind_unix(&path.0, hello_service::Server::new(greeter.clone())).await.unwrap();
    assert_eq!(handle.local_addr().as_pathname(), Some(path.0.as_path()));
    for (transport, protocol) in wires() {
        let config = ClientConfig::new(transport, protocol);
        let client = hello_service::Client::new(within(Client::connect_unix(&path.0, config)).await.unwrap());
        let name = format!("{transport:?} {protocol:?}");
        let reply = within(client.say_hello(HelloRequest { name: name.clone() })).await.unwrap();
        assert_eq!(reply.message, format!("hello, {name}"));
        // Pipelined calls finish out of order and each gets its own reply.
        let (slow, fast) = tokio::join!(client.slow_hello("slow".into(), 100), client.slow_hello("fast".into(), 0));
        assert_eq!((slow.unwrap(), fast.unwrap()), ("hello, slow".to_string(), "hello, fast".to_string()));
    }
    let m = handle.metrics();
    assert_eq!((m.connections_accepted, m.requests), (4, 12), "{m:?}");
    assert!(within(handle.shutdown(Duration::from_secs(5))).await.is_graceful());
    assert!(Client::connect_unix(&path.0, ClientConfig::default()).await.is_err(), "no longer listening");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unix_server_at_its_connection_limit_answers_at_capacity() {
    let path = SocketPath::new("limit");
    let handle = Server::builder()
        .max_connections(1)
        .build()
        .bind_unix(&path.0, hello_service::Server::new(Greeter::default()))
        .await
        .unwrap();
    let first =
        hello_service::Client::new(within(Client::connect_unix(&path.0, ClientConfig::default())).await.unwrap());
    within(first.say_hello(HelloRequest { name: "in".into() })).await.unwrap();
    let second =
        hello_service::Client::new(within(Client::connect_unix(&path.0, ClientConfig::default())).await.unwrap());
    let e = within(second.say_hello(HelloRequest { name: "out".into() })).await.unwrap_err();
    assert!(e.is_retry_safe(), "{e:?}");
    assert_eq!(handle.metrics().connections_rejected, 1);
}
