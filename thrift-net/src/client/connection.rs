//! The machinery under one client connection: the table of calls waiting for replies, the
//! writer task that sends calls as they come, and the reader task that routes replies by
//! sequence id.

use std::collections::HashMap;
use std::future::poll_fn;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::{Bytes, BytesMut};
use thrift_core::{ApplicationException, ApplicationExceptionKind, Binary, Compact, MessageType};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::ClientConfig;
use crate::buffered::BufferedCodec;
use crate::call::CallNames;
use crate::call_error::{is_at_capacity, is_shutting_down, CallSite};
use crate::channel::{CallError, Reply, ReplyParts};
use crate::error::{TransportError, TransportErrorKind};
use crate::framed::FramedCodec;
use crate::header::{Headers, ReplyCodec};
use crate::message::read_envelope;
use crate::server::Peer;
use crate::signal::Signal;
use crate::wire::{ProtocolKind, Transport};

/// Calls waiting in the writer's queue before callers wait for room.
const QUEUE: usize = 1024;
/// Calls are gathered up to this many bytes before a write to the socket.
const WRITE_BUFFER: usize = 64 * 1024;

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
pub(super) struct Closed {
    kind: io::ErrorKind,
    reason: Arc<str>,
    /// A reply envelope that could not be read: the calls waiting fail with this, typed.
    protocol: Option<thrift_core::Error>,
}

impl Closed {
    pub fn new(kind: io::ErrorKind, reason: impl Into<Arc<str>>) -> Self {
        Closed { kind, reason: reason.into(), protocol: None }
    }

    /// The reader's error for a reply with `seqid`, which no call was given.
    pub fn unknown_seqid(seqid: i32) -> Self {
        let reason = format!("reply with sequence id {seqid}, which no call was given: the server is confused");
        Closed::new(io::ErrorKind::InvalidData, reason)
    }

    fn transport(&self) -> TransportError {
        TransportError::from(io::Error::new(self.kind, self.reason.to_string()))
    }

    /// For a call that was sent and whose reply will not come.
    pub fn error(&self) -> CallError {
        match &self.protocol {
            Some(e) => CallError::Protocol(e.clone(), CallSite::default()),
            None => self.transport().into(),
        }
    }

    /// For a call the connection never sent.
    pub fn not_sent(&self) -> CallError {
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
        self.state().pending.remove(&seqid);
        self.closed_if_drained();
    }

    /// Fails a call the writer will not send.
    fn not_sent(&self, seqid: i32) {
        let (pending, error) = {
            let mut state = self.state();
            let error = Self::refusal(&state);
            (state.pending.remove(&seqid), error)
        };
        if let (Some(pending), Some(error)) = (pending, error) {
            let _ = pending.waiter.send(Err(error));
        }
        self.closed_if_drained();
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
        {
            let mut state = self.state();
            if state.closing.is_none() && state.closed.is_none() {
                let closing = Closed::new(kind, reason);
                debug!(reason = &*closing.reason, calls = state.pending.len(), "connection takes no new calls");
                state.closing = Some(closing);
            }
        }
        self.retiring.store(true, Relaxed);
        self.closed_if_drained();
    }

    /// Closes a retiring connection once no call waits on it. The table is looked at here,
    /// not counted by the caller earlier: a call may have entered it in between (before the
    /// connection retired), and closing then would fail that call with the retirement's
    /// reason although it was never answered.
    fn closed_if_drained(&self) {
        if !self.retiring.load(Relaxed) {
            return;
        }
        // A retiring connection takes no new call, so an empty table stays empty.
        let closing = {
            let state = self.state();
            if !state.pending.is_empty() {
                return;
            }
            state.closing.clone()
        };
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
    fn deliver(&self, incoming: Incoming) -> Result<(), Closed> {
        let header = envelope(&incoming.message, &self.config)?;
        let (name, parts, seqid) = (header.name, header.parts, header.parts.seqid);
        let (pending, never_given) = {
            let mut state = self.state();
            let pending = state.pending.remove(&seqid);
            let never_given = pending.is_none() && !state.wrapped && (seqid <= 0 || seqid >= state.next_seqid);
            (pending, never_given)
        };
        let Some(pending) = pending else {
            self.stray.fetch_add(1, Relaxed);
            if never_given {
                return Err(Closed::unknown_seqid(seqid));
            }
            warn!(seqid, method = name, "reply for no waiting call (timed out or abandoned); dropped");
            return Ok(());
        };
        let names = &pending.names;
        let wrong_name = wrong_name(name, names.service(), names.method());
        let (outcome, refused) = judge(incoming, parts, wrong_name, &self.config);
        if let Some(notice) = refused {
            // The server runs nothing more from this connection: send nothing more.
            self.retire(io::ErrorKind::ConnectionAborted, notice);
        }
        // The caller may have given up a moment ago; then nobody wants it.
        let _ = pending.waiter.send(outcome);
        self.closed_if_drained();
        Ok(())
    }
}

/// A reply's envelope, and where its body starts; an error when it is unreadable, after
/// which nothing on the stream can be trusted.
pub(super) fn envelope<'a>(message: &'a Bytes, config: &ClientConfig) -> Result<Envelope<'a>, Closed> {
    let (header, body_start) = read_envelope(message, config.protocol, config.limits).map_err(|e| Closed {
        protocol: Some(e.clone()),
        ..Closed::new(io::ErrorKind::InvalidData, format!("undecodable reply envelope: {e}"))
    })?;
    Ok(Envelope { name: header.name, parts: ReplyParts { kind: header.kind, seqid: header.seqid, body_start } })
}

/// A reply's envelope as read by [`envelope`].
pub(super) struct Envelope<'a> {
    pub name: &'a str,
    pub parts: ReplyParts,
}

/// Why a reply naming method `name` is not the reply of a call of `service`'s `method`, if
/// it is not.
pub(super) fn wrong_name(name: &str, service: &str, method: &str) -> Option<String> {
    (!names_call(name, service, method)).then(|| format!("the reply names {name:?}, the call was {method:?}"))
}

/// What a call gets from the reply its sequence id matched, of message type `kind`: the
/// reply, or the error it stands for (a reply that is not one, names another method, or
/// says the server refused the call unrun). With the error of a refused call comes the
/// server's notice: the connection must take no more calls.
pub(super) fn judge(
    Incoming { message, headers }: Incoming,
    parts: ReplyParts,
    wrong_name: Option<String>,
    config: &ClientConfig,
) -> (Result<Reply, CallError>, Option<&'static str>) {
    let application =
        |kind, message| Err(CallError::Application(ApplicationException::new(kind, message), CallSite::default()));
    let kind = parts.kind;
    if let Some(message) = wrong_name {
        return (application(ApplicationExceptionKind::WrongMethodName, message), None);
    }
    if !matches!(kind, MessageType::Reply | MessageType::Exception) {
        let message = format!("expected a reply, got a {kind:?} message");
        return (application(ApplicationExceptionKind::InvalidMessageType, message), None);
    }
    // The envelope was read once, by `envelope`: the reply is made from what it found.
    let reply = Reply::from_parts(message, config.protocol, parts, config.limits);
    match refused_unrun(&reply, kind) {
        // The call did not run: an error already, so a pool sends it again elsewhere.
        Some((notice, exception)) => (Err(CallError::Application(exception, CallSite::default())), Some(notice)),
        None => (Ok(reply.with_headers(headers)), None),
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
fn names_call(name: &str, service: &str, method: &str) -> bool {
    name == method || name.strip_suffix(method).and_then(|p| p.strip_suffix(':')).is_some_and(|s| s == service)
}

/// A reply as its transport delivered it: the message, and its frame's headers.
pub(super) struct Incoming {
    pub message: Bytes,
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
    tokio::spawn(read_replies(rd, ReplyDecoder::new(&shared.config), shared));
    tx
}

/// Cuts replies out of the bytes a connection reads, as its transport and protocol frame
/// them.
pub(super) enum ReplyDecoder {
    Framed(FramedCodec<Binary>),
    Json(crate::json_codec::JsonCodec),
    Compact(BufferedCodec<Compact>),
    Binary(BufferedCodec<Binary>),
    Header(ReplyCodec),
}

impl ReplyDecoder {
    pub fn new(config: &ClientConfig) -> Self {
        let limits = config.limits;
        match (config.transport, config.protocol) {
            (Transport::Framed, _) => ReplyDecoder::Framed(FramedCodec::with_limits(&limits)),
            (Transport::Buffered, ProtocolKind::Json) => {
                ReplyDecoder::Json(crate::json_codec::JsonCodec::with_limits(limits))
            }
            (Transport::Buffered, ProtocolKind::Compact) => ReplyDecoder::Compact(BufferedCodec::with_limits(limits)),
            (Transport::Buffered, _) => ReplyDecoder::Binary(BufferedCodec::with_limits(limits)),
            (Transport::Header | Transport::TTHeader | Transport::FramedHeader, protocol) => {
                ReplyDecoder::Header(ReplyCodec::new(protocol, &limits))
            }
        }
    }

    /// The next whole reply in `buf`, if one is there.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Incoming>, TransportError> {
        Ok(match self {
            ReplyDecoder::Framed(codec) => codec.decode(buf)?.map(Incoming::from),
            ReplyDecoder::Json(codec) => codec.decode(buf)?.map(Incoming::from),
            ReplyDecoder::Compact(codec) => codec.decode(buf)?.map(Incoming::from),
            ReplyDecoder::Binary(codec) => codec.decode(buf)?.map(Incoming::from),
            ReplyDecoder::Header(codec) => codec.decode(buf)?.map(Incoming::from),
        })
    }
}

/// Why a reply stream that could not be cut into replies ended.
pub(super) fn undecodable(e: &TransportError) -> Closed {
    let reason = format!("undecodable reply stream: {e}");
    Closed { protocol: typed(e), ..Closed::new(io::ErrorKind::InvalidData, reason) }
}

/// Why a connection ended when a read returned nothing (`received` bytes of a reply in).
pub(super) fn closed_by_server(received: usize) -> Closed {
    match received {
        0 => Closed::new(io::ErrorKind::UnexpectedEof, "connection closed by the server"),
        _ => Closed::new(
            io::ErrorKind::UnexpectedEof,
            format!("connection closed by the server mid-reply ({received} bytes of it received)"),
        ),
    }
}

/// Why a connection ended when a read from it failed.
pub(super) fn read_failed(e: &io::Error) -> Closed {
    Closed::new(e.kind(), format!("reading from the server failed: {e}"))
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
async fn read_replies<R: AsyncRead + Unpin>(mut rd: R, mut decoder: ReplyDecoder, shared: Arc<Shared>) {
    let mut buf = BytesMut::new();
    let mut stopped = Signal::new(shared.closed.clone());
    let closed = 'read: loop {
        loop {
            match decoder.decode(&mut buf) {
                Ok(Some(message)) => {
                    if let Err(closed) = shared.deliver(message) {
                        // No call can be told which reply was its; nothing after it can be trusted.
                        break 'read closed;
                    }
                }
                Ok(None) => break,
                Err(e) => break 'read undecodable(&e),
            }
        }
        crate::room::for_read(&mut buf);
        let read = tokio::select! {
            biased;
            () = poll_fn(|cx| stopped.poll(cx)) => return,
            read = rd.read_buf(&mut buf) => read,
        };
        match read {
            Ok(0) => break closed_by_server(buf.len()),
            Ok(_) => {}
            Err(e) => break read_failed(&e),
        }
    };
    shared.close_with(closed);
}
