//! Thrift over HTTPS (feature `https`): `serve_https` and `HttpClient::with_tls` with
//! certificates rcgen makes for each test, bare messages and header frames alike; client
//! certificates required and missing; a peer that never handshakes delays no one; an `https`
//! URL without TLS refused before anything is sent, and a plaintext client to an HTTPS server
//! told so instead of hanging.
#![cfg(feature = "https")]

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pki.rs"]
mod pki;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hello::*;
use pki::Pki;
use thrift_net::http::{serve_https, HttpClient, HttpService};
use thrift_net::{tls, CallError, ClientConfig, ProtocolKind, Transport};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// HelloService over HTTPS on 127.0.0.1, until the sender is dropped or sent to.
async fn start(tls: Arc<tls::rustls::ServerConfig>) -> (SocketAddr, oneshot::Sender<()>, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let service = HttpService::new(hello_service::Server::new(Greeter::default()));
    let server =
        tokio::spawn(serve_https(listener, tls, service, async { drop(stopped.await) }, Duration::from_secs(1)));
    (addr, stop, server)
}

fn config(transport: Transport, protocol: ProtocolKind) -> ClientConfig {
    ClientConfig::new(transport, protocol).with_call_timeout(DEADLINE)
}

async fn greet(channel: HttpClient, name: &str) -> Result<String, CallError<HelloError>> {
    within(hello_service::Client::new(channel).say_hello(HelloRequest { name: name.into() })).await.map(|r| r.message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_work_over_https_bare_and_in_header_frames() {
    let pki = Pki::standard("https-wires");
    let (addr, stop, server) = start(pki.server_config(None)).await;
    let url = format!("https://localhost:{}/", addr.port());
    for transport in [Transport::Buffered, Transport::Header, Transport::TTHeader] {
        for protocol in [ProtocolKind::Binary, ProtocolKind::Compact] {
            let channel = HttpClient::with_tls(url.parse().unwrap(), config(transport, protocol), pki.client_config());
            let who = format!("{transport:?}/{protocol:?}");
            assert_eq!(greet(channel, &who).await.unwrap(), format!("hello, {who}"));
        }
    }
    stop.send(()).unwrap();
    within(server).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_requiring_client_certificates_takes_only_clients_with_one() {
    let pki = Pki::standard("https-mutual");
    let (addr, _stop, _server) = start(pki.server_config(Some(&pki.path("ca.pem")))).await;
    let url = format!("https://localhost:{}/", addr.port());
    let (crt, key) = (pki.path("client.crt"), pki.path("client.key"));
    let with_cert = tls::client_config(pki.path("ca.pem"), Some((crt.as_path(), key.as_path())));
    let channel = HttpClient::with_tls(url.parse().unwrap(), ClientConfig::default(), with_cert.unwrap());
    assert_eq!(greet(channel, "ada").await.unwrap(), "hello, ada");
    let without = HttpClient::with_tls(url.parse().unwrap(), ClientConfig::default(), pki.client_config());
    let err = greet(without, "eve").await.unwrap_err();
    assert!(matches!(err, CallError::Transport(..) | CallError::NotSent(..)), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_certificate_from_another_ca_is_refused() {
    let pki = Pki::standard("https-other-ca");
    let (addr, _stop, _server) = start(pki.server_config(None)).await;
    let other = Pki::standard("https-other-ca-2");
    let channel = HttpClient::with_tls(
        format!("https://localhost:{}/", addr.port()).parse().unwrap(),
        ClientConfig::default(),
        other.client_config(),
    );
    let err = greet(channel, "eve").await.unwrap_err();
    assert!(matches!(err, CallError::NotSent(..)), "{err:?}");
    assert!(err.to_string().contains("certificate"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_never_handshakes_delays_no_one() {
    let pki = Pki::standard("https-stall");
    let (addr, stop, server) = start(pki.server_config(None)).await;
    // Connected, and silent: its handshake waits in its own task.
    let _silent = TcpStream::connect(addr).await.unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    let channel = HttpClient::with_tls(url.parse().unwrap(), ClientConfig::default(), pki.client_config());
    assert_eq!(greet(channel, "ada").await.unwrap(), "hello, ada");
    // Nor does it hold the shutdown past its grace.
    stop.send(()).unwrap();
    within(server).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_url_without_tls_is_refused_before_sending() {
    let channel = HttpClient::new("https://localhost:1/".parse().unwrap(), ClientConfig::default());
    let err = greet(channel, "ada").await.unwrap_err();
    assert!(matches!(err, CallError::NotSent(..)), "{err:?}");
    assert!(err.to_string().contains("HttpClient::with_tls"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plaintext_client_to_an_https_server_gets_an_error_not_a_hang() {
    let pki = Pki::standard("https-plain-client");
    let (addr, _stop, _server) = start(pki.server_config(None)).await;
    let channel = HttpClient::new(
        format!("http://127.0.0.1:{}/", addr.port()).parse().unwrap(),
        config(Transport::Buffered, ProtocolKind::Binary),
    );
    let err = greet(channel, "ada").await.unwrap_err();
    assert!(matches!(err, CallError::Transport(..) | CallError::NotSent(..)), "{err:?}");
}
