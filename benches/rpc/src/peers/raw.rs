//! The ceiling: a server that answers every framed call with a reply encoded once at start,
//! its sequence id patched in, without decoding anything; and two clients that send a
//! request encoded once and read back frames: a connection per caller, one call at a time
//! on each, or one connection with every call in flight. What is left is the cost of the
//! sockets and the runtime, which no Thrift implementation can go below.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use bytes::{Buf, BytesMut};
use thrift_core::{Binary, MessageHeader, MessageType, ThriftStruct};
use thrift_loadtest::hello::{answer, HelloRequest, HelloResponse};
use thrift_loadtest::{drive, histogram, Failure, Load, Payload, Stats, Timing, MAX_LATENCY_US};
use thrift_net::codec::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::LoadArgs;

/// `sayHello`'s arguments.
#[derive(ThriftStruct)]
pub(crate) struct SayHelloArgs {
    #[thrift(id = 1)]
    pub(crate) req: HelloRequest,
}

/// `sayHello`'s result: the return value is field 0.
#[derive(ThriftStruct)]
pub(crate) struct SayHelloResult {
    #[thrift(id = 0)]
    pub(crate) success: HelloResponse,
}

/// Appends `body` as a framed strict-binary message.
pub(crate) fn put_framed<T: thrift_core::Encode>(header: MessageHeader<'_>, body: &T, out: &mut Vec<u8>) {
    let message = Message::new(header, body);
    out.extend_from_slice(&(message.encoded_len::<Binary>() as u32).to_be_bytes());
    message.encode::<Binary, _>(out);
}

/// A framed binary message, with the offset of its sequence id.
fn framed<T: thrift_core::Encode>(kind: MessageType, body: &T) -> (Vec<u8>, usize) {
    let name = "sayHello";
    let mut out = Vec::new();
    put_framed(MessageHeader { name, kind, seqid: 0 }, body, &mut out);
    // Frame length, version and type, name length, name: then the sequence id.
    (out, 4 + 4 + 4 + name.len())
}

pub(crate) fn request(payload: Payload) -> HelloRequest {
    HelloRequest { name: "Jonny".into(), message: payload.message().into() }
}

/// The sequence id of a framed strict-binary call, if the frame is long enough to hold it.
fn seqid_of(frame: &[u8]) -> Option<[u8; 4]> {
    let name_len = u32::from_be_bytes(frame.get(4..8)?.try_into().ok()?) as usize;
    frame.get(8 + name_len..12 + name_len)?.try_into().ok()
}

/// Serves pre-encoded replies until the process is killed. Every call gets the reply to
/// `payload`'s request, whatever it asked.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(addr: SocketAddr, payload: Payload) -> io::Result<()> {
    let (reply, seqid_at) = framed(MessageType::Reply, &SayHelloResult { success: answer(request(payload)) });
    let reply: Arc<[u8]> = reply.into();
    let listener = TcpListener::bind(addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let reply = reply.clone();
        tokio::spawn(async move {
            let _ = answer_connection(stream, &reply, seqid_at).await;
        });
    }
}

/// Answers every whole frame that has arrived with one write, so a pipelining client is
/// answered in batches.
async fn answer_connection(mut stream: TcpStream, reply: &[u8], seqid_at: usize) -> io::Result<()> {
    let mut input = BytesMut::with_capacity(64 * 1024);
    let mut output = Vec::with_capacity(64 * 1024);
    loop {
        if stream.read_buf(&mut input).await? == 0 {
            return Ok(());
        }
        while input.len() >= 4 {
            let len = u32::from_be_bytes([input[0], input[1], input[2], input[3]]) as usize;
            if input.len() < 4 + len {
                break;
            }
            let seqid = seqid_of(&input[4..4 + len])
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "not a strict binary call"))?;
            output.extend_from_slice(reply);
            let at = output.len() - reply.len() + seqid_at;
            output[at..at + 4].copy_from_slice(&seqid);
            input.advance(4 + len);
        }
        if !output.is_empty() {
            stream.write_all(&output).await?;
            output.clear();
        }
    }
}

struct RawLoad {
    addr: SocketAddr,
    request: Vec<u8>,
    seqid_at: usize,
    reply_len: usize,
}

/// A caller's own connection and buffers.
struct RawSession {
    stream: TcpStream,
    request: Vec<u8>,
    input: BytesMut,
    seqid: u32,
}

impl Load for RawLoad {
    type Session = RawSession;

    async fn session(&self) -> Result<RawSession, Failure> {
        let stream =
            TcpStream::connect(self.addr).await.map_err(|e| Failure::new(format!("connect: {:?}", e.kind())))?;
        stream.set_nodelay(true).map_err(|e| Failure::new(format!("nodelay: {e}")))?;
        Ok(RawSession { stream, request: self.request.clone(), input: BytesMut::with_capacity(8192), seqid: 0 })
    }

    async fn call(&self, s: &mut RawSession) -> Result<(), Failure> {
        s.seqid = s.seqid.wrapping_add(1);
        s.request[self.seqid_at..self.seqid_at + 4].copy_from_slice(&s.seqid.to_be_bytes());
        s.stream.write_all(&s.request).await.map_err(|e| Failure::new(format!("io: {:?}", e.kind())))?;
        while s.input.len() < self.reply_len {
            match s.stream.read_buf(&mut s.input).await {
                Ok(0) => return Err(Failure::new("io: closed")),
                Ok(_) => {}
                Err(e) => return Err(Failure::new(format!("io: {:?}", e.kind()))),
            }
        }
        let frame = s.input.split_to(self.reply_len);
        let len = u32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize;
        if len + 4 != self.reply_len || seqid_of(&frame[4..]) != Some(s.seqid.to_be_bytes()) {
            return Err(Failure::new("wrong reply"));
        }
        Ok(())
    }
}

/// Loads `addr` with the raw client: one connection per caller, one call at a time each.
pub async fn load(addr: SocketAddr, args: &LoadArgs) -> Stats {
    let payload = args.payload();
    let (reply, _) = framed(MessageType::Reply, &SayHelloResult { success: answer(request(payload)) });
    let (call, seqid_at) = framed(MessageType::Call, &SayHelloArgs { req: request(payload) });
    let load = Arc::new(RawLoad { addr, request: call, seqid_at, reply_len: reply.len() });
    let timing = Timing { duration: args.duration(), warmup: args.warmup(), call_bound: args.call_timeout() };
    drive(load, args.concurrency, timing, Default::default()).await.0
}

/// Loads `addr` with the raw pipelined client: one connection, `concurrency` calls in flight
/// on it, each batch of replies read answered by one write of as many new calls. The floor
/// under a pipelining client such as ours, as [`load`] is under one call per connection.
pub async fn load_pipelined(addr: SocketAddr, args: &LoadArgs) -> Stats {
    let payload = args.payload();
    let (reply, _) = framed(MessageType::Reply, &SayHelloResult { success: answer(request(payload)) });
    let (call, seqid_at) = framed(MessageType::Call, &SayHelloArgs { req: request(payload) });
    let mut errors = std::collections::BTreeMap::new();
    let mut latencies = histogram();
    let started = Instant::now();
    let (measure_from, end) = (started + args.warmup(), started + args.duration());
    let outcome = tokio::time::timeout_at(
        (end + args.call_timeout()).into(),
        pipeline(addr, &call, seqid_at, reply.len(), args.concurrency, (measure_from, end), &mut latencies),
    )
    .await;
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(kind)) => *errors.entry(kind).or_insert(0) += 1,
        Err(_) => *errors.entry("stuck past the call timeout".into()).or_insert(0) += 1,
    }
    Stats::new(&latencies, errors, (end - measure_from).as_secs_f64())
}

/// The pipelined client's loop; the raw server answers in order, so the calls in flight
/// are a queue of send times and sequence ids.
async fn pipeline(
    addr: SocketAddr,
    call: &[u8],
    seqid_at: usize,
    reply_len: usize,
    depth: usize,
    (measure_from, end): (Instant, Instant),
    latencies: &mut hdrhistogram::Histogram<u64>,
) -> Result<(), String> {
    let mut stream = TcpStream::connect(addr).await.map_err(|e| format!("connect: {:?}", e.kind()))?;
    stream.set_nodelay(true).map_err(|e| format!("nodelay: {e}"))?;
    let mut in_flight: VecDeque<(u32, Instant)> = VecDeque::with_capacity(depth);
    let mut next_seqid = 0u32;
    let mut output = Vec::with_capacity(depth * call.len());
    let mut input = BytesMut::with_capacity(64 * 1024);
    let mut to_send = depth;
    loop {
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        for _ in 0..to_send {
            next_seqid = next_seqid.wrapping_add(1);
            output.extend_from_slice(call);
            let at = output.len() - call.len() + seqid_at;
            output[at..at + 4].copy_from_slice(&next_seqid.to_be_bytes());
            in_flight.push_back((next_seqid, now));
        }
        stream.write_all(&output).await.map_err(|e| format!("io: {:?}", e.kind()))?;
        output.clear();
        to_send = 0;
        while to_send == 0 {
            if stream.read_buf(&mut input).await.map_err(|e| format!("io: {:?}", e.kind()))? == 0 {
                return Err("io: closed".into());
            }
            let done = Instant::now();
            while input.len() >= reply_len {
                let frame = input.split_to(reply_len);
                let (seqid, sent) = in_flight.pop_front().ok_or("a reply to no call")?;
                if seqid_of(&frame[4..]) != Some(seqid.to_be_bytes()) {
                    return Err("wrong reply".into());
                }
                if done >= measure_from && done <= end {
                    let us = (done - sent).as_micros().min(u128::from(MAX_LATENCY_US)) as u64;
                    latencies.saturating_record(us.max(1));
                }
                to_send += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_id_is_found_where_it_is_patched() {
        let (mut call, at) = framed(MessageType::Call, &SayHelloArgs { req: request(Payload::Small) });
        call[at..at + 4].copy_from_slice(&77u32.to_be_bytes());
        assert_eq!(seqid_of(&call[4..]), Some(77u32.to_be_bytes()));
        let len = u32::from_be_bytes(call[..4].try_into().unwrap()) as usize;
        assert_eq!(len + 4, call.len());
        assert_eq!(seqid_of(&call[4..10]), None, "a short frame has no sequence id");
    }
}
