//! The server and the client over TLS (feature `tls`), with certificates made for each test
//! by rcgen: every wire through a handshake, wrong CAs and names refused with errors that say
//! so, client certificates required and missing, a peer that never handshakes dropped after
//! the handshake timeout, and a plaintext client told what went wrong instead of hanging.
#![cfg(feature = "tls")]

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pki.rs"]
mod pki;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hello::*;
use pki::{Ca, Pki};
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use thrift_net::{tls, CallError, Client, ClientConfig, Server, ServerHandle};
use tokio::io::AsyncReadExt;

async fn start_tls(server: Server, tls: Arc<tls::rustls::ServerConfig>) -> ServerHandle {
    server.bind_tls("127.0.0.1:0", tls, hello_service::Server::new(Greeter::default())).await.expect("bind 127.0.0.1")
}

async fn connect(
    handle: &ServerHandle,
    name: &str,
    tls: Arc<tls::rustls::ClientConfig>,
    config: ClientConfig,
) -> Result<Client, thrift_net::TransportError> {
    within(Client::connect_tls(handle.local_addr(), name, tls, config)).await
}

async fn greet(client: Client, name: &str) -> Result<String, CallError<HelloError>> {
    hello_service::Client::new(client).say_hello(HelloRequest { name: name.into() }).await.map(|r| r.message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wire_works_over_tls() {
    let pki = Pki::standard("wires");
    let handle = start_tls(Server::new(), pki.server_config(None)).await;
    for (transport, protocol) in wires() {
        for name in ["localhost", "127.0.0.1"] {
            let client = connect(&handle, name, pki.client_config(), ClientConfig::new(transport, protocol)).await;
            let client = client.unwrap_or_else(|e| panic!("{transport:?} {protocol:?} to {name}: {e}"));
            // Several calls at once on the one TLS connection, through the split halves.
            let (a, b) = tokio::join!(greet(client.clone(), "ada"), greet(client.clone(), "bob"));
            assert_eq!((a.unwrap(), b.unwrap()), ("hello, ada".to_string(), "hello, bob".to_string()));
        }
    }
    assert!(handle.shutdown(Duration::from_secs(5)).await.is_graceful());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_certificate_from_another_ca_is_refused() {
    let pki = Pki::standard("wrong-ca");
    let handle = start_tls(Server::new(), pki.server_config(None)).await;
    let other = Ca::new("some other CA");
    let other_ca = pki.write("other-ca.pem", &other.cert.pem());
    let tls = tls::client_config(other_ca, None).unwrap();
    let e = connect(&handle, "localhost", tls, ClientConfig::default()).await.unwrap_err();
    let text = e.to_string();
    assert!(text.contains("TLS handshake with \"localhost\" failed"), "{text}");
    assert!(text.contains("UnknownIssuer"), "names the reason: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_for_another_name_is_refused() {
    let pki = Pki::standard("wrong-name");
    let handle = start_tls(Server::new(), pki.server_config(None)).await;
    let e = connect(&handle, "elsewhere.example", pki.client_config(), ClientConfig::default()).await.unwrap_err();
    let text = e.to_string();
    assert!(text.contains("TLS handshake with \"elsewhere.example\" failed"), "{text}");
    assert!(text.contains("certificate not valid for name \"elsewhere.example\""), "names the reason: {text}");
    // Not a name at all: said before connecting.
    let e = connect(&handle, "not a name!", pki.client_config(), ClientConfig::default()).await.unwrap_err();
    assert!(e.to_string().contains("is not a server name"), "{e}");
}

/// A self-signed certificate marked as a CA (as Apache's test keys are) is trusted when the
/// client's CA file lists it, and only for its names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_self_signed_ca_certificate_is_trusted_for_its_names() {
    let pki = Pki::new("self-signed");
    let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    let key = KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (crt, key) = (pki.write("server.crt", &cert.pem()), pki.write("server.key", &key.serialize_pem()));
    let handle = start_tls(Server::new(), tls::server_config(crt, key, None).unwrap()).await;
    let trust = tls::client_config(pki.path("server.crt"), None).unwrap();
    let client = connect(&handle, "localhost", trust.clone(), ClientConfig::default()).await.unwrap();
    assert_eq!(greet(client, "ada").await.unwrap(), "hello, ada");
    let e = connect(&handle, "elsewhere.example", trust, ClientConfig::default()).await.unwrap_err();
    assert!(e.to_string().contains("certificate not valid for name"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_requiring_client_certificates_refuses_a_client_without_one() {
    let pki = Pki::standard("client-auth");
    let handle = start_tls(Server::new(), pki.server_config(Some(&pki.path("ca.pem")))).await;

    let identity = (pki.path("client.crt"), pki.path("client.key"));
    let with = tls::client_config(pki.path("ca.pem"), Some((&identity.0, &identity.1))).unwrap();
    let client = connect(&handle, "localhost", with, ClientConfig::default()).await.unwrap();
    assert_eq!(greet(client, "ada").await.unwrap(), "hello, ada");
    let served = handle.metrics().requests;

    // Under TLS 1.3 the client's side of the handshake ends before the server checks its
    // certificate: the refusal comes with the first read, as the call's transport error.
    let refused = match connect(&handle, "localhost", pki.client_config(), ClientConfig::default()).await {
        Err(e) => e.to_string(),
        Ok(client) => match greet(client, "ada").await {
            // Failed as sent, or as not sent if the alert closed the connection first.
            Err(CallError::Transport(e, ..) | CallError::NotSent(e, ..)) => e.to_string(),
            other => panic!("a client without a certificate was served: {other:?}"),
        },
    };
    assert!(refused.contains("CertificateRequired"), "says why: {refused}");
    assert_eq!(handle.metrics().requests, served, "nothing of it was served");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_never_handshakes_is_dropped_after_the_timeout() {
    let pki = Pki::standard("handshake-timeout");
    let timeout = Duration::from_millis(300);
    let server = Server::builder().tls_handshake_timeout(timeout).read_idle_timeout(None).max_connections(1).build();
    let handle = start_tls(server, pki.server_config(None)).await;
    let start = Instant::now();
    let mut silent = within(tokio::net::TcpStream::connect(handle.local_addr())).await.unwrap();
    let mut scratch = [0u8; 64];
    let read = within(silent.read(&mut scratch)).await;
    let took = start.elapsed();
    assert!(matches!(read, Ok(0) | Err(_)), "closed without a byte: {read:?}");
    assert!(took >= timeout - Duration::from_millis(20), "not before the timeout: {took:?}");
    assert!(took < timeout + Duration::from_secs(2), "soon after it: {took:?}");
    // Its place under the connection limit (of one) is free again: a real client is served,
    // not turned away.
    let client = connect(&handle, "localhost", pki.client_config(), ClientConfig::default()).await.unwrap();
    assert_eq!(greet(client, "ada").await.unwrap(), "hello, ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plaintext_client_to_a_tls_server_gets_an_error_not_a_hang() {
    let pki = Pki::standard("plaintext-client");
    let handle = start_tls(Server::new(), pki.server_config(None)).await;
    let config = ClientConfig::default().with_call_timeout(Duration::from_secs(10));
    let client = within(Client::connect(handle.local_addr(), config)).await.unwrap();
    let start = Instant::now();
    let e = match greet(client, "ada").await {
        Err(CallError::Transport(e, ..)) => e.to_string(),
        other => panic!("expected a transport error, got {other:?}"),
    };
    assert!(start.elapsed() < Duration::from_secs(5), "at once, not at the call timeout");
    // rustls answers the plain frame with an alert record, which the client names.
    assert!(e.contains("the peer expects TLS"), "says what is wrong: {e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_client_to_a_plaintext_server_gets_an_error_not_a_hang() {
    let pki = Pki::standard("plaintext-server");
    let handle = start(Server::new()).await;
    let e = connect(&handle, "localhost", pki.client_config(), ClientConfig::default()).await.unwrap_err();
    assert!(e.to_string().contains("TLS handshake with \"localhost\" failed"), "{e}");
}

#[test]
fn pem_problems_name_the_file_and_the_problem() {
    let pki = Pki::standard("pem");
    let missing = pki.path("missing.pem");
    let e = tls::load_certs(&missing).unwrap_err();
    assert_eq!(e.path(), Some(missing.as_path()));
    assert!(e.to_string().contains("missing.pem: cannot read it"), "{e}");

    // A key file where certificates are expected, and the other way round.
    let e = tls::load_certs(pki.path("server.key")).unwrap_err();
    assert!(e.to_string().contains("server.key: no certificate"), "{e}");
    let e = tls::load_private_key(pki.path("server.crt")).unwrap_err();
    assert!(e.to_string().contains("server.crt: no private key"), "{e}");

    let garbage = pki.write("garbage.pem", "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n");
    let e = tls::load_certs(&garbage).unwrap_err();
    assert!(e.to_string().contains("garbage.pem: not a valid PEM file"), "{e}");

    // The client's key with the server's certificate.
    let e = tls::server_config(pki.path("server.crt"), pki.path("client.key"), None).unwrap_err();
    assert!(e.to_string().contains("client.key: does not go with the certificate in"), "{e}");

    // One file holding both, as Apache's server.pem does.
    let both = std::fs::read_to_string(pki.path("server.crt")).unwrap()
        + &std::fs::read_to_string(pki.path("server.key")).unwrap();
    let both = pki.write("server.pem", &both);
    tls::server_config(&both, &both, None).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_opens_its_connections_over_tls() {
    use thrift_net::pool::Mode;
    use thrift_net::{Pool, PoolConfig};
    let pki = Pki::standard("pool");
    let handle = start_tls(Server::new(), pki.server_config(None)).await;
    for mode in [Mode::Exclusive, Mode::Shared { connections: 2 }] {
        let tls = tls::ClientTls::new(pki.client_config(), "localhost");
        let pool = Pool::new([handle.local_addr()], PoolConfig::default().with_tls(Some(tls)).with_mode(mode));
        let client = hello_service::Client::new(pool.clone());
        let (a, b) = tokio::join!(
            client.say_hello(HelloRequest { name: "ada".into() }),
            client.say_hello(HelloRequest { name: "bob".into() })
        );
        assert_eq!((a.unwrap().message, b.unwrap().message), ("hello, ada".into(), "hello, bob".into()), "{mode:?}");
    }
    // A name the certificate does not carry: the endpoint refuses, the call is unavailable.
    let tls = tls::ClientTls::new(pki.client_config(), "elsewhere.example");
    let pool = Pool::new([handle.local_addr()], PoolConfig::default().with_tls(Some(tls)));
    let e = hello_service::Client::new(pool).say_hello(HelloRequest { name: "ada".into() }).await.unwrap_err();
    assert!(format!("{e:?}").contains("not valid for name"), "{e:?}");
}
