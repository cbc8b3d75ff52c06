//! The Thrift floor: the raw ceiling's sockets and loops, plus the work no Thrift
//! implementation can skip. The server decodes each call (message header and arguments, with
//! `thrift-core`, zero-copy from the frame), runs the same handler as every peer and encodes
//! its reply; the client encodes each request and decodes and checks each reply. Nothing
//! else: no limits, timeouts, budgets, metrics or spans. Against it, a framework's own cost
//! per call shows apart from the protocol's.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::{Buf, Bytes, BytesMut};
use thrift_core::{Binary, Decode, MessageHeader, MessageType, Protocol, Reader};
use thrift_loadtest::hello::{answer, is_answer, HelloRequest};
use thrift_loadtest::{drive, Failure, Stats, Timing};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::raw::{put_framed, request, SayHelloArgs, SayHelloResult};
use crate::LoadArgs;

/// The method every call names.
const METHOD: &str = "sayHello";

/// Frames longer than this are refused: the floor keeps the one bound any server needs.
const MAX_FRAME: usize = 16 * 1024 * 1024;

/// The next whole frame's body in `input`, if one has arrived.
fn next_frame(input: &mut BytesMut) -> io::Result<Option<Bytes>> {
    let Some(prefix) = input.get(..4) else { return Ok(None) };
    let len = u32::from_be_bytes(prefix.try_into().expect("four bytes")) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("a frame of {len} bytes")));
    }
    if input.len() < 4 + len {
        return Ok(None);
    }
    input.advance(4);
    Ok(Some(input.split_to(len).freeze()))
}

/// The message in `frame`: its header and its body as `T`.
fn decode<'de, T: Decode<'de>>(frame: &'de Bytes) -> thrift_core::Result<(MessageHeader<'de>, T)> {
    let mut r = Reader::from_bytes(frame);
    let header = Binary::read_message_begin(&mut r)?;
    let body = T::decode::<Binary>(&mut r)?;
    Ok((header, body))
}

fn invalid(why: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

/// Serves HelloService, decoding every call and encoding every reply, until the process is
/// killed.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(addr: SocketAddr) -> io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(async move {
            let _ = answer_connection(stream).await;
        });
    }
}

/// Answers every whole frame that has arrived with one write, as the raw server does.
async fn answer_connection(mut stream: TcpStream) -> io::Result<()> {
    let mut input = BytesMut::with_capacity(64 * 1024);
    let mut output = Vec::with_capacity(64 * 1024);
    loop {
        if stream.read_buf(&mut input).await? == 0 {
            return Ok(());
        }
        while let Some(frame) = next_frame(&mut input)? {
            let (call, args) = decode::<SayHelloArgs>(&frame).map_err(invalid)?;
            if call.kind != MessageType::Call || call.name != METHOD {
                return Err(invalid(format!("{:?} {}: not a call of {METHOD}", call.kind, call.name)));
            }
            let reply = SayHelloResult { success: answer(args.req) };
            put_framed(
                MessageHeader { name: call.name, kind: MessageType::Reply, seqid: call.seqid },
                &reply,
                &mut output,
            );
        }
        if !output.is_empty() {
            stream.write_all(&output).await?;
            output.clear();
        }
    }
}

struct CodecLoad {
    addr: SocketAddr,
    request: HelloRequest,
}

/// A caller's own connection and buffers.
struct CodecSession {
    stream: TcpStream,
    output: Vec<u8>,
    input: BytesMut,
    seqid: i32,
}

impl thrift_loadtest::Load for CodecLoad {
    type Session = CodecSession;

    async fn session(&self) -> Result<CodecSession, Failure> {
        let stream =
            TcpStream::connect(self.addr).await.map_err(|e| Failure::new(format!("connect: {:?}", e.kind())))?;
        stream.set_nodelay(true).map_err(|e| Failure::new(format!("nodelay: {e}")))?;
        Ok(CodecSession { stream, output: Vec::with_capacity(8192), input: BytesMut::with_capacity(8192), seqid: 0 })
    }

    async fn call(&self, s: &mut CodecSession) -> Result<(), Failure> {
        let io = |e: io::Error| Failure::new(format!("io: {:?}", e.kind()));
        s.seqid = s.seqid.wrapping_add(1);
        s.output.clear();
        let args = SayHelloArgs { req: self.request.clone() };
        put_framed(MessageHeader { name: METHOD, kind: MessageType::Call, seqid: s.seqid }, &args, &mut s.output);
        s.stream.write_all(&s.output).await.map_err(io)?;
        let frame = loop {
            if let Some(frame) = next_frame(&mut s.input).map_err(io)? {
                break frame;
            }
            if s.stream.read_buf(&mut s.input).await.map_err(io)? == 0 {
                return Err(Failure::new("io: closed"));
            }
        };
        let (reply, result) =
            decode::<SayHelloResult>(&frame).map_err(|e| Failure::new(format!("undecodable reply: {e}")))?;
        let answered = reply.kind == MessageType::Reply && reply.name == METHOD && reply.seqid == s.seqid;
        if !answered || !is_answer(&self.request, &result.success) {
            return Err(Failure::new("wrong reply"));
        }
        Ok(())
    }
}

/// Loads `addr` with the floor's client: one connection per caller, one call at a time each.
pub async fn load(addr: SocketAddr, args: &LoadArgs) -> Stats {
    let load = Arc::new(CodecLoad { addr, request: request(args.payload()) });
    let timing = Timing { duration: args.duration(), warmup: args.warmup(), call_bound: args.call_timeout() };
    drive(load, args.concurrency, timing, Default::default()).await.0
}

#[cfg(test)]
mod tests {
    use thrift_loadtest::Payload;

    use super::*;

    #[test]
    fn a_frame_is_taken_whole_once_it_has_arrived() {
        let mut out = Vec::new();
        let args = SayHelloArgs { req: request(Payload::Small) };
        put_framed(MessageHeader { name: METHOD, kind: MessageType::Call, seqid: 9 }, &args, &mut out);
        let mut input = BytesMut::from(&out[..out.len() - 1]);
        assert_eq!(next_frame(&mut input).unwrap(), None, "one byte short");
        input.extend_from_slice(&out[out.len() - 1..]);
        let frame = next_frame(&mut input).unwrap().expect("a whole frame");
        assert!(input.is_empty());
        let (header, decoded) = decode::<SayHelloArgs>(&frame).unwrap();
        assert_eq!((header.name, header.kind, header.seqid), (METHOD, MessageType::Call, 9));
        assert_eq!(decoded.req, args.req);
    }

    #[test]
    fn an_oversized_frame_is_refused() {
        let mut input = BytesMut::from(&u32::MAX.to_be_bytes()[..]);
        assert_eq!(next_frame(&mut input).unwrap_err().kind(), io::ErrorKind::InvalidData);
    }
}
