//! One server connection: tell its wire format from the first bytes, read requests as they
//! arrive, handle them concurrently (each handler's first poll on the connection's task, a
//! task of its own only for one that waits), and write the replies from the same task, after
//! each turn of the reader ([`replies`](super::replies)).

use std::future::{pending, poll_fn, Future};
use std::io;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use thrift_core::{ApplicationException, ApplicationExceptionKind, Limits, MessageType};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{Notify, OwnedSemaphorePermit};
use tokio::time::{Instant, Sleep};
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use tracing::{debug, error, Instrument};

use super::bind::Shared;
use super::budget::{Budget, Owed};
use super::codec::WireCodec;
use super::listener::Stream;
use super::metrics::{is_exception, Counters};
use super::receiving::Receiving;
use super::replies::{reader_then_writer, replies, Inbox, Replies, TrySendError};
use super::{ready_call, BoxError, Peer, Request, Response, ThriftService, SHUTTING_DOWN};
use crate::detect::{detect, Detection};
use crate::error::TransportError;
use crate::framing::Framing;
use crate::panics::{catch_unwind, panic_message, CatchUnwind};
use crate::signal::Signal;
use crate::wire::Wire;

/// Replies are gathered up to this many bytes before a write to the socket; larger ones go
/// straight through.
const WRITE_BUFFER: usize = 64 * 1024;
/// During shutdown, after the last answer owed, how long a busy connection is still read
/// (late requests refused with [`SHUTTING_DOWN`]) before its write side closes: covers the
/// calls a pipelining peer sent as the last answers reached it.
const DRAIN_QUIET: Duration = Duration::from_millis(250);
/// After the write side closed at shutdown, how long the peer's leftover bytes are read and
/// dropped while waiting for it to close: closing with unread bytes would send a reset, and
/// a reset can destroy replies the peer has not read yet.
const LINGER: Duration = Duration::from_secs(1);

/// Serves one accepted connection to its end. `permit` is its place under the server's
/// connection limit, held until both the reader and the writer are done.
pub(crate) async fn serve<S: ThriftService, IO: Stream>(
    stream: IO,
    peer: Peer,
    shared: Arc<Shared>,
    service: S,
    permit: OwnedSemaphorePermit,
) {
    let _open = OpenConnection::new(shared.counters.clone(), permit);
    stream.configure(shared.config.tcp_keepalive);
    let (rd, wr) = stream.split();
    let stop = shared.stop.child_token();
    let mut reader = Reader::new(rd, stop.clone(), &shared);
    let Some(wire) = reader.detect(&shared.config.limits).await else { return };
    debug!(?wire, "protocol detected");

    let (tx, rx) = replies(shared.config.max_in_flight);
    let budget = Budget::new(shared.config.max_pending_bytes, shared.counters.clone());
    let finish = CancellationToken::new();
    let gone = CancellationToken::new();
    let turns = rx.turns();
    let writer = write_replies(
        wr,
        rx,
        shared.counters.clone(),
        WriterSignals { force: shared.force.clone(), failed: stop.clone(), gone: gone.clone(), finish: finish.clone() },
        shared.config.write_timeout,
    );

    let codec = WireCodec::new(wire, &shared.config.limits);
    let in_flight = InFlight::new(shared.config.max_in_flight);
    let conn = Connection {
        replying: Arc::new(Replying { shared, gone, in_flight, budget, tx }),
        service: std::sync::Mutex::new(service),
        peer,
        wire,
        stop,
        finish,
    };
    let reading = async move {
        // The connection (and its sender of replies) and the read half go when reading ends;
        // the writer ends once the requests still in flight have answered.
        conn.read_requests(&mut reader, codec).await;
    };
    reader_then_writer(reading, writer, turns).await;
}

/// Counts the connection as open while it lives, and holds its place under the limit.
struct OpenConnection {
    counters: Arc<Counters>,
    _permit: OwnedSemaphorePermit,
}

impl OpenConnection {
    fn new(counters: Arc<Counters>, permit: OwnedSemaphorePermit) -> Self {
        Counters::add(&counters.connections, 1);
        OpenConnection { counters, _permit: permit }
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        Counters::sub(&self.counters.connections, 1);
    }
}

/// A reply for the writer, with the bytes it holds under the connection's budget.
type Queued = (Bytes, Option<Owed>);

/// Requests of one connection being handled, at most `max` (`max_in_flight`): a wake-up for
/// the reader when one ends at the limit, and one when the last ends (the read-idle clock
/// restarts then). A counter rather than a semaphore: only the reader takes places, so
/// taking one is a load and an add, and giving one back wakes no one below the limit.
struct InFlight {
    count: AtomicUsize,
    max: usize,
    freed: Notify,
    idle: Notify,
}

impl InFlight {
    fn new(max: usize) -> Self {
        InFlight { count: AtomicUsize::new(0), max: max.max(1), freed: Notify::new(), idle: Notify::new() }
    }

    /// Takes a place if one is free. Called by the reader only (nothing else adds), so the
    /// count cannot pass `max` between the look and the add.
    fn try_begin(&self) -> bool {
        if self.count.load(Ordering::Acquire) >= self.max {
            return false;
        }
        self.count.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// Takes a place, waiting for a request to end if all are taken.
    async fn begin(&self) {
        loop {
            let freed = self.freed.notified();
            let mut freed = pin!(freed);
            // Listening before the look: an end between the two is not missed.
            freed.as_mut().enable();
            if self.try_begin() {
                return;
            }
            freed.await;
        }
    }

    fn end(&self) {
        let before = self.count.fetch_sub(1, Ordering::AcqRel);
        if before == self.max {
            self.freed.notify_one();
        }
        if before == 1 {
            self.idle.notify_one();
        }
    }

    fn any(&self) -> bool {
        self.count.load(Ordering::Acquire) > 0
    }
}

/// What one wait for bytes ended with.
enum ReadEvent {
    Data,
    Eof,
    Failed(io::Error),
    /// The read-idle timeout ran out.
    Idle,
    /// The server is shutting down, or the writer failed.
    Stopped,
    /// The last request in flight was answered.
    Answered,
}

/// The read half, its buffer and the read-idle clock.
struct Reader<R> {
    rd: R,
    buf: BytesMut,
    /// Ends a wait for bytes when the server stops (or the writer fails)...
    stop: Signal,
    /// ...until the connection drains at shutdown: then only `force` ends one. (The shutdown
    /// deadline passes after the stop, so while `stop` is watched it covers `force`.)
    watch_stop: bool,
    force: Signal,
    /// The read-idle clock's timer, kept from wait to wait (a new timer would take a lock to
    /// join the wheel and one to leave it); armed for a deadline no later than the wait's.
    idle: Pin<Box<Sleep>>,
    counters: Arc<Counters>,
    idle_timeout: Option<std::time::Duration>,
    /// When the peer last delivered a whole message (or the connection opened, or the
    /// last request in flight was answered).
    last_progress: Instant,
    /// The buffer's partial message, under the server-wide budget.
    receiving: Receiving,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    fn new(rd: R, stop: CancellationToken, shared: &Shared) -> Self {
        let now = Instant::now();
        Reader {
            rd,
            buf: BytesMut::new(),
            stop: Signal::new(stop),
            watch_stop: true,
            force: Signal::new(shared.force.clone()),
            idle: Box::pin(tokio::time::sleep_until(now)),
            counters: shared.counters.clone(),
            idle_timeout: shared.config.read_idle_timeout,
            last_progress: now,
            receiving: Receiving::new(shared.receiving.clone()),
        }
    }

    /// Notes progress now, and says when (one look at the clock for the request too).
    fn progress(&mut self) -> Instant {
        self.last_progress = Instant::now();
        self.last_progress
    }

    fn deadline(&self) -> Option<Instant> {
        self.idle_timeout.map(|t| self.last_progress + t)
    }

    /// Accounts the bytes of the message partly received so far under the server-wide
    /// budget. `false` when they do not fit: the connection must close.
    fn hold_partial(&mut self) -> bool {
        if self.receiving.hold(self.buf.len()) {
            return true;
        }
        Counters::add(&self.counters.receive_budget_exceeded, 1);
        debug!(buffered = self.buf.len(), "partly received message past the server's receiving budget; closing");
        false
    }

    /// Waits for more bytes, the deadline, a stop, or (when given) the last answer.
    async fn fill(&mut self, deadline: Option<Instant>, answered: Option<&Notify>) -> ReadEvent {
        crate::room::for_read(&mut self.buf);
        // The timer is moved earlier at once, later only when it goes off (below): most
        // waits come with a later deadline than the last, and then cost the timer nothing.
        if let Some(at) = deadline {
            if at < self.idle.deadline() {
                self.idle.as_mut().reset(at);
            }
        }
        let Reader { rd, buf, stop, watch_stop, force, idle, counters, .. } = self;
        let mut read = pin!(rd.read_buf(buf));
        let mut answered = pin!(answered.map(Notify::notified));
        poll_fn(|cx| {
            let signal = if *watch_stop { stop.poll(cx) } else { force.poll(cx) };
            if signal.is_ready() {
                return Poll::Ready(ReadEvent::Stopped);
            }
            if let Poll::Ready(read) = read.as_mut().poll(cx) {
                return Poll::Ready(match read {
                    Ok(0) => ReadEvent::Eof,
                    Ok(n) => {
                        Counters::add(&counters.bytes_in, n as u64);
                        ReadEvent::Data
                    }
                    Err(e) => ReadEvent::Failed(e),
                });
            }
            if let Some(at) = deadline {
                while idle.as_mut().poll(cx).is_ready() {
                    if idle.deadline() >= at {
                        return Poll::Ready(ReadEvent::Idle);
                    }
                    // Armed for an earlier wait's deadline: moved to this one's.
                    idle.as_mut().reset(at);
                }
            }
            match answered.as_mut().as_pin_mut().map(|notified| notified.poll(cx)) {
                Some(Poll::Ready(())) => Poll::Ready(ReadEvent::Answered),
                _ => Poll::Pending,
            }
        })
        .await
    }

    /// Reads until the first bytes tell the wire format. `None` when the connection ends
    /// first, times out, or is not Thrift; none of these is worth more than a debug line.
    async fn detect(&mut self, limits: &Limits) -> Option<Wire> {
        loop {
            if !self.buf.is_empty() {
                match detect(&self.buf, limits) {
                    Ok(Detection::Found(wire)) => return Some(wire),
                    Ok(Detection::NeedMore(_)) => {}
                    Err(e) => {
                        Counters::add(&self.counters.errors, 1);
                        debug!(%e, "not a Thrift connection; closing");
                        return None;
                    }
                }
            }
            match self.fill(self.deadline(), None).await {
                ReadEvent::Data | ReadEvent::Answered => {}
                ReadEvent::Eof if self.buf.is_empty() => {
                    debug!("closed by the peer before sending anything");
                    return None;
                }
                ReadEvent::Eof => {
                    debug!(buffered = self.buf.len(), "closed by the peer before its protocol could be told");
                    return None;
                }
                ReadEvent::Failed(e) => {
                    debug!(%e, "read failed before the first message");
                    return None;
                }
                ReadEvent::Idle => {
                    debug!(buffered = self.buf.len(), "read-idle timeout before the first message; closing");
                    return None;
                }
                ReadEvent::Stopped => return None,
            }
        }
    }
}

/// A connection past detection.
struct Connection<S> {
    /// What its requests' handling shares with it.
    replying: Arc<Replying>,
    /// The service, cloned for each request (tower's way: a clone is ready on its own).
    /// Only the reader task touches it; the lock makes the connection `Sync` without asking
    /// the service to be.
    service: std::sync::Mutex<S>,
    /// The peer, for the requests and their spans.
    peer: Peer,
    wire: Wire,
    /// Cancelled when the server stops or the writer fails: read no more requests.
    stop: CancellationToken,
    /// Tells the writer to write what is queued, close the write side and end.
    finish: CancellationToken,
}

/// What the handling of a request needs of its connection, shared by the reader and every
/// request in flight: one reference counted per request, not one per part.
struct Replying {
    shared: Arc<Shared>,
    /// Cancelled when the peer is gone (its stream ended without half-close allowed, a read
    /// or a write failed): its handlers still running are cancelled.
    gone: CancellationToken,
    /// Counts (and bounds) the requests handled at once.
    in_flight: InFlight,
    /// Bytes held in requests being handled and replies queued.
    budget: Arc<Budget>,
    /// To the writer.
    tx: Replies<Queued>,
}

impl<S: ThriftService> Connection<S> {
    /// Reads whole messages with `codec` and dispatches each, until the peer closes, the
    /// stream is corrupt, the read-idle timeout runs out or the server stops.
    async fn read_requests(&self, reader: &mut Reader<impl AsyncRead + Unpin>, mut codec: WireCodec) {
        self.read_until_stopped(reader, &mut codec).await;
        if self.draining() {
            self.drain(reader, &mut codec).await;
        }
    }

    /// Whether the server is shutting down gracefully (not past its deadline).
    fn draining(&self) -> bool {
        self.replying.shared.stop.is_cancelled() && !self.replying.shared.force.is_cancelled()
    }

    async fn read_until_stopped(&self, reader: &mut Reader<impl AsyncRead + Unpin>, codec: &mut WireCodec) {
        loop {
            // Before each turn; a request's dispatch looks again, and refuses it once the
            // server has stopped.
            if reader.stop.is_set() {
                return;
            }
            loop {
                match codec.decode(&mut reader.buf) {
                    Ok(Some(message)) => {
                        let arrived = reader.progress().into_std();
                        if !self.dispatch(message, arrived, reader.stop.is_set()).await {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => return self.corrupt(e),
                }
            }
            if !reader.hold_partial() {
                return;
            }
            // With nothing partly received and answers still owed, the peer is waiting on
            // us, not idle: the clock restarts when the last answer goes out.
            let waiting_on_us = reader.buf.is_empty() && self.replying.in_flight.any();
            let deadline = if waiting_on_us { None } else { reader.deadline() };
            match reader.fill(deadline, waiting_on_us.then_some(&self.replying.in_flight.idle)).await {
                ReadEvent::Data => {}
                ReadEvent::Answered => _ = reader.progress(),
                ReadEvent::Eof => {
                    loop {
                        match codec.decode_eof(&mut reader.buf) {
                            Ok(Some(message)) => {
                                let arrived = reader.progress().into_std();
                                if !self.dispatch(message, arrived, reader.stop.is_set()).await {
                                    return;
                                }
                            }
                            Ok(None) => break debug!("closed by the peer"),
                            Err(e) => break debug!(%e, "closed by the peer mid-message"),
                        }
                    }
                    return self.peer_closed();
                }
                ReadEvent::Failed(e) => {
                    self.replying.gone.cancel();
                    return debug!(%e, "read failed; closing");
                }
                ReadEvent::Idle => {
                    return debug!(buffered = reader.buf.len(), "read-idle timeout; closing");
                }
                ReadEvent::Stopped => return debug!("server stopping; draining"),
            }
        }
    }

    /// Shutdown without losing replies: requests read from now on are answered with
    /// [`SHUTTING_DOWN`] (retryable: they did not run) while the requests in flight finish;
    /// a short quiet spell after the last answer; then the write side closes after every
    /// answer, and the peer's leftover bytes are read and dropped until it closes (or
    /// [`LINGER`]), so the socket never closes on unread bytes, which would send a reset.
    async fn drain(&self, reader: &mut Reader<impl AsyncRead + Unpin>, codec: &mut WireCodec) {
        reader.watch_stop = false;
        // A connection that owes nothing, has nothing partly received and has been quiet
        // for a spell closes at once. One answered a moment ago is busy: its peer may be
        // sending the next call right now (closing under it would lose that call unanswered).
        let recent = reader.last_progress.elapsed() < DRAIN_QUIET;
        let mut busy = self.replying.in_flight.any() || !reader.buf.is_empty() || recent;
        let mut peer_closed = false;
        'drain: loop {
            loop {
                match codec.decode(&mut reader.buf) {
                    Ok(Some(message)) => {
                        busy = true;
                        if !self.refuse(message).await {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => return self.corrupt(e),
                }
            }
            if !reader.hold_partial() {
                return;
            }
            let owed = self.replying.in_flight.any();
            if !owed && !busy {
                break;
            }
            let quiet = (!owed).then(|| Instant::now() + DRAIN_QUIET);
            match reader.fill(quiet, owed.then_some(&self.replying.in_flight.idle)).await {
                ReadEvent::Data | ReadEvent::Answered => {}
                ReadEvent::Idle => break,
                ReadEvent::Eof => {
                    while let Ok(Some(message)) = codec.decode_eof(&mut reader.buf) {
                        if !self.refuse(message).await {
                            return;
                        }
                    }
                    peer_closed = true;
                    self.peer_closed();
                    // The peer may still read: wait for the answers owed to it.
                    while self.replying.in_flight.any() {
                        tokio::select! {
                            biased;
                            () = poll_fn(|cx| reader.force.poll(cx)) => return,
                            () = self.replying.in_flight.idle.notified() => {}
                        }
                    }
                    break 'drain;
                }
                ReadEvent::Failed(e) => {
                    self.replying.gone.cancel();
                    return debug!(%e, "read failed while draining");
                }
                ReadEvent::Stopped => return,
            }
        }
        self.finish.cancel();
        if peer_closed {
            return;
        }
        let until = Instant::now() + LINGER;
        loop {
            reader.buf.clear();
            match reader.fill(Some(until), None).await {
                ReadEvent::Data | ReadEvent::Answered => {}
                _ => return,
            }
        }
    }

    /// The peer's stream ended: unless half-close is allowed, it will read no replies, so
    /// its handlers still running are cancelled.
    fn peer_closed(&self) {
        if !self.replying.shared.config.half_close {
            self.replying.gone.cancel();
        }
    }

    /// Answers a request read during shutdown with [`SHUTTING_DOWN`] without running it.
    /// `false` when the connection must stop.
    async fn refuse(&self, (message, framing): (Bytes, Framing)) -> bool {
        let limits = self.replying.shared.config.limits;
        let Ok(incoming) = Request::framed_as(message, self.wire.protocol, framing, limits, std::time::Instant::now())
        else {
            Counters::add(&self.replying.shared.counters.errors, 1);
            return false;
        };
        self.answer_refused(&incoming).await
    }

    /// Answers `incoming` with [`SHUTTING_DOWN`]. `false` when the connection must stop.
    async fn answer_refused(&self, incoming: &Request) -> bool {
        Counters::add(&self.replying.shared.counters.requests_refused, 1);
        let exception = ApplicationException::new(ApplicationExceptionKind::Unknown, SHUTTING_DOWN);
        let Some(bytes) = incoming.exception(&exception).into_bytes() else { return true };
        tokio::select! {
            biased;
            _ = self.replying.shared.force.cancelled() => false,
            sent = self.replying.tx.send((bytes, None)) => sent.is_ok(),
        }
    }

    /// A stream that is no longer Thrift: the request's sequence id is unknown, so there is
    /// nothing to answer; the connection closes (after the answers already owed).
    fn corrupt(&self, e: TransportError) {
        Counters::add(&self.replying.shared.counters.errors, 1);
        debug!(%e, "undecodable stream; closing");
    }

    /// Starts handling one message, read when the connection had `stopped` reading or not.
    /// `false` when the connection must stop reading.
    async fn dispatch(&self, (message, framing): (Bytes, Framing), arrived: std::time::Instant, stopped: bool) -> bool {
        let shared = &self.replying.shared;
        let mut incoming = match Request::framed_as(message, self.wire.protocol, framing, shared.config.limits, arrived)
        {
            Ok(incoming) => incoming,
            Err(e) => {
                Counters::add(&shared.counters.errors, 1);
                debug!(%e, "undecodable message envelope; closing");
                return false;
            }
        };
        // Set in place: `with_peer` would move the whole request twice.
        incoming.peer = self.peer.clone();
        Counters::add(&shared.counters.requests, 1);
        // The request's bytes under the connection's budget, and its place among the
        // requests in flight: taken at once when free, as they nearly always are; else
        // waited for, boxed, so that only a request that waits carries the waits. A request
        // read after the stop takes the waiting path too, which answers it as refused: run,
        // its caller would not learn of the shutdown from its reply and could keep writing
        // calls to a connection about to stop reading.
        let fast = match stopped {
            true => None,
            false => {
                self.replying.budget.try_hold(incoming.message().len()).filter(|_| self.replying.in_flight.try_begin())
            }
        };
        let owed = match fast {
            Some(owed) => Some(owed),
            None => match Box::pin(self.wait_to_run(&incoming)).await {
                Some(owed) => owed,
                None => return false,
            },
        };
        Counters::add(&shared.counters.in_flight, 1);
        let span = tracing::debug_span!(
            "thrift_request",
            method = incoming.method(),
            seqid = incoming.seqid(),
            peer = %self.peer,
        );
        // Kept to answer for a handler that times out or panics.
        let answering = incoming.answering_copy();
        let handling = Handling::new(self.replying.clone(), owed, &incoming);
        // The handler runs here, on the connection's task, up to its first wait: most answer
        // before any, and then the request costs no task of its own (a spawn, and the wake-up
        // of another worker thread to run it, took 4 of the 10.7 µs of server CPU time per
        // pipelined call in rpc-compare). A service that is ready at once, as most are, is
        // called here too, and only its future is kept, boxed so that one that waits can go to
        // a task as it stands (a generated service's future is a box already: the request is
        // not moved again into a larger one). One that is not ready waits in that task.
        let mut service = self.service.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let ready = poll_fn(|cx| Poll::Ready(span.in_scope(|| catch_unwind(|| service.poll_ready(cx))))).await;
        let call = match ready {
            Ok(Poll::Ready(Ok(()))) => {
                // Entered rather than `in_scope`: a closure around this one would copy the
                // request once more.
                let called = {
                    let _in_span = span.enter();
                    catch_unwind(|| service.call(incoming))
                };
                match called {
                    Ok(call) => call,
                    Err(panic) => return self.settle(handling, &answering, Err(panic), span),
                }
            }
            Ok(Poll::Ready(Err(e))) => return self.settle(handling, &answering, Ok(Err(e.into())), span),
            Err(panic) => return self.settle(handling, &answering, Err(panic), span),
            Ok(Poll::Pending) => {
                return self.hand_off(handling, answering, CatchUnwind(Box::pin(ready_call(service, incoming))), span)
            }
        };
        let mut call = CatchUnwind(Box::pin(async move { call.await.map_err(Into::into) }));
        match poll_fn(|cx| Poll::Ready(span.in_scope(|| Pin::new(&mut call).poll(cx)))).await {
            Poll::Ready(outcome) => self.settle(handling, &answering, outcome, span),
            Poll::Pending => self.hand_off(handling, answering, call, span),
        }
    }

    /// Hands a request whose handler has yet to answer to a task of its own, which waits for
    /// `call` and answers. `true`, for [`Connection::dispatch`].
    fn hand_off<F>(&self, handling: Handling, answering: Request, call: CatchUnwind<F>, span: tracing::Span) -> bool
    where
        F: Future<Output = Result<Response, BoxError>> + Send + 'static,
    {
        self.replying.shared.tracker.spawn(handling.finish(answering, call).instrument(span));
        true
    }

    /// Answers a request whose handler gave its `outcome` at once: the reply queued in place,
    /// or (rarely: the queue is full) by a task. `true`, for [`Connection::dispatch`].
    fn settle(&self, mut handling: Handling, answering: &Request, outcome: Outcome, span: tracing::Span) -> bool {
        if let Some(unqueued) = handling.answer(answering, Some(outcome)) {
            let later = async move { handling.queue_later(unqueued).await };
            self.replying.shared.tracker.spawn(later.instrument(span));
        }
        true
    }

    /// Waits until `incoming`'s bytes fit under the connection's budget, then for its place
    /// among the requests in flight. `None` when the server stops first (a request that did
    /// not run is answered as refused while the server drains) or the connection must stop.
    /// The work comes before the stop in these waits, as in `Handling::wait_for` (work done at
    /// once never joins the stop's wait list), and a stop that came first is seen by the check.
    async fn wait_to_run(&self, incoming: &Request) -> Option<Option<Owed>> {
        let owed = tokio::select! {
            biased;
            owed = self.replying.budget.hold(incoming.message().len()) => Some(owed),
            _ = self.stop.cancelled() => None,
        };
        let stopped = self.stop.is_cancelled();
        tokio::select! {
            biased;
            () = self.replying.in_flight.begin(), if !stopped => Some(owed),
            _ = self.stop.cancelled() => {
                // Not run: answered as refused when the server is draining.
                if self.draining() {
                    Counters::sub(&self.replying.shared.counters.requests, 1);
                    let _ = self.answer_refused(incoming).await;
                }
                None
            }
        }
    }
}

/// One request being handled; its drop marks it answered.
struct Handling {
    replying: Arc<Replying>,
    /// The request's bytes under the budget, until its handler is done with them.
    request_bytes: Option<Owed>,
    /// Times the request until it is answered.
    #[cfg(feature = "metrics")]
    _timer: super::export::Timer,
}

/// What a handler's future gives: its response or error, or the panic it was stopped by.
type Outcome = Result<Result<Response, BoxError>, Box<dyn std::any::Any + Send>>;

/// A reply that could not be queued at once: it waits for room under the budget, or in
/// the writer's queue.
enum Unqueued {
    Bytes(Bytes),
    Held(Queued),
}

impl Handling {
    fn new(replying: Arc<Replying>, request_bytes: Option<Owed>, request: &Request) -> Handling {
        #[cfg(feature = "metrics")]
        let _timer = super::export::time(&replying.shared.counters, request.method());
        #[cfg(not(feature = "metrics"))]
        let _ = request;
        Handling {
            replying,
            request_bytes,
            #[cfg(feature = "metrics")]
            _timer,
        }
    }

    /// Waits for the handler that did not answer in its first poll (see [`Handling::wait_for`]),
    /// then answers as [`Handling::answer`] does; `request` is the copy of its request that
    /// answers for a handler that times out or panics.
    async fn finish<F>(mut self, request: Request, call: CatchUnwind<F>)
    where
        F: Future<Output = Result<Response, BoxError>>,
    {
        let outcome = match self.wait_for(call, request.kind()).await {
            Waited::Answered(outcome) => Some(outcome),
            Waited::TimedOut => None,
            Waited::Abandoned => return,
        };
        if let Some(unqueued) = self.answer(&request, outcome) {
            self.queue_later(unqueued).await;
        }
    }

    /// Answers `request` with its handler's `outcome` (`None`: the handler timed out): the
    /// reply, an exception for a failure, a timeout or a panic, queued for the writer at
    /// once when it fits, as most do; else handed back, to wait for with
    /// [`Handling::queue_later`].
    fn answer(&mut self, request: &Request, outcome: Option<Outcome>) -> Option<Unqueued> {
        let shared = &self.replying.shared;
        let reply = match outcome {
            None => {
                Counters::add(&shared.counters.handler_timeouts, 1);
                Counters::add(&shared.counters.errors, 1);
                let limit = shared.config.handler_timeout.unwrap_or_default();
                debug!(?limit, "handler ran past the handler timeout; cancelled");
                let message = format!("{} ran past the server's handler timeout of {limit:?}", request.method());
                request.failed(ApplicationExceptionKind::Timeout, message)
            }
            Some(Ok(Err(error))) => {
                Counters::add(&shared.counters.errors, 1);
                request.answer_failure(&error).into_bytes()
            }
            Some(Ok(Ok(reply))) => {
                let bytes = reply.into_bytes();
                if bytes.as_ref().is_some_and(|b| is_exception(b, request.protocol(), request.framing())) {
                    Counters::add(&shared.counters.errors, 1);
                }
                bytes
            }
            Some(Err(panic)) => {
                Counters::add(&shared.counters.errors, 1);
                error!(panic = panic_message(&*panic), "handler panicked; answering INTERNAL_ERROR");
                request.failed(
                    ApplicationExceptionKind::InternalError,
                    format!("internal error processing {}", request.method()),
                )
            }
        };
        self.request_bytes = None;
        let bytes = reply?;
        let Some(owed) = self.replying.budget.try_hold(bytes.len()) else { return Some(Unqueued::Bytes(bytes)) };
        match self.replying.tx.try_send((bytes, Some(owed))) {
            // Closed: the writer is gone, and so is the peer.
            Ok(()) | Err(TrySendError::Closed(_)) => None,
            Err(TrySendError::Full(reply)) => Some(Unqueued::Held(reply)),
        }
    }

    /// Waits for the answer of a handler that did not give it in its first poll, unless
    /// the shutdown deadline passes, the peer leaves (for a call: a oneway request's
    /// sender waits for nothing) or the handler timeout runs out first.
    async fn wait_for<F: Future>(
        &self,
        call: CatchUnwind<F>,
        kind: MessageType,
    ) -> Waited<<CatchUnwind<F> as Future>::Output> {
        let shared = &self.replying.shared;
        let cancellable = kind != MessageType::Oneway;
        let expired = async {
            match shared.config.handler_timeout {
                Some(t) => tokio::time::sleep(t).await,
                None => pending().await,
            }
        };
        // In these waits the work comes first and the signals after: work that is done at
        // once never puts its task on the signals' wait lists (a lock to join one and one to
        // leave; with 64 one-call connections the cancellation waits took 9.4% of the
        // server's perf samples, 6.9% after), and work that waits is still ended by them.
        tokio::select! {
            biased;
            outcome = call => Waited::Answered(outcome),
            // Past the shutdown deadline: abandoned, unanswered.
            _ = shared.force.cancelled() => Waited::Abandoned,
            _ = self.replying.gone.cancelled(), if cancellable => {
                Counters::add(&shared.counters.handlers_cancelled, 1);
                debug!("the peer is gone; handler cancelled");
                Waited::Abandoned
            }
            () = expired => Waited::TimedOut,
        }
    }

    /// Queues a reply that did not fit at once: waits while the peer leaves earlier replies
    /// unread, unless the shutdown deadline passes first.
    async fn queue_later(&self, unqueued: Unqueued) {
        let force = &self.replying.shared.force;
        let reply = match unqueued {
            Unqueued::Held(reply) => reply,
            Unqueued::Bytes(bytes) => {
                let owed = tokio::select! {
                    biased;
                    owed = self.replying.budget.hold(bytes.len()) => Some(owed),
                    _ = force.cancelled() => return,
                };
                (bytes, owed)
            }
        };
        tokio::select! {
            biased;
            _ = self.replying.tx.send(reply) => {}
            _ = force.cancelled() => {}
        }
    }
}

/// How a handler that did not answer at once ended.
enum Waited<T> {
    Answered(T),
    TimedOut,
    /// Cancelled, unanswered: the peer left, or the shutdown deadline passed.
    Abandoned,
}

impl Drop for Handling {
    fn drop(&mut self) {
        Counters::sub(&self.replying.shared.counters.in_flight, 1);
        self.replying.in_flight.end();
    }
}

/// What ends a connection's writer early, or tells it to finish.
struct WriterSignals {
    /// The shutdown deadline passed: stop at once.
    force: CancellationToken,
    /// Cancelled by the writer when a write fails, so the reader stops too.
    failed: CancellationToken,
    /// Cancelled with `failed`: the peer is gone, so are its handlers.
    gone: CancellationToken,
    /// Write what is queued, close the write side, end (the reader is draining at shutdown).
    finish: CancellationToken,
}

/// Writes replies as they come, gathering those that are ready into one socket write, until
/// every sender is gone or `finish` (then closes the write side) or the shutdown deadline
/// passes.
async fn write_replies(
    wr: impl AsyncWrite + Unpin,
    mut rx: Inbox<Queued>,
    counters: Arc<Counters>,
    signals: WriterSignals,
    write_timeout: Option<Duration>,
) {
    let mut out = BufWriter::with_capacity(WRITE_BUFFER, wr);
    // A write that makes no progress in time: the peer is not reading.
    let counters = &counters;
    let timed = |step: &'static str| {
        move |e: tokio::time::error::Elapsed| {
            Counters::add(&counters.write_timeouts, 1);
            io::Error::new(io::ErrorKind::TimedOut, format!("{step} stalled past the write timeout ({e})"))
        }
    };
    async fn bounded<F: Future<Output = io::Result<()>>>(
        limit: Option<Duration>,
        write: F,
        on_timeout: impl FnOnce(tokio::time::error::Elapsed) -> io::Error,
    ) -> io::Result<()> {
        let Some(limit) = limit else { return write.await };
        let mut write = std::pin::pin!(write);
        // Most writes finish at once (the socket has room): they need no timer.
        if let Poll::Ready(done) = poll_fn(|cx| Poll::Ready(write.as_mut().poll(cx))).await {
            return done;
        }
        tokio::time::timeout(limit, write).await.map_err(on_timeout)?
    }
    let written = async {
        let mut finishing = false;
        // Kept across the waits for a reply, as the reader's signals are.
        let mut finish = Signal::new(signals.finish.clone());
        loop {
            let reply = tokio::select! {
                biased;
                reply = rx.recv() => reply,
                // Nothing more will be sent: what is queued is written, then the loop ends.
                () = poll_fn(|cx| finish.poll(cx)), if !finishing => {
                    finishing = true;
                    rx.close();
                    continue;
                }
            };
            let Some((reply, owed)) = reply else { break };
            bounded(write_timeout, out.write_all(&reply), timed("writing a reply")).await?;
            Counters::add(&counters.bytes_out, reply.len() as u64);
            if rx.is_empty() {
                bounded(write_timeout, out.flush(), timed("writing replies")).await?;
            }
            drop(owed);
        }
        bounded(write_timeout, out.shutdown(), timed("closing")).await
    };
    // A `Signal`: the writer is polled once a reply or more, and a fresh cancellation wait
    // would look at the token's wait list on every poll.
    let mut force = Signal::new(signals.force.clone());
    let result = tokio::select! {
        biased;
        () = poll_fn(|cx| force.poll(cx)) => return,
        result = written => result,
    };
    if let Err(e) = result {
        debug!(%e, "writing replies failed; closing");
        signals.failed.cancel();
        signals.gone.cancel();
    }
}
