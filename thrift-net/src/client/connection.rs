//! The machinery under one client connection: the table of calls waiting for replies, the
//! writer task that sends calls as they come, and the reader task that routes replies by
//! sequence id.

use std::collections::HashMap;
use std::future::poll_fn;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::{Bytes, BytesMut};
use thrift_core::{ApplicationException, ApplicationExceptionKind, Binary, Compact, MessageType, Reader};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::ClientConfig;
use crate::buffered::BufferedCodec;
use crate::call::CallNames;
use crate::call_error::{is_at_capacity, is_shutting_down, CallSite};
use crate::channel::{CallError, Reply};
use crate::error::{TransportError, TransportErrorKind};
use crate::framed::FramedCodec;
use crate::header::{Headers, ReplyCodec};
use crate::protocol::with_protocol;
use crate::server::Peer;
use crate::signal::Signal;
use crate::wire::{ProtocolKind, Transport};

/// Calls waiting in the writer's queue before callers wait for room.
const QUEUE: usize = 1024;
/// Calls are gathered up to this many bytes before a write to the socket.
const WRITE_BUFFER: usize = 64 * 1024;
/// Room made in the read buffer before a read when less than [`MIN_READ`] is free.
const READ_CHUNK: usize = 8 * 1024;
const MIN_READ: usize = 1024;

/// Where a call's reply (or its failure) goes.
type Waiter = oneshot::Sender<Result<Reply, CallError>>;

/// A call waiting for its reply: where the reply goes, and the method it must name.
struct Pending {
    waiter: Waiter,
    /// Borrowed from the call when its names are `'static`, as generated clients' are: no
    /// allocation per call.
    names: CallNames,
}

/// A message for the writer, and for a oneway message whom to tell once it is written.
pub(crate) struct Outbound {
    pub bytes: Bytes,
    pub written: Option<oneshot::Sender<()>>,
    /// The call's sequence id (`None` for a oneway message), to fail it as never sent when
    /// the connection stops writing before its turn.
    pub seqid: Option<i32>,
}

/// What the caller side and the two tasks of one connection share.
pub(crate) struct Shared {
    pub config: ClientConfig,
    /// Where the connection goes, for errors (unknown for a stream given by hand).
    pub peer: Option<Peer>,
    state: Mutex<State>,
    /// Cancelled once the connection is closed: no call can start and both tasks end.
    closed: CancellationToken,
    /// Set once the connection takes no new call (closing, or closed): cheap to read.
    retiring: AtomicBool,
    /// Replies that matched no waiting call (late ones of calls that timed out, or stray).
    stray: AtomicU64,
}

struct State {
    pending: HashMap<i32, Pending>,
    next_seqid: i32,
    /// Whether `next_seqid` wrapped: before, a reply whose id was never given is a
    /// server fault, not a late reply.
    wrapped: bool,
    /// Why the connection takes no new calls while those already sent finish (the writer
    /// failed, or the server said it is shutting down), once it does.
    closing: Option<Closed>,
    /// Why the connection closed, once it has.
    closed: Option<Closed>,
}

/// Why a connection closed; every call it fails gets an error saying so.
#[derive(Clone, Debug)]
struct Closed {
    kind: io::ErrorKind,
    reason: Arc<str>,
    /// A reply envelope that could not be read: the calls waiting fail with this, typed.
    protocol: Option<thrift_core::Error>,
}

impl Closed {
    fn new(kind: io::ErrorKind, reason: impl Into<Arc<str>>) -> Self {
        Closed { kind, reason: reason.into(), protocol: None }
    }

    fn transport(&self) -> TransportError {
        TransportError::from(io::Error::new(self.kind, self.reason.to_string()))
    }

    /// For a call that was sent and whose reply will not come.
    fn error(&self) -> CallError {
        match &self.protocol {
            Some(e) => CallError::Protocol(e.clone(), CallSite::default()),
            None => self.transport().into(),
        }
    }

    /// For a call the connection never sent.
    fn not_sent(&self) -> CallError {
        CallError::NotSent(self.transport(), CallSite::default())
    }
}

impl Shared {
    pub fn new(config: ClientConfig, peer: Option<Peer>) -> Self {
        let state = State { pending: HashMap::new(), next_seqid: 1, wrapped: false, closing: None, closed: None };
        Shared {
            config,
            peer,
            state: Mutex::new(state),
            closed: CancellationToken::new(),
            retiring: AtomicBool::new(false),
            stray: AtomicU64::new(0),
        }
    }

    /// The table stays consistent whatever a panicking thread left half done (every change
    /// is a single insert or remove), so a poisoned lock is still usable.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why no call may start, if none may.
    fn refusal(state: &State) -> Option<CallError> {
        state.closed.as_ref().or(state.closing.as_ref()).map(Closed::not_sent)
    }

    fn take_seqid(state: &mut State) -> i32 {
        let seqid = state.next_seqid;
        state.next_seqid = seqid.wrapping_add(1);
        state.wrapped |= state.next_seqid <= 0;
        seqid
    }

    /// Enters a call in the table under a sequence id no other waiting call has.
    pub fn register(&self, names: CallNames) -> Result<(i32, oneshot::Receiver<Result<Reply, CallError>>), CallError> {
        let mut state = self.state();
        if let Some(refused) = Self::refusal(&state) {
            return Err(refused);
        }
        let (tx, rx) = oneshot::channel();
        loop {
            let seqid = Self::take_seqid(&mut state);
            // After a wrap, skip ids of calls still waiting (a very slow one, say).
            if let std::collections::hash_map::Entry::Vacant(slot) = state.pending.entry(seqid) {
                slot.insert(Pending { waiter: tx, names });
                return Ok((seqid, rx));
            }
        }
    }

    /// A sequence id for a oneway message, which waits for no reply.
    pub fn oneway_seqid(&self) -> Result<i32, CallError> {
        let mut state = self.state();
        if let Some(refused) = Self::refusal(&state) {
            return Err(refused);
        }
        Ok(Self::take_seqid(&mut state))
    }

    /// Takes a call out of the table (it timed out, failed to send, or was dropped).
    pub fn forget(&self, seqid: i32) {
        let left = {
            let mut state = self.state();
            state.pending.remove(&seqid);
            state.pending.len()
        };
        self.closed_if_drained(left);
    }

    /// Fails a call the writer will not send.
    fn not_sent(&self, seqid: i32) {
        let (pending, left, error) = {
            let mut state = self.state();
            let error = Self::refusal(&state);
            (state.pending.remove(&seqid), state.pending.len(), error)
        };
        if let (Some(pending), Some(error)) = (pending, error) {
            let _ = pending.waiter.send(Err(error));
        }
        self.closed_if_drained(left);
    }

    /// The error for a call the connection can no longer send.
    pub fn not_sent_error(&self) -> CallError {
        let state = self.state();
        Self::refusal(&state)
            .unwrap_or_else(|| Closed::new(io::ErrorKind::NotConnected, "connection closed").not_sent())
    }

    /// The error for a call on a closed connection.
    pub fn closed_error(&self) -> CallError {
        match &self.state().closed {
            Some(closed) => closed.error(),
            None => Closed::new(io::ErrorKind::NotConnected, "connection closed").error(),
        }
    }

    /// Whether the connection takes no new call: closed, or finishing the calls it sent.
    pub fn is_closed(&self) -> bool {
        self.retiring.load(Relaxed) || self.closed.is_cancelled()
    }

    pub fn in_flight(&self) -> usize {
        self.state().pending.len()
    }

    /// Replies that matched no waiting call.
    pub fn stray_replies(&self) -> u64 {
        self.stray.load(Relaxed)
    }

    pub async fn wait_closed(&self) {
        self.closed.cancelled().await;
    }

    /// Takes no new calls from now on (they fail as [`CallError::NotSent`]), and none of
    /// those queued is written; the calls already written still get their replies, and the
    /// connection closes after the last.
    fn retire(&self, kind: io::ErrorKind, reason: impl Into<Arc<str>>) {
        let left = {
            let mut state = self.state();
            if state.closing.is_none() && state.closed.is_none() {
                let closing = Closed::new(kind, reason);
                debug!(reason = &*closing.reason, calls = state.pending.len(), "connection takes no new calls");
                state.closing = Some(closing);
            }
            state.pending.len()
        };
        self.retiring.store(true, Relaxed);
        self.closed_if_drained(left);
    }

    /// Closes a retiring connection once no call waits on it.
    fn closed_if_drained(&self, left: usize) {
        if left > 0 || !self.retiring.load(Relaxed) {
            return;
        }
        let closing = self.state().closing.clone();
        if let Some(closing) = closing {
            self.close_with(closing);
        }
    }

    /// Closes the connection: every waiting call fails at once with a transport error
    /// carrying `reason`, later calls fail before they are sent, and both tasks end.
    pub fn close(&self, kind: io::ErrorKind, reason: impl Into<Arc<str>>) {
        self.close_with(Closed::new(kind, reason));
    }

    fn close_with(&self, closed: Closed) {
        let waiting = {
            let mut state = self.state();
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(closed.clone());
            std::mem::take(&mut state.pending)
        };
        self.retiring.store(true, Relaxed);
        self.closed.cancel();
        if !waiting.is_empty() {
            debug!(calls = waiting.len(), reason = &*closed.reason, "connection closed; failing the calls waiting");
        }
        for (_, pending) in waiting {
            let _ = pending.waiter.send(Err(closed.error()));
        }
    }

    /// Hands a reply to the call with its sequence id, after checking it names the call's
    /// method. An error when the stream can no longer be trusted: an unreadable envelope,
    /// or a sequence id no call was ever given.
    fn deliver(&self, Incoming { message, headers }: Incoming) -> Result<(), Closed> {
        let mut r = Reader::from_bytes(&message).with_limits(self.config.limits);
        let header = with_protocol!(self.config.protocol, P => P::read_message_begin(&mut r));
        let header = header.map_err(|e| Closed {
            protocol: Some(e.clone()),
            ..Closed::new(io::ErrorKind::InvalidData, format!("undecodable reply envelope: {e}"))
        })?;
        let (name, kind, seqid) = (header.name, header.kind, header.seqid);
        let (pending, left, never_given) = {
            let mut state = self.state();
            let pending = state.pending.remove(&seqid);
            let never_given = pending.is_none() && !state.wrapped && (seqid <= 0 || seqid >= state.next_seqid);
            (pending, state.pending.len(), never_given)
        };
        let Some(pending) = pending else {
            self.stray.fetch_add(1, Relaxed);
            if never_given {
                return Err(Closed::new(
                    io::ErrorKind::InvalidData,
                    format!("reply with sequence id {seqid}, which no call was given: the server is confused"),
                ));
            }
            warn!(seqid, method = name, "reply for no waiting call (timed out or abandoned); dropped");
            return Ok(());
        };
        // Checked while the name still borrows the message, which the reply then takes.
        let wrong_name = (!names_call(name, &pending.names))
            .then(|| format!("the reply names {name:?}, the call was {:?}", pending.names.method()));
        let outcome = match (Reply::parse(message, self.config.protocol, self.config.limits), wrong_name) {
            (Err(e), _) => Err(CallError::Protocol(e, CallSite::default())),
            (Ok(_), Some(message)) => {
                let exception = ApplicationException::new(ApplicationExceptionKind::WrongMethodName, message);
                Err(CallError::Application(exception, CallSite::default()))
            }
            (Ok(_), None) if !matches!(kind, MessageType::Reply | MessageType::Exception) => {
                let message = format!("expected a reply, got a {kind:?} message");
                let exception = ApplicationException::new(ApplicationExceptionKind::InvalidMessageType, message);
                Err(CallError::Application(exception, CallSite::default()))
            }
            (Ok(reply), None) => match refused_unrun(&reply, kind) {
                // The server runs nothing more from this connection: send nothing more. The
                // call did not run: an error already, so a pool sends it again elsewhere.
                Some((notice, exception)) => {
                    self.retire(io::ErrorKind::ConnectionAborted, notice);
                    Err(CallError::Application(exception, CallSite::default()))
                }
                None => Ok(reply.with_headers(headers)),
            },
        };
        // The caller may have given up a moment ago; then nobody wants it.
        let _ = pending.waiter.send(outcome);
        self.closed_if_drained(left);
        Ok(())
    }
}

/// The server's notice and exception, if the reply says it refused the call unrun and
/// takes no more calls on this connection.
fn refused_unrun(reply: &Reply, kind: MessageType) -> Option<(&'static str, ApplicationException)> {
    if kind != MessageType::Exception {
        return None;
    }
    let e = reply.application_exception()?;
    if is_shutting_down(&e) {
        Some((crate::server::SHUTTING_DOWN, e))
    } else if is_at_capacity(&e) {
        Some((crate::server::AT_CAPACITY, e))
    } else {
        None
    }
}

/// The protocol's own error inside a reply stream's transport error, so the calls it fails
/// get it typed ([`CallError::Protocol`]); `None` for framing and socket errors.
fn typed(e: &TransportError) -> Option<thrift_core::Error> {
    let TransportErrorKind::Protocol { kind, .. } = e.kind() else { return None };
    let typed = thrift_core::Error::new(kind.clone());
    Some(match e.offset() {
        Some(offset) => typed.with_offset(offset),
        None => typed,
    })
}

/// Whether a reply's method name is the call's: plain, or with the multiplexed
/// `Service:` prefix some servers echo back.
fn names_call(name: &str, call: &CallNames) -> bool {
    name == call.method()
        || name.strip_suffix(call.method()).and_then(|p| p.strip_suffix(':')).is_some_and(|s| s == call.service())
}

/// A reply as its transport delivered it: the message, and its frame's headers.
struct Incoming {
    message: Bytes,
    headers: Headers,
}

impl From<Bytes> for Incoming {
    fn from(message: Bytes) -> Incoming {
        Incoming { message, headers: Headers::new() }
    }
}

impl From<(Bytes, Headers)> for Incoming {
    fn from((message, headers): (Bytes, Headers)) -> Incoming {
        Incoming { message, headers }
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
        (Transport::Buffered, ProtocolKind::Json) => {
            tokio::spawn(read_replies(rd, crate::json_codec::JsonCodec::with_limits(limits), shared))
        }
        (Transport::Buffered, ProtocolKind::Compact) => {
            tokio::spawn(read_replies(rd, BufferedCodec::<Compact>::with_limits(limits), shared))
        }
        (Transport::Buffered, _) => {
            tokio::spawn(read_replies(rd, BufferedCodec::<Binary>::with_limits(limits), shared))
        }
        (Transport::Header | Transport::TTHeader | Transport::FramedHeader, protocol) => {
            tokio::spawn(read_replies(rd, ReplyCodec::new(protocol, &limits), shared))
        }
    };
    tx
}

/// Writes calls as they come, gathering those that are ready into one socket write. After a
/// write fails (or the connection retires), nothing more is written: each call still queued
/// fails as never sent, while the reader goes on reading the replies of those written.
async fn write_calls<W: AsyncWrite + Unpin>(wr: W, mut rx: mpsc::Receiver<Outbound>, shared: Arc<Shared>) {
    let mut out = BufWriter::with_capacity(WRITE_BUFFER, wr);
    let mut acks = Vec::new();
    let mut failed = false;
    let mut closed = Signal::new(shared.closed.clone());
    loop {
        let call = tokio::select! {
            biased;
            () = poll_fn(|cx| closed.poll(cx)) => return,
            call = rx.recv() => call,
        };
        let Some(call) = call else { break };
        let write = async {
            if failed || shared.retiring.load(Relaxed) {
                if let Some(seqid) = call.seqid {
                    shared.not_sent(seqid);
                }
                // Calls written before the connection retired may still sit in the buffer:
                // they are waited for, so they must reach the server.
                if !failed && rx.is_empty() && !out.buffer().is_empty() {
                    flush(&mut out, &mut acks).await?;
                }
                return io::Result::Ok(());
            }
            out.write_all(&call.bytes).await?;
            acks.extend(call.written);
            if rx.is_empty() {
                flush(&mut out, &mut acks).await?;
            }
            io::Result::Ok(())
        };
        let result = tokio::select! {
            biased;
            () = poll_fn(|cx| closed.poll(cx)) => return,
            result = write => result,
        };
        if let Err(e) = result {
            failed = true;
            acks.clear();
            shared.retire(e.kind(), format!("writing to the server failed: {e}"));
        }
    }
    // Every handle is gone: nothing more will be sent.
    if !failed {
        let _ = out.shutdown().await;
    }
}

/// Flushes what is buffered and tells the calls written so far that they are on the wire.
async fn flush<W: AsyncWrite + Unpin>(out: &mut BufWriter<W>, acks: &mut Vec<oneshot::Sender<()>>) -> io::Result<()> {
    out.flush().await?;
    for ack in acks.drain(..) {
        let _ = ack.send(());
    }
    Ok(())
}

/// Reads replies and routes each to its call, until the connection ends; then fails every
/// call still waiting.
async fn read_replies<R, D>(mut rd: R, mut codec: D, shared: Arc<Shared>)
where
    R: AsyncRead + Unpin,
    D: Decoder<Error = TransportError>,
    D::Item: Into<Incoming>,
{
    let mut buf = BytesMut::new();
    let mut stopped = Signal::new(shared.closed.clone());
    let closed = 'read: loop {
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(message)) => {
                    if let Err(closed) = shared.deliver(message.into()) {
                        // No call can be told which reply was its; nothing after it can be trusted.
                        break 'read closed;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    let reason = format!("undecodable reply stream: {e}");
                    break 'read Closed { protocol: typed(&e), ..Closed::new(io::ErrorKind::InvalidData, reason) };
                }
            }
        }
        if buf.capacity() - buf.len() < MIN_READ {
            buf.reserve(READ_CHUNK);
        }
        let read = tokio::select! {
            biased;
            () = poll_fn(|cx| stopped.poll(cx)) => return,
            read = rd.read_buf(&mut buf) => read,
        };
        match read {
            Ok(0) if buf.is_empty() => {
                break Closed::new(io::ErrorKind::UnexpectedEof, "connection closed by the server")
            }
            Ok(0) => {
                let received = buf.len();
                break Closed::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("connection closed by the server mid-reply ({received} bytes of it received)"),
                );
            }
            Ok(_) => {}
            Err(e) => break Closed::new(e.kind(), format!("reading from the server failed: {e}")),
        }
    };
    shared.close_with(closed);
}
