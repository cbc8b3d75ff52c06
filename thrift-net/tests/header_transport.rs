//! THeader and TTHeader end to end: the server detects both, answers in kind, shows the
//! request's headers; the client speaks both and sends its handle's headers. Hand-written
//! frames check the bytes the server answers with.

#[path = "common/hello.rs"]
mod hello;

use std::convert::Infallible;
use std::time::Duration;

use bytes::{BufMut, Bytes};
use hello::*;
use thrift_core::{MessageType, ThriftStruct};
use thrift_net::codec::ttheader_keys;
use thrift_net::{Client, ClientConfig, Headers, ProtocolKind, Request, Response, Server, Transport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const HEADER_WIRES: [(Transport, ProtocolKind); 6] = [
    (Transport::FramedHeader, ProtocolKind::Binary),
    (Transport::Header, ProtocolKind::Binary),
    (Transport::Header, ProtocolKind::Compact),
    // THeader's protocol id 1, as fbthrift writes it.
    (Transport::Header, ProtocolKind::Json),
    (Transport::TTHeader, ProtocolKind::Binary),
    (Transport::TTHeader, ProtocolKind::Compact),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_shape_works_over_both_header_transports() {
    let (handle, _greeter) = start_greeter(Server::new()).await;
    for (transport, protocol) in HEADER_WIRES {
        let wire = format!("{transport:?} {protocol:?}");
        let client = hello_client(&handle, ClientConfig::new(transport, protocol)).await;
        let reply = within(client.say_hello(HelloRequest { name: "ada".into() })).await.unwrap();
        assert_eq!(reply.message, "hello, ada", "{wire}");
        // The declared exception.
        let err = within(client.say_hello(HelloRequest::default())).await.unwrap_err();
        assert!(err.to_string().contains("no name"), "{wire}: {err}");
        // Replies out of order on one connection.
        let (slow, fast) = tokio::join!(client.slow_hello("slow".into(), 200), client.slow_hello("fast".into(), 0));
        assert_eq!((slow.unwrap(), fast.unwrap()), ("hello, slow".into(), "hello, fast".into()), "{wire}");
        // Oneway, then a call that sees it.
        within(client.log(wire.clone())).await.unwrap();
        // Handled concurrently: the line shows once the oneway's handler ran.
        let seen = within(async {
            loop {
                if client.logged().await.unwrap().contains(&wire) {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        assert!(seen.await, "{wire}");
    }
}

/// Answers every call with what the request showed: its transport and its headers.
struct ShowHeaders;

#[derive(ThriftStruct)]
struct Shown {
    #[thrift(id = 0)]
    success: Option<Vec<String>>,
}

impl ShowHeaders {
    fn answer(request: Request) -> Response {
        let mut shown = vec![format!("{:?}", request.transport())];
        for (k, v) in request.headers().iter() {
            shown.push(format!("{}={}", String::from_utf8_lossy(k), String::from_utf8_lossy(v)));
        }
        for (k, v) in request.headers().iter_int() {
            shown.push(format!("#{k}={}", String::from_utf8_lossy(v)));
        }
        request.reply(&Shown { success: Some(shown) })
    }
}

#[service(name = "Show")]
trait Show {
    async fn show(&self) -> Vec<String>;
}

use thrift_net::service;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_see_the_headers_each_handle_sends() {
    let handle = Server::new()
        .bind("127.0.0.1:0", tower::service_fn(|request| async { Ok::<_, Infallible>(ShowHeaders::answer(request)) }))
        .await
        .unwrap();
    for (transport, protocol) in HEADER_WIRES {
        // Without a call timeout, whose header would arrive too (see `server_tower.rs`).
        let config = ClientConfig::new(transport, protocol).with_call_timeout(None);
        let client = within(Client::connect(handle.local_addr(), config)).await.unwrap();
        // No headers: none arrive.
        let shown = within(show::Client::new(client.clone()).show()).await.unwrap();
        assert_eq!(shown, vec![format!("{transport:?}")]);
        let mut headers = Headers::new();
        headers.insert("trace-id", "4bf92f3577b34da6");
        headers.insert("caller", "billing");
        let traced = client.with_headers(headers);
        let mut more = Headers::new();
        more.insert("caller", "ledger");
        if transport == Transport::TTHeader {
            more.insert_int(ttheader_keys::RPC_TIMEOUT, "250");
        }
        let both = traced.with_headers(more);
        let shown = within(show::Client::new(both.clone()).show()).await.unwrap();
        let mut expected = vec![format!("{transport:?}"), "trace-id=4bf92f3577b34da6".into(), "caller=ledger".into()];
        if transport == Transport::TTHeader {
            expected.push("#12=250".into());
        }
        assert_eq!(shown, expected, "{transport:?} {protocol:?}");
        // The first handle's headers are its own: the second's did not change them.
        assert_eq!(traced.headers().get("caller"), Some("billing"));
        // Several concurrent calls, each with its handle's headers.
        let (with, without) = (show::Client::new(traced.clone()), show::Client::new(client.clone()));
        let (a, b) = tokio::join!(with.show(), without.show());
        assert!(a.unwrap().contains(&"caller=billing".to_string()));
        assert_eq!(b.unwrap().len(), 1);
    }
    // A framed client has nowhere to put headers: its handler sees none.
    let client = within(Client::connect(handle.local_addr(), ClientConfig::default())).await.unwrap();
    let mut headers = Headers::new();
    headers.insert("k", "v");
    let shown = within(show::Client::new(client.with_headers(headers)).show()).await.unwrap();
    assert_eq!(shown, vec!["Framed".to_string()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handlers_reply_headers_reach_the_client_and_a_typed_client_reads_them_through_a_layer() {
    // Answers with the caller's name in a reply header, beside the result.
    let answer = |request: Request| async move {
        let caller = request.headers().get("caller").unwrap_or("nobody").to_owned();
        request.set_reply_header("served-for", caller);
        request.set_reply_header("biz-status", "1");
        request.set_reply_header("biz-status", "0"); // the last value of a key wins
        Ok::<_, Infallible>(request.reply(&Shown { success: Some(vec![]) }))
    };
    let handle = Server::new().bind("127.0.0.1:0", tower::service_fn(answer)).await.unwrap();
    for (transport, protocol) in HEADER_WIRES {
        let config = ClientConfig::new(transport, protocol).with_call_timeout(None);
        let client = within(Client::connect(handle.local_addr(), config)).await.unwrap();
        let mut sent = Headers::new();
        sent.insert("caller", "billing");
        let headers = reply_headers_of(client.with_headers(sent)).await;
        assert_eq!(headers.get("served-for"), Some("billing"), "{transport:?} {protocol:?}");
        assert_eq!(headers.get("biz-status"), Some("0"), "{transport:?} {protocol:?}");
        assert_eq!(headers.iter().count(), 2, "only the handler's headers, not the request's");
    }
    // A framed reply has nowhere to carry them.
    let client = within(Client::connect(handle.local_addr(), ClientConfig::default())).await.unwrap();
    assert!(reply_headers_of(client).await.is_empty());
}

/// The headers of the reply to one `show` call through `client`, as a layer on the typed
/// client's channel sees them.
async fn reply_headers_of(client: Client) -> Headers {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = seen.clone();
    let stack = tower::ServiceBuilder::new()
        .map_response(move |reply: Option<thrift_net::Reply>| {
            keep.lock().unwrap().push(reply.as_ref().map(|r| r.headers().clone()).unwrap_or_default());
            reply
        })
        .service(client);
    within(show::Client::new(stack).show()).await.unwrap();
    let headers = seen.lock().unwrap().pop();
    headers.expect("the layer saw the reply")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_asking_for_theaders_zlib_transform_sends_compressed_frames_and_reads_compressed_replies() {
    // A proxy between client and server keeps the first frame the client sent.
    let handle = start(Server::new()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy = listener.local_addr().unwrap();
    let server = handle.local_addr();
    let first_frame = tokio::spawn(async move {
        let (mut from_client, _) = listener.accept().await.unwrap();
        let mut to_server = TcpStream::connect(server).await.unwrap();
        let frame = read_frame(&mut from_client).await;
        to_server.write_all(&frame).await.unwrap();
        let (mut a, mut b) = (from_client, to_server);
        tokio::spawn(async move { tokio::io::copy_bidirectional(&mut a, &mut b).await });
        frame
    });
    let config = ClientConfig::new(Transport::Header, ProtocolKind::Compact).with_header_zlib(true);
    let client = hello_service::Client::new(within(Client::connect(proxy, config)).await.unwrap());
    let name = "z".repeat(2000);
    let reply = within(client.say_hello(HelloRequest { name: name.clone() })).await.unwrap();
    assert_eq!(reply.message, format!("hello, {name}"), "the compressed reply read back");
    let frame = within(first_frame).await.unwrap();
    assert_eq!(frame[14..17], [2, 1, 1], "compact, one transform: zlib");
    assert!(frame.len() < 200, "2,000 repeated bytes compress: the frame is {} bytes", frame.len());

    // TTHeader has no transforms: the call fails to encode, saying so, and is not sent.
    let config = ClientConfig::new(Transport::TTHeader, ProtocolKind::Binary).with_header_zlib(true);
    let client = hello_client(&handle, config).await;
    let e = within(client.say_hello(HelloRequest { name: "t".into() })).await.unwrap_err();
    assert!(e.to_string().contains("no zlib transform"), "{e}");
    assert_eq!(handle.metrics().requests, 1, "only the THeader call reached the server");
}

/// A THeader or TTHeader request frame written by hand.
fn header_frame(magic: u16, flags: u16, seqid: i32, section: &[u8], payload: &[u8]) -> Vec<u8> {
    assert_eq!(section.len() % 4, 0);
    let mut out = Vec::new();
    out.put_u32((10 + section.len() + payload.len()) as u32);
    out.put_u16(magic);
    out.put_u16(flags);
    out.put_i32(seqid);
    out.put_u16((section.len() / 4) as u16);
    out.put_slice(section);
    out.put_slice(payload);
    out
}

/// Reads one whole frame (length prefix and all) from `stream`.
async fn read_frame(stream: &mut TcpStream) -> Vec<u8> {
    let mut len = [0u8; 4];
    within(stream.read_exact(&mut len)).await.unwrap();
    let mut rest = vec![0u8; u32::from_be_bytes(len) as usize];
    within(stream.read_exact(&mut rest)).await.unwrap();
    [&len[..], &rest].concat()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reply_frame_echoes_the_requests_flags_seqid_and_protocol() {
    let handle = start(Server::new()).await;
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: "bo".into() } };
    for (magic, protocol_id, protocol) in
        [(0x0fffu16, 0u8, ProtocolKind::Binary), (0x0fff, 2, ProtocolKind::Compact), (0x1000, 0, ProtocolKind::Binary)]
    {
        let call = encode_call(protocol, false, "sayHello", MessageType::Call, 41, &args);
        // THeader: protocol id, no transforms, key/value block {a: b}, padding. TTHeader: the
        // same header in its encoding.
        let section: &[u8] = if magic == 0x0fff {
            &[protocol_id, 0, 1, 1, 1, b'a', 1, b'b']
        } else {
            &[protocol_id, 0, 1, 0, 1, 0, 1, b'a', 0, 1, b'b', 0]
        };
        let mut stream = within(TcpStream::connect(handle.local_addr())).await.unwrap();
        within(stream.write_all(&header_frame(magic, 0x0001, 41, section, &call))).await.unwrap();
        let reply = read_frame(&mut stream).await;
        assert_eq!(reply[4..6], magic.to_be_bytes(), "magic");
        assert_eq!(reply[6..8], [0, 1], "flags echoed");
        assert_eq!(reply[8..12], 41i32.to_be_bytes(), "seqid echoed");
        let words = u16::from_be_bytes([reply[12], reply[13]]) as usize;
        assert_eq!(reply[14], protocol_id, "protocol echoed");
        let message = Bytes::copy_from_slice(&reply[14 + words * 4..]);
        let parsed = thrift_net::Reply::parse(message, protocol, Default::default()).unwrap();
        assert_eq!(parsed.seqid(), 41);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zlib_request_is_answered_compressed() {
    use std::io::{Read, Write};
    let handle = start(Server::new()).await;
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: "zed".into() } };
    let call = encode_call(ProtocolKind::Compact, false, "sayHello", MessageType::Call, 9, &args);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&call).unwrap();
    let compressed = z.finish().unwrap();
    let mut stream = within(TcpStream::connect(handle.local_addr())).await.unwrap();
    // Protocol compact, one transform: zlib (1); padding.
    within(stream.write_all(&header_frame(0x0fff, 0, 9, &[2, 1, 1, 0], &compressed))).await.unwrap();
    let reply = read_frame(&mut stream).await;
    assert_eq!(reply[14..17], [2, 1, 1], "compact, zlib echoed");
    let mut plain = Vec::new();
    flate2::read::ZlibDecoder::new(&reply[18..]).read_to_end(&mut plain).unwrap();
    let parsed = thrift_net::Reply::parse(Bytes::from(plain), ProtocolKind::Compact, Default::default()).unwrap();
    assert_eq!(parsed.seqid(), 9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_header_closes_only_its_connection() {
    let handle = start(Server::new()).await;
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: "x".into() } };
    let call = encode_call(ProtocolKind::Binary, false, "sayHello", MessageType::Call, 1, &args);
    // A good first frame, then one naming protocol id 9.
    let mut stream = within(TcpStream::connect(handle.local_addr())).await.unwrap();
    within(stream.write_all(&header_frame(0x0fff, 0, 1, &[0, 0, 0, 0], &call))).await.unwrap();
    let _ = read_frame(&mut stream).await;
    within(stream.write_all(&header_frame(0x0fff, 0, 2, &[9, 0, 0, 0], &call))).await.unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut rest)).await;
    assert!(matches!(closed, Ok(Ok(0)) | Ok(Err(_))), "closed without an answer: {closed:?} {rest:02x?}");
    assert!(handle.metrics().errors >= 1);
    // The server goes on serving.
    let client = hello_client(&handle, ClientConfig::new(Transport::Header, ProtocolKind::Binary)).await;
    assert_eq!(within(client.say_hello(HelloRequest { name: "y".into() })).await.unwrap().message, "hello, y");
}
