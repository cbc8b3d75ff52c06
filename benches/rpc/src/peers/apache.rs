//! Apache Thrift's Rust crate (`thrift` 0.17, code from `thrift --gen rs`): its processor
//! on a thread per connection, and its synchronous client on a thread per caller, both
//! with TCP_NODELAY.
//!
//! The crate's own `TServer` cannot set TCP_NODELAY on the sockets it accepts, and its
//! framed writer sends the length and the body in two writes: with Nagle's algorithm on,
//! the body waits for the peer's delayed ACK, some 40-90 ms a call. So the accept loop is
//! ours (the same thread-per-connection shape as `TServer` with a worker per
//! connection); everything that reads, dispatches and writes is Apache's.

use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use thrift::protocol::{
    TBinaryInputProtocol, TBinaryInputProtocolFactory, TBinaryOutputProtocol, TBinaryOutputProtocolFactory,
};
use thrift::server::{TProcessor, TServer};
use thrift::transport::{
    TFramedReadTransport, TFramedReadTransportFactory, TFramedWriteTransport, TFramedWriteTransportFactory, TIoChannel,
    TTcpChannel,
};
use thrift_loadtest::hello::{now_millis, reply_message};
use thrift_loadtest::{histogram, Stats, MAX_LATENCY_US};

use crate::LoadArgs;

#[allow(missing_docs, clippy::all, unreachable_pub, dead_code, unused_imports, unused_extern_crates)]
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, deprecated)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/apache_hello.rs"));
}

use generated::{
    HelloRequest, HelloResponse, HelloServiceSyncClient, HelloServiceSyncHandler, HelloServiceSyncProcessor,
    THelloServiceSyncClient,
};

/// The handler every peer implements, in Apache's types.
struct Greeter;

impl HelloServiceSyncHandler for Greeter {
    fn handle_say_hello(&self, req: HelloRequest) -> thrift::Result<HelloResponse> {
        let name = req.name.unwrap_or_default();
        let message = reply_message(&name, req.message.as_deref().unwrap_or_default());
        Ok(HelloResponse::new(name, 19, message, now_millis()))
    }
}

/// Serves HelloService with Apache's processor, a thread per connection, until killed.
///
/// # Errors
/// When `addr` cannot be bound.
pub fn serve(addr: SocketAddr) -> io::Result<()> {
    let listener = TcpListener::bind(addr)?;
    let processor = Arc::new(HelloServiceSyncProcessor::new(Greeter));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        stream.set_nodelay(true)?;
        let processor = processor.clone();
        thread::spawn(move || {
            let Ok((r, w)) = TTcpChannel::with_stream(stream).split() else { return };
            let mut input = TBinaryInputProtocol::new(TFramedReadTransport::new(r), true);
            let mut output = TBinaryOutputProtocol::new(TFramedWriteTransport::new(w), true);
            // Ends at the client's EOF, as TServer's connection loop does.
            while processor.process(&mut input, &mut output).is_ok() {}
        });
    }
    Ok(())
}

/// Serves HelloService with the crate's own `TServer` as shipped (framed binary, a worker
/// per connection), which leaves Nagle's algorithm on: the comparison's control for the
/// TCP_NODELAY note.
///
/// # Errors
/// When `addr` cannot be bound.
pub fn serve_tserver(addr: SocketAddr) -> io::Result<()> {
    let mut server = TServer::new(
        TFramedReadTransportFactory::new(),
        TBinaryInputProtocolFactory::new(),
        TFramedWriteTransportFactory::new(),
        TBinaryOutputProtocolFactory::new(),
        HelloServiceSyncProcessor::new(Greeter),
        // A worker for each of 256 callers, and room for the readiness probes.
        512,
    );
    server.listen(addr).map_err(|e| io::Error::other(e.to_string()))
}

type Client = HelloServiceSyncClient<
    TBinaryInputProtocol<TFramedReadTransport<thrift::transport::ReadHalf<TTcpChannel>>>,
    TBinaryOutputProtocol<TFramedWriteTransport<thrift::transport::WriteHalf<TTcpChannel>>>,
>;

fn connect(addr: SocketAddr, timeout: Duration) -> thrift::Result<Client> {
    let stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_nodelay(true)?;
    // A server that stops answering fails the call instead of hanging the run.
    stream.set_read_timeout(Some(timeout))?;
    let (r, w) = TTcpChannel::with_stream(stream).split()?;
    Ok(HelloServiceSyncClient::new(
        TBinaryInputProtocol::new(TFramedReadTransport::new(r), true),
        TBinaryOutputProtocol::new(TFramedWriteTransport::new(w), true),
    ))
}

/// What one caller thread measured.
struct ThreadOutcome {
    latencies: hdrhistogram::Histogram<u64>,
    errors: BTreeMap<String, u64>,
}

/// Loads `addr` with Apache's synchronous client: one thread and one connection per caller,
/// one call at a time on each, measured as `thrift-loadtest` measures its strategies.
pub fn load(addr: SocketAddr, args: &LoadArgs) -> Stats {
    let message = args.payload().message();
    let expected_len = reply_message("Jonny", &message).len();
    let timeout = args.call_timeout();
    let mut setup_errors = BTreeMap::new();
    let mut clients = Vec::new();
    for _ in 0..args.concurrency {
        match connect(addr, timeout) {
            Ok(client) => clients.push(client),
            Err(e) => *setup_errors.entry(format!("setup: {e}")).or_insert(0) += 1,
        }
    }
    let started = Instant::now();
    let (measure_from, end) = (started + args.warmup(), started + args.duration());
    let threads: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            let message = message.clone();
            thread::spawn(move || {
                let mut out = ThreadOutcome { latencies: histogram(), errors: BTreeMap::new() };
                loop {
                    let sent = Instant::now();
                    if sent >= end {
                        break;
                    }
                    let request = HelloRequest::new("Jonny".to_string(), message.clone());
                    let outcome = client.say_hello(request);
                    let done = Instant::now();
                    if done > end {
                        break;
                    }
                    if done < measure_from {
                        continue;
                    }
                    match outcome {
                        Ok(reply)
                            if reply.age == Some(19)
                                && reply.message.as_ref().map(String::len) == Some(expected_len) =>
                        {
                            let us = (done - sent).as_micros().min(u128::from(MAX_LATENCY_US)) as u64;
                            out.latencies.saturating_record(us.max(1));
                        }
                        Ok(_) => *out.errors.entry("wrong reply".into()).or_insert(0) += 1,
                        Err(e) => {
                            *out.errors.entry(label(&e)).or_insert(0) += 1;
                            // The connection is in an unknown state after a failure.
                            match connect(addr, timeout) {
                                Ok(fresh) => client = fresh,
                                Err(_) => thread::sleep(Duration::from_millis(1)),
                            }
                        }
                    }
                }
                out
            })
        })
        .collect();
    let mut latencies = histogram();
    let mut errors = setup_errors;
    for thread in threads {
        match thread.join() {
            Ok(out) => {
                let _ = latencies.add(&out.latencies);
                for (kind, n) in out.errors {
                    *errors.entry(kind).or_insert(0) += n;
                }
            }
            Err(_) => *errors.entry("caller thread panicked".into()).or_insert(0) += 1,
        }
    }
    Stats::new(&latencies, errors, (end - measure_from).as_secs_f64())
}

fn label(e: &thrift::Error) -> String {
    match e {
        thrift::Error::Transport(t) => format!("transport: {:?}", t.kind),
        thrift::Error::Protocol(p) => format!("protocol: {:?}", p.kind),
        thrift::Error::Application(a) => format!("application: {:?}", a.kind),
        thrift::Error::User(_) => "user".into(),
    }
}
