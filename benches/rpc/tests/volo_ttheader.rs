//! TTHeader against volo-thrift, with headers: our client calls volo's server (on its
//! defaults) and volo's handler reads the header our client sent. (volo's client against our
//! server runs in `rpc_compare`'s `volo -> ours` pair.)

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use thrift_loadtest::hello::{hello_service, HelloRequest};
use thrift_net::{Client, ClientConfig, Headers, ProtocolKind, Transport};

/// The volo server process, killed when dropped.
struct Volo(Child);

impl Drop for Volo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_volo() -> (Volo, SocketAddr) {
    let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_rpc-compare"))
        .args(["serve", "volo", "--addr", &addr.to_string()])
        .spawn()
        .expect("start rpc-compare serve volo");
    let volo = Volo(child);
    let started = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "volo's server did not listen on {addr}");
        std::thread::sleep(Duration::from_millis(20));
    }
    (volo, addr)
}

#[test]
fn volos_handler_reads_the_headers_our_ttheader_client_sends() {
    let (_volo, addr) = start_volo();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let config =
            ClientConfig::new(Transport::TTHeader, ProtocolKind::Binary).with_call_timeout(Duration::from_secs(10));
        let client = Client::connect(addr, config).await.unwrap();
        let request = HelloRequest { name: "Jonny".into(), message: "hi".into() };
        // Without the header: volo's handler answers with the request's name.
        let plain = hello_service::Client::new(client.clone()).say_hello(request.clone()).await.unwrap();
        assert_eq!(plain.name, "Jonny");
        // With it (metainfo's persistent prefix `RPC_PERSIST_`): the value volo's handler read.
        let mut headers = Headers::new();
        headers.insert("RPC_PERSIST_CALLER", "thrift-net");
        let traced = hello_service::Client::new(client.with_headers(headers));
        let reply = traced.say_hello(request).await.unwrap();
        assert_eq!((reply.name.as_str(), reply.age), ("thrift-net", 19));
    });
}
