//! The machinery under one client connection: the table of calls waiting for replies, the
//! writer task that sends calls as they come, and the reader task that routes replies by
//! sequence id.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::{Bytes, BytesMut};
use thrift_core::{Binary, Compact};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use tracing::debug;

use super::ClientConfig;
use crate::buffered::BufferedCodec;
use crate::channel::{CallError, Reply};
use crate::detect::{ProtocolKind, Transport};
use crate::error::TransportError;
use crate::framed::FramedCodec;

/// Calls waiting in the writer's queue before callers wait for room.
const QUEUE: usize = 1024;
/// Calls are gathered up to this many bytes before a write to the socket.
const WRITE_BUFFER: usize = 64 * 1024;
/// Room made in the read buffer before a read when less than [`MIN_READ`] is free.
const READ_CHUNK: usize = 8 * 1024;
const MIN_READ: usize = 1024;

/// Where a call's reply (or its failure) goes.
type Waiter = oneshot::Sender<Result<Reply, CallError>>;

/// A message for the writer, and for a oneway message whom to tell once it is written.
pub(crate) struct Outbound {
    pub bytes: Bytes,
    pub written: Option<oneshot::Sender<()>>,
}

/// What the caller side and the two tasks of one connection share.
pub(crate) struct Shared {
    pub config: ClientConfig,
    state: Mutex<State>,
    /// Cancelled once the connection is closed: no call can start and both tasks end.
    closed: CancellationToken,
}

struct State {
    pending: HashMap<i32, Waiter>,
    next_seqid: i32,
    /// Why the connection closed, once it has.
    closed: Option<Closed>,
}

/// Why a connection closed; every call it fails gets a transport error saying so.
#[derive(Clone, Debug)]
struct Closed {
    kind: io::ErrorKind,
    reason: Arc<str>,
}

impl Closed {
    fn error(&self) -> CallError {
        CallError::Transport(TransportError::from(io::Error::new(self.kind, self.reason.to_string())))
    }
}

impl Shared {
    pub fn new(config: ClientConfig) -> Self {
        let state = State { pending: HashMap::new(), next_seqid: 1, closed: None };
        Shared { config, state: Mutex::new(state), closed: CancellationToken::new() }
    }

    /// The table stays consistent whatever a panicking thread left half done (every change
    /// is a single insert or remove), so a poisoned lock is still usable.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Enters a call in the table under a sequence id no other waiting call has.
    pub fn register(&self) -> Result<(i32, oneshot::Receiver<Result<Reply, CallError>>), CallError> {
        let mut state = self.state();
        if let Some(closed) = &state.closed {
            return Err(closed.error());
        }
        let (tx, rx) = oneshot::channel();
        loop {
            let seqid = state.next_seqid;
            state.next_seqid = seqid.wrapping_add(1);
            // After a wrap, skip ids of calls still waiting (a very slow one, say).
            if let std::collections::hash_map::Entry::Vacant(slot) = state.pending.entry(seqid) {
                slot.insert(tx);
                return Ok((seqid, rx));
            }
        }
    }

    /// A sequence id for a oneway message, which waits for no reply.
    pub fn oneway_seqid(&self) -> Result<i32, CallError> {
        let mut state = self.state();
        if let Some(closed) = &state.closed {
            return Err(closed.error());
        }
        let seqid = state.next_seqid;
        state.next_seqid = seqid.wrapping_add(1);
        Ok(seqid)
    }

    /// Takes a call out of the table (it timed out, failed to send, or was dropped).
    pub fn forget(&self, seqid: i32) {
        self.state().pending.remove(&seqid);
    }

    /// The error for a call on a closed connection.
    pub fn closed_error(&self) -> CallError {
        match &self.state().closed {
            Some(closed) => closed.error(),
            None => Closed { kind: io::ErrorKind::NotConnected, reason: "connection closed".into() }.error(),
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.is_cancelled()
    }

    pub fn in_flight(&self) -> usize {
        self.state().pending.len()
    }

    pub async fn wait_closed(&self) {
        self.closed.cancelled().await;
    }

    /// Closes the connection: every waiting call fails at once with a transport error
    /// carrying `reason`, later calls fail before they are sent, and both tasks end.
    pub fn close(&self, kind: io::ErrorKind, reason: impl Into<Arc<str>>) {
        let (closed, waiting) = {
            let mut state = self.state();
            if state.closed.is_some() {
                return;
            }
            let closed = Closed { kind, reason: reason.into() };
            state.closed = Some(closed.clone());
            (closed, std::mem::take(&mut state.pending))
        };
        self.closed.cancel();
        if !waiting.is_empty() {
            debug!(calls = waiting.len(), reason = &*closed.reason, "connection closed; failing the calls waiting");
        }
        for (_, waiter) in waiting {
            let _ = waiter.send(Err(closed.error()));
        }
    }

    /// Hands a reply to the call with its sequence id.
    fn deliver(&self, message: Bytes) -> thrift_core::Result<()> {
        let reply = Reply::parse(message, self.config.protocol, self.config.limits)?;
        let seqid = reply.seqid();
        let waiter = self.state().pending.remove(&seqid);
        match waiter {
            // The caller may have given up a moment ago; then nobody wants it.
            Some(waiter) => drop(waiter.send(Ok(reply))),
            None => debug!(seqid, "reply for no waiting call (timed out or abandoned); dropped"),
        }
        Ok(())
    }
}

/// Starts the writer and reader tasks of a connection; returns the writer's queue.
pub(crate) fn spawn<R, W>(rd: R, wr: W, shared: Arc<Shared>) -> mpsc::Sender<Outbound>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel(QUEUE);
    tokio::spawn(write_calls(wr, rx, shared.clone()));
    let limits = shared.config.limits;
    match (shared.config.transport, shared.config.protocol) {
        (Transport::Framed, _) => tokio::spawn(read_replies(rd, FramedCodec::<Binary>::with_limits(&limits), shared)),
        (Transport::Buffered, ProtocolKind::Compact) => {
            tokio::spawn(read_replies(rd, BufferedCodec::<Compact>::with_limits(limits), shared))
        }
        (Transport::Buffered, _) => {
            tokio::spawn(read_replies(rd, BufferedCodec::<Binary>::with_limits(limits), shared))
        }
    };
    tx
}

/// Writes calls as they come, gathering those that are ready into one socket write.
async fn write_calls<W: AsyncWrite + Unpin>(wr: W, mut rx: mpsc::Receiver<Outbound>, shared: Arc<Shared>) {
    let mut out = BufWriter::with_capacity(WRITE_BUFFER, wr);
    let mut acks = Vec::new();
    let written = async {
        while let Some(call) = rx.recv().await {
            out.write_all(&call.bytes).await?;
            acks.extend(call.written);
            if rx.is_empty() {
                out.flush().await?;
                for ack in acks.drain(..) {
                    let _ = ack.send(());
                }
            }
        }
        io::Result::Ok(())
    };
    let result = tokio::select! {
        biased;
        _ = shared.closed.cancelled() => return,
        result = written => result,
    };
    match result {
        Err(e) => shared.close(e.kind(), format!("writing to the server failed: {e}")),
        // Every handle is gone: nothing more will be sent.
        Ok(()) => {
            let _ = out.shutdown().await;
        }
    }
}

/// Reads replies and routes each to its call, until the connection ends; then fails every
/// call still waiting.
async fn read_replies<R, D>(mut rd: R, mut codec: D, shared: Arc<Shared>)
where
    R: AsyncRead + Unpin,
    D: Decoder<Item = Bytes, Error = TransportError>,
{
    let mut buf = BytesMut::new();
    let (kind, reason) = 'read: loop {
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(message)) => {
                    if let Err(e) = shared.deliver(message) {
                        // Its sequence id is unreadable, so no call can be told; nothing after it can be trusted.
                        break 'read (io::ErrorKind::InvalidData, format!("undecodable reply envelope: {e}"));
                    }
                }
                Ok(None) => break,
                Err(e) => break 'read (io::ErrorKind::InvalidData, format!("undecodable reply stream: {e}")),
            }
        }
        if buf.capacity() - buf.len() < MIN_READ {
            buf.reserve(READ_CHUNK);
        }
        let read = tokio::select! {
            biased;
            _ = shared.closed.cancelled() => return,
            read = rd.read_buf(&mut buf) => read,
        };
        match read {
            Ok(0) if buf.is_empty() => break (io::ErrorKind::UnexpectedEof, "connection closed by the server".into()),
            Ok(0) => {
                let received = buf.len();
                break (
                    io::ErrorKind::UnexpectedEof,
                    format!("connection closed by the server mid-reply ({received} bytes of it received)"),
                );
            }
            Ok(_) => {}
            Err(e) => break (e.kind(), format!("reading from the server failed: {e}")),
        }
    };
    shared.close(kind, reason);
}
