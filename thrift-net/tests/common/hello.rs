//! HelloService (the shape of the seed document's example) and a Calculator, with helpers to
//! run them on 127.0.0.1 and to speak to them by hand, every wait bounded in time.
//!
//! Included by the server, client and rpc tests with `#[path = "common/hello.rs"] mod hello;`.
#![allow(dead_code)] // each test file uses a different part

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::{Binary, Compact, Encode, Limits, MessageHeader, MessageType, ThriftStruct};
use thrift_net::codec::{BufferedCodec, FramedCodec, Message};
use thrift_net::{service, Client, ClientConfig, ProtocolKind, Reply, Server, ServerHandle, Transport, TransportError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::codec::Decoder;

/// Every wait in these tests ends within this, or the test fails: nothing hangs.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// Awaits `f`, failing the test if it takes longer than [`DEADLINE`].
pub async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(DEADLINE, f).await.expect("hung past the test deadline")
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct HelloRequest {
    #[thrift(id = 1)]
    pub name: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct HelloResponse {
    #[thrift(id = 1)]
    pub message: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception)]
pub struct HelloError {
    #[thrift(id = 1)]
    pub reason: String,
}

/// Greets people.
#[service(name = "HelloService")]
pub trait HelloService {
    /// `hello, NAME`; the empty name is refused with the declared exception.
    #[thrift(name = "sayHello")]
    async fn say_hello(&self, #[thrift(id = 1)] req: HelloRequest) -> Result<HelloResponse, HelloError>;

    /// Sleeps `ms` milliseconds, then greets `name`: lets replies finish out of order.
    #[thrift(name = "slowHello")]
    async fn slow_hello(&self, #[thrift(id = 1)] name: String, #[thrift(id = 2)] ms: i32) -> String;

    /// Always panics.
    #[thrift(name = "explode")]
    async fn explode(&self) -> i32;

    /// Records a line; nothing comes back.
    #[thrift(name = "log", oneway)]
    async fn log(&self, #[thrift(id = 1)] line: String);

    /// The lines recorded so far.
    #[thrift(name = "logged")]
    async fn logged(&self) -> Vec<String>;
}

/// The handler, counting how many calls run at once; clones share their state, so a test
/// keeps one to look at what the server's copy saw.
#[derive(Clone, Default)]
pub struct Greeter(pub Arc<GreeterState>);

#[derive(Default)]
pub struct GreeterState {
    pub log: Mutex<Vec<String>>,
    pub running: AtomicUsize,
    pub most_running: AtomicUsize,
    pub finished: AtomicUsize,
}

impl Greeter {
    fn enter(&self) -> Running<'_> {
        let now = self.0.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.0.most_running.fetch_max(now, Ordering::SeqCst);
        Running(&self.0)
    }

    /// The most calls that ran at once.
    pub fn most_running(&self) -> usize {
        self.0.most_running.load(Ordering::SeqCst)
    }

    /// Calls that ran to completion.
    pub fn finished(&self) -> usize {
        self.0.finished.load(Ordering::SeqCst)
    }
}

struct Running<'a>(&'a GreeterState);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
    }
}

impl HelloService for Greeter {
    async fn say_hello(&self, req: HelloRequest) -> Result<HelloResponse, HelloError> {
        let _running = self.enter();
        self.0.finished.fetch_add(1, Ordering::SeqCst);
        if req.name.is_empty() {
            return Err(HelloError { reason: "no name".into() });
        }
        Ok(HelloResponse { message: format!("hello, {}", req.name) })
    }

    async fn slow_hello(&self, name: String, ms: i32) -> String {
        let _running = self.enter();
        tokio::time::sleep(Duration::from_millis(ms.max(0) as u64)).await;
        self.0.finished.fetch_add(1, Ordering::SeqCst);
        format!("hello, {name}")
    }

    async fn explode(&self) -> i32 {
        panic!("the explode handler always panics")
    }

    async fn log(&self, line: String) {
        self.0.log.lock().unwrap().push(line);
    }

    async fn logged(&self) -> Vec<String> {
        self.0.log.lock().unwrap().clone()
    }
}

/// Adds.
#[service(name = "Calculator")]
pub trait Calculator {
    #[thrift(name = "add")]
    async fn add(&self, #[thrift(id = 1)] a: i32, #[thrift(id = 2)] b: i32) -> i32;
}

pub struct Adder;

impl Calculator for Adder {
    async fn add(&self, a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }
}

/// A HelloService server on 127.0.0.1 with `server`'s settings.
pub async fn start(server: Server) -> ServerHandle {
    start_greeter(server).await.0
}

/// A HelloService server on 127.0.0.1, and its handler's shared state.
pub async fn start_greeter(server: Server) -> (ServerHandle, Greeter) {
    let greeter = Greeter::default();
    let handle = server.bind("127.0.0.1:0", hello_service::Server::new(greeter.clone())).await.expect("bind 127.0.0.1");
    (handle, greeter)
}

/// The four transport × protocol combinations a client can be configured with.
pub fn wires() -> [(Transport, ProtocolKind); 4] {
    [
        (Transport::Framed, ProtocolKind::Binary),
        (Transport::Framed, ProtocolKind::Compact),
        (Transport::Buffered, ProtocolKind::Binary),
        (Transport::Buffered, ProtocolKind::Compact),
    ]
}

/// A typed HelloService client over one pipelined connection to `handle`.
pub async fn hello_client(handle: &ServerHandle, config: ClientConfig) -> hello_service::Client<Client> {
    hello_service::Client::new(within(Client::connect(handle.local_addr(), config)).await.expect("connect"))
}

/// A whole message as a hand-written client sends it: envelope and body in `protocol`
/// (binary strict), after a frame header when `framed`.
pub fn encode_call<A: Encode + ?Sized>(
    protocol: ProtocolKind,
    framed: bool,
    name: &str,
    kind: MessageType,
    seqid: i32,
    args: &A,
) -> Vec<u8> {
    let mut body = Vec::new();
    let message = Message::new(MessageHeader { name, kind, seqid }, args);
    match protocol {
        ProtocolKind::Compact => message.encode::<Compact, _>(&mut body),
        _ => message.encode::<Binary, _>(&mut body),
    }
    frame(framed, body)
}

/// The old non-strict binary envelope (name first), as old Apache clients write it.
pub fn encode_non_strict_call<A: Encode>(framed: bool, name: &str, seqid: i32, args: &A) -> Vec<u8> {
    let mut body = Vec::new();
    body.put_i32(name.len() as i32);
    body.put_slice(name.as_bytes());
    body.put_u8(MessageType::Call as u8);
    body.put_i32(seqid);
    args.encode::<Binary, _>(&mut body);
    frame(framed, body)
}

fn frame(framed: bool, body: Vec<u8>) -> Vec<u8> {
    if !framed {
        return body;
    }
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&body);
    out
}

/// A hand-driven connection: writes bytes, reads whole messages with the matching codec,
/// as an Apache client does one call at a time.
pub struct RawConnection {
    pub stream: TcpStream,
    buf: BytesMut,
    codec: Box<dyn Decoder<Item = Bytes, Error = TransportError> + Send>,
    protocol: ProtocolKind,
}

impl RawConnection {
    pub async fn connect(handle: &ServerHandle, protocol: ProtocolKind, framed: bool) -> RawConnection {
        let stream = within(TcpStream::connect(handle.local_addr())).await.expect("connect");
        stream.set_nodelay(true).unwrap();
        let limits = Limits::default();
        let codec: Box<dyn Decoder<Item = Bytes, Error = TransportError> + Send> = match (framed, protocol) {
            (true, _) => Box::new(FramedCodec::<Binary>::new()),
            (false, ProtocolKind::Compact) => Box::new(BufferedCodec::<Compact>::with_limits(limits)),
            (false, _) => Box::new(BufferedCodec::<Binary>::with_limits(limits)),
        };
        RawConnection { stream, buf: BytesMut::new(), codec, protocol }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        within(self.stream.write_all(bytes)).await.expect("write");
    }

    /// The next whole message, or `None` when the server closed the connection.
    pub async fn read_message(&mut self) -> Option<Bytes> {
        loop {
            let decoded = self.codec.decode(&mut self.buf);
            if let Some(message) = decoded.expect("the server's replies are well formed") {
                return Some(message);
            }
            let n = within(self.stream.read_buf(&mut self.buf)).await.unwrap_or(0);
            if n == 0 {
                return None;
            }
        }
    }

    /// The next reply, parsed.
    pub async fn read_reply(&mut self) -> Reply {
        let message = self.read_message().await.expect("a reply before the connection closed");
        Reply::parse(message, self.protocol, Limits::default()).expect("a readable envelope")
    }

    /// Whether the server closes the connection (EOF or reset) within `limit`, reading and
    /// discarding anything it sends first.
    pub async fn closed_within(&mut self, limit: Duration) -> bool {
        let mut scratch = [0u8; 1024];
        let read_to_end = async {
            loop {
                match self.stream.read(&mut scratch).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        };
        tokio::time::timeout(limit, read_to_end).await.is_ok()
    }
}

/// Polls `check` every few milliseconds until it holds, failing the test past [`DEADLINE`].
pub async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let waited = tokio::time::timeout(DEADLINE, async {
        while !check() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    waited.await.unwrap_or_else(|_| panic!("never became true: {what}"));
}
