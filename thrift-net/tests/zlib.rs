//! Apache's zlib transport (feature `zlib`): every wire inside zlib between our server and
//! client, what Python's zlib writes read as Apache's `TZlibTransport` writes it, zlib over
//! TLS, and a zlib bomb (kilobytes that inflate to gigabytes) refused at the message limit
//! with bounded memory.
#![cfg(feature = "zlib")]

#[path = "common/hello.rs"]
mod hello;

use std::time::{Duration, Instant};

use flate2::{Compress, Compression, FlushCompress};
use hello::*;
use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Limits, MessageType};
use thrift_net::codec::ZlibStream;
use thrift_net::pool::Mode;
use thrift_net::{Client, ClientConfig, Pool, PoolConfig, ProtocolKind, Server, ServerBuilder, Transport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn zlib_config(transport: thrift_net::Transport, protocol: ProtocolKind) -> ClientConfig {
    ClientConfig::new(transport, protocol).with_zlib(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wire_works_inside_zlib() {
    let handle = start(Server::builder().zlib(true).build()).await;
    for (transport, protocol) in wires() {
        let client = hello_client(&handle, zlib_config(transport, protocol)).await;
        let (a, b) = tokio::join!(
            client.say_hello(HelloRequest { name: "ada".into() }),
            client.say_hello(HelloRequest { name: "x".repeat(100_000) }),
        );
        assert_eq!(a.unwrap().message, "hello, ada", "{transport:?} {protocol:?}");
        assert_eq!(b.unwrap().message.len(), "hello, ".len() + 100_000, "{transport:?} {protocol:?}");
    }
    assert!(handle.shutdown(Duration::from_secs(5)).await.is_graceful());
}

/// The pool's connections, in either mode, speak zlib as a single connection does: the
/// transport, and THeader's transform.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_pool_modes_work_inside_zlib() {
    let handle = start(Server::builder().zlib(true).build()).await;
    for mode in [Mode::Exclusive, Mode::Shared { connections: 2 }] {
        let config =
            PoolConfig::default().with_mode(mode).with_client(zlib_config(Transport::Framed, ProtocolKind::Compact));
        let client = hello_service::Client::new(Pool::new([handle.local_addr()], config));
        for name in ["a", "b", "c"] {
            let reply = within(client.say_hello(HelloRequest { name: name.into() })).await;
            assert_eq!(reply.expect("a reply through zlib").message, format!("hello, {name}"), "{mode:?}");
        }
    }
    assert_eq!(handle.metrics().errors, 0);

    // THeader's zlib transform, which a plain server reads and answers in kind.
    let handle = start(Server::new()).await;
    let header_zlib = ClientConfig::new(Transport::Header, ProtocolKind::Compact).with_header_zlib(true);
    for mode in [Mode::Exclusive, Mode::Shared { connections: 2 }] {
        let config = PoolConfig::default().with_mode(mode).with_client(header_zlib.clone());
        let client = hello_service::Client::new(Pool::new([handle.local_addr()], config));
        let name = "z".repeat(2000);
        let reply = within(client.say_hello(HelloRequest { name: name.clone() })).await;
        assert_eq!(reply.expect("a reply through the transform").message, format!("hello, {name}"), "{mode:?}");
    }
    assert_eq!(handle.metrics().errors, 0);
}

/// A client that does not speak zlib to a zlib server gets an error, not a hang.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_client_to_a_zlib_server_fails_at_once() {
    let handle = start(Server::builder().zlib(true).build()).await;
    let client = hello_client(&handle, ClientConfig::default()).await;
    let start = Instant::now();
    let e = client.say_hello(HelloRequest { name: "ada".into() }).await.unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5), "{e:?}");
    assert!(matches!(e, thrift_net::CallError::Transport(..)), "{e:?}");
}

/// The bytes Python's `zlib` writes for a call, as Apache's `TZlibTransport` sends them
/// (level 9, a sync flush after the message), are answered in zlib that Python inflates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_apaches_tzlibtransport_writes_is_answered() {
    let handle = start(Server::builder().zlib(true).build()).await;
    let call = encode_call(
        ProtocolKind::Binary,
        false,
        "sayHello",
        MessageType::Call,
        7,
        &hello_service::SayHelloArgs { req: HelloRequest { name: "py".into() } },
    );
    let mut z = Compress::new(Compression::new(9), true);
    let mut wire = Vec::with_capacity(call.len() + 64);
    z.compress_vec(&call, &mut wire, FlushCompress::Sync).unwrap();
    assert_eq!(&wire[wire.len() - 4..], &[0, 0, 0xff, 0xff]);
    let mut stream = within(TcpStream::connect(handle.local_addr())).await.unwrap();
    stream.write_all(&wire).await.unwrap();
    // Read the reply through an inflater of our own, a message's worth.
    let mut reply = ZlibStream::new(stream);
    let mut head = [0u8; 4];
    within(reply.read_exact(&mut head)).await.unwrap();
    assert_eq!(head, [0x80, 0x01, 0x00, 0x02], "a strict binary reply, unframed");
}

/// Zlib inside TLS, as `--ssl --zlib` cross-test cells run it.
#[cfg(feature = "tls")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zlib_works_inside_tls() {
    use rcgen::{CertificateParams, KeyPair};
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string()]).unwrap().self_signed(&key).unwrap();
    let dir = std::env::temp_dir().join(format!("thrift-net-zlib-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (crt, pem) = (dir.join("server.crt"), dir.join("server.key"));
    std::fs::write(&crt, cert.pem()).unwrap();
    std::fs::write(&pem, key.serialize_pem()).unwrap();
    let server_tls = thrift_net::tls::server_config(&crt, &pem, None).unwrap();
    let client_tls = thrift_net::tls::client_config(&crt, None).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    let server = Server::builder().zlib(true).build();
    let handle =
        server.bind_tls("127.0.0.1:0", server_tls, hello_service::Server::new(Greeter::default())).await.unwrap();
    for (transport, protocol) in wires() {
        let connection = within(Client::connect_tls(
            handle.local_addr(),
            "localhost",
            client_tls.clone(),
            zlib_config(transport, protocol),
        ))
        .await
        .unwrap();
        let reply = hello_service::Client::new(connection).say_hello(HelloRequest { name: "ada".into() }).await;
        assert_eq!(reply.unwrap().message, "hello, ada", "{transport:?} {protocol:?}");
    }
}

/// The start of a buffered binary `sayHello` call whose argument struct then holds i32
/// field after i32 field, forever: every byte is valid Thrift, so only the message limit
/// stops it.
fn endless_call_head() -> Vec<u8> {
    let mut head = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 8];
    head.extend_from_slice(b"sayHello");
    head.extend_from_slice(&[0, 0, 0, 1]); // seqid
    head.extend_from_slice(&[0x0c, 0x00, 0x01]); // field 1: struct
    head
}

/// One i32 field (id 2, value 0): seven bytes, repeated without end.
const FIELD: [u8; 7] = [0x08, 0x00, 0x02, 0, 0, 0, 0];

/// A zlib stream of `endless_call_head` then `copies` × `chunk` bytes of fields, built
/// without deflating all of it: after a full flush deflate starts afresh, so one chunk's
/// compressed form repeats as often as wanted.
fn bomb(copies: usize) -> (Vec<u8>, u64) {
    let chunk: Vec<u8> = FIELD.iter().copied().cycle().take(FIELD.len() * 37_449).collect(); // ~256 KiB
    let mut z = Compress::new(Compression::best(), true);
    let deflate = |z: &mut Compress, data: &[u8]| {
        let mut out = Vec::with_capacity(data.len() + 1024);
        z.compress_vec(data, &mut out, FlushCompress::Full).unwrap();
        assert!(out.len() < out.capacity(), "all of it deflated");
        out
    };
    let mut wire = deflate(&mut z, &endless_call_head());
    let first = deflate(&mut z, &chunk);
    let again = deflate(&mut z, &chunk);
    assert_eq!(first, again, "after a full flush the same input deflates the same");
    for _ in 0..copies {
        wire.extend_from_slice(&again);
    }
    (wire, (endless_call_head().len() + copies * chunk.len()) as u64)
}

#[test]
fn the_bomb_inflates_to_what_it_claims() {
    let (wire, inflated) = bomb(8);
    let mut plain = Vec::new();
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
        ZlibStream::new(&wire[..]).read_to_end(&mut plain).await.unwrap();
    });
    assert_eq!(plain.len() as u64, inflated);
    assert!(plain.starts_with(&endless_call_head()));
    assert!(plain[endless_call_head().len()..].chunks(7).all(|f| f == FIELD));
}

/// Four GiB of valid fields in under eight MiB of zlib: the server inflates only as far as
/// its 1 MiB message limit, closes the connection, and stays within a few MiB doing it.
#[test]
fn a_zlib_bomb_is_refused_at_the_message_limit_with_bounded_memory() {
    let copies = (4u64 << 30).div_ceil((FIELD.len() * 37_449) as u64) as usize;
    let (wire, inflated) = bomb(copies);
    assert!(inflated >= 4 << 30, "{inflated}");
    assert!(wire.len() < 8 << 20, "{} compressed bytes", wire.len());
    let max_message_len = 1 << 20;

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ((sent, took, metrics), allocated) = measure(|| {
        runtime.block_on(async {
            let limits = Limits { max_message_len, ..ServerBuilder::default_limits() };
            let handle = start(Server::builder().zlib(true).limits(limits).build()).await;
            let stream = within(TcpStream::connect(handle.local_addr())).await.unwrap();
            let (mut rd, mut wr) = stream.into_split();
            let start = Instant::now();
            // Send until the server stops reading: it closes, and writes then fail.
            let sending = async {
                let mut sent = 0;
                for piece in wire.chunks(64 * 1024) {
                    if wr.write_all(piece).await.is_err() {
                        break;
                    }
                    sent += piece.len();
                }
                sent
            };
            let closed = async {
                let mut scratch = [0u8; 256];
                loop {
                    match rd.read(&mut scratch).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
            };
            let (sent, ()) = within(async { tokio::join!(sending, closed) }).await;
            (sent, start.elapsed(), handle.metrics())
        })
    });
    assert!(sent < wire.len(), "the server stopped reading after {sent} of {} bytes", wire.len());
    assert_eq!(metrics.requests, 0, "nothing was dispatched");
    // The 1 MiB message buffer (grown by doubling), zlib's state and the socket buffers:
    // far under the gigabytes the bomb inflates to.
    assert!(allocated.peak < 8 << 20, "peak {} bytes for {inflated} inflated", allocated.peak);
    assert!(took < Duration::from_secs(15), "{took:?}");
    println!(
        "bomb: {} compressed bytes for {inflated} inflated; {sent} written (into the socket buffers) before the server closed; peak {} KiB in {took:?}",
        wire.len(),
        allocated.peak >> 10
    );
}

/// The same bomb as a reply: the client inflates it only to its own message limit, fails
/// the call with the limit's error, and stays within a few MiB.
#[test]
fn a_zlib_bomb_reply_fails_the_call_at_the_message_limit_with_bounded_memory() {
    let (wire, inflated) = bomb((1u64 << 30).div_ceil((FIELD.len() * 37_449) as u64) as usize);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (outcome, allocated) = measure(|| {
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = async {
                let (stream, _) = listener.accept().await.unwrap();
                let (_rd, mut wr) = stream.into_split();
                for piece in wire.chunks(64 * 1024) {
                    if wr.write_all(piece).await.is_err() {
                        break;
                    }
                }
                // Hold the connection open: only the client's limit may end the call.
                tokio::time::sleep(Duration::from_secs(30)).await;
            };
            let client = async {
                let limits = Limits { max_message_len: 1 << 20, ..Limits::default() };
                let config = zlib_config(thrift_net::Transport::Buffered, ProtocolKind::Binary).with_limits(limits);
                let client = hello_service::Client::new(Client::connect(addr, config).await.unwrap());
                client.say_hello(HelloRequest { name: "ada".into() }).await
            };
            tokio::select! {
                () = server => panic!("the server gave up first"),
                reply = within(client) => reply,
            }
        })
    });
    let e = outcome.unwrap_err().to_string();
    assert!(e.contains("exceeds 1048576 (max_message_len)"), "the message limit's error: {e}");
    assert!(allocated.peak < 8 << 20, "peak {} bytes for {inflated} inflated", allocated.peak);
}
