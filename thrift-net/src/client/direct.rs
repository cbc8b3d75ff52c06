//! A connection that carries one call at a time, driven by its caller: the caller writes
//! the call and reads the reply itself, with no task between it and the socket. What an
//! exclusive pool lends: a call on a pipelining [`Client`](super::Client) wakes its writer
//! task, its reader task and then the caller (three hand-offs through channels), where here
//! the caller's own task does the write and the read.
//!
//! The rules are the pipelining client's (the same reply checks, limits, headers and
//! timeout), with one more: a call that did not end with its reply (a timeout, an error,
//! its future dropped midway) leaves the connection closed, as a late reply could still
//! come.

use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{ready, Context, Poll};

use bytes::BytesMut;
use thrift_core::MessageType;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::ToSocketAddrs;
use tokio::time::{Instant, Sleep};
use tracing::Instrument;

use super::connection::{self, Closed, Incoming, ReplyDecoder};
use super::{dial, encode, with_deadline, ClientConfig};
use crate::channel::{Call, CallError, CallSite, Reply};
use crate::error::TransportError;
use crate::header::Headers;
use crate::server::Peer;

type WriteHalf = Box<dyn AsyncWrite + Unpin + Send>;

/// The largest encode buffer a connection keeps between calls.
const KEEP_OUT: usize = 64 * 1024;

/// The read half: a TCP socket's own, which can be looked at without registering a waker,
/// or any other stream's (TLS, zlib).
enum ReadHalf {
    Tcp(OwnedReadHalf),
    #[cfg(any(feature = "tls", feature = "zlib"))]
    Other(Box<dyn AsyncRead + Unpin + Send>),
}

impl AsyncRead for ReadHalf {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ReadHalf::Tcp(rd) => Pin::new(rd).poll_read(cx, buf),
            #[cfg(any(feature = "tls", feature = "zlib"))]
            ReadHalf::Other(rd) => Pin::new(rd).poll_read(cx, buf),
        }
    }
}

/// One connection, one call at a time (see the module's docs).
///
/// One pointer: a pool moves its connections in and out of its queue on every call.
#[derive(Debug)]
pub(crate) struct Direct(Box<State>);

struct State {
    config: ClientConfig,
    peer: Option<Peer>,
    /// The deadline header each call carries on a header transport.
    headers: Option<Arc<Headers>>,
    /// In a mutex only so that [`Direct::is_closed`] can look at an idle connection through
    /// a shared reference; calls reach it through `&mut self`, without locking.
    io: Mutex<Io>,
    /// The call timeout's timer, made by the first call and kept: a timer per call would be
    /// put in and taken out of tokio's wheel under a lock.
    timer: Option<Pin<Box<Sleep>>>,
    next_seqid: i32,
    /// Set from a call's start until its reply is in, and for good after a failure.
    broken: bool,
}

struct Io {
    rd: ReadHalf,
    wr: WriteHalf,
    buf: BytesMut,
    /// Each call is encoded here: one buffer for the connection's life, not one per call.
    out: BytesMut,
    decoder: ReplyDecoder,
    /// A look since the last call found the connection quiet: the next call need not look
    /// again (a checkout's test comes right before it).
    quiet: bool,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Direct").field("peer", &self.peer).field("broken", &self.broken).finish_non_exhaustive()
    }
}

impl Direct {
    /// Connects to `addr` as [`Client::connect`](super::Client::connect) does.
    pub async fn connect(addr: impl ToSocketAddrs, config: ClientConfig) -> Result<Direct, TransportError> {
        let (stream, peer) = dial(addr, &config).await?;
        let (rd, wr) = stream.into_split();
        Ok(Direct::from_halves(ReadHalf::Tcp(rd), Box::new(wr), config, peer))
    }

    /// Connects to `addr` over TLS as [`Client::connect_tls`](super::Client::connect_tls) does.
    #[cfg(feature = "tls")]
    pub async fn connect_tls(
        addr: impl ToSocketAddrs,
        server_name: &str,
        tls: crate::tls::TlsConnector,
        config: ClientConfig,
    ) -> Result<Direct, TransportError> {
        let (stream, peer) = super::dial_tls(addr, server_name, tls, &config).await?;
        let (rd, wr) = tokio::io::split(stream);
        Ok(Direct::from_halves(ReadHalf::Other(Box::new(rd)), Box::new(wr), config, peer))
    }

    fn from_halves(rd: ReadHalf, wr: WriteHalf, config: ClientConfig, peer: Option<Peer>) -> Direct {
        #[cfg(feature = "zlib")]
        let (rd, wr): (ReadHalf, WriteHalf) = match config.zlib {
            true => (
                ReadHalf::Other(Box::new(crate::zlib::ZlibReader::new(rd))),
                Box::new(crate::zlib::ZlibWriter::new(wr)),
            ),
            false => (rd, wr),
        };
        let io = Io {
            rd,
            wr,
            buf: BytesMut::new(),
            out: BytesMut::new(),
            decoder: ReplyDecoder::new(&config),
            quiet: false,
        };
        let headers = with_deadline(&config, None, config.call_timeout);
        Direct(Box::new(State { config, peer, headers, io: Mutex::new(io), timer: None, next_seqid: 1, broken: false }))
    }

    /// Whether the connection can take no more calls: a call failed or was abandoned on it,
    /// or (looked at without a round trip, and without waiting) the server closed it or sent
    /// what no call asked for.
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }

    /// Whether a call failed or was abandoned on it (no look at the socket).
    pub fn is_broken(&self) -> bool {
        self.0.broken
    }

    /// Sends `call` and waits for its reply (`None` for a oneway message, once written),
    /// within [`ClientConfig::call_timeout`] from `now` (the clock is read when `None`: a
    /// pool passes the time it checked the connection out at).
    ///
    /// # Errors
    /// Those of [`Client::send`](super::Client::send).
    pub async fn send(&mut self, call: &Call, now: Option<std::time::Instant>) -> Result<Option<Reply>, CallError> {
        self.0.send(call, now).await
    }
}

impl State {
    fn is_closed(&self) -> bool {
        if self.broken {
            return true;
        }
        // Held only by a call, which `&self` rules out; but a look never waits.
        self.io.try_lock().is_ok_and(|mut io| {
            let done = io.peer_done();
            io.quiet = !done;
            done
        })
    }

    async fn send(&mut self, call: &Call, now: Option<std::time::Instant>) -> Result<Option<Reply>, CallError> {
        let span = tracing::debug_span!("thrift_call", method = call.method(), seqid = self.next_seqid);
        let sent = match self.config.call_timeout {
            Some(limit) => {
                let deadline = now.map_or_else(Instant::now, Instant::from_std) + limit;
                let mut timer = self.timer.take().unwrap_or_else(|| Box::pin(tokio::time::sleep_until(deadline)));
                // The timer stays armed for an earlier call's deadline (a call's own is never
                // earlier): it is moved along only when it goes off, which it does at most
                // once a `call_timeout`, not once a call.
                let expired = poll_fn(|cx| loop {
                    ready!(timer.as_mut().poll(cx));
                    if timer.deadline() >= deadline {
                        return Poll::Ready(());
                    }
                    timer.as_mut().reset(deadline);
                });
                let sent = tokio::select! {
                    biased;
                    sent = self.exchange(call).instrument(span) => sent,
                    () = expired => Err(CallError::Timeout(Some(limit), CallSite::default())),
                };
                self.timer = Some(timer);
                sent
            }
            None => self.exchange(call).instrument(span).await,
        };
        let peer = self.peer.as_ref();
        match sent {
            Ok(reply) => Ok(reply.map(|reply| reply.with_known_peer(peer))),
            Err(e) => Err(e.located(&call.site().at_known(peer))),
        }
    }

    async fn exchange(&mut self, call: &Call) -> Result<Option<Reply>, CallError> {
        let io = self.io.get_mut().unwrap_or_else(PoisonError::into_inner);
        if self.broken {
            return Err(Closed::new(io::ErrorKind::NotConnected, "connection closed after a failed call").not_sent());
        }
        // Closed by the server while idle (its idle timeout, a restart): nothing is sent,
        // and a pool sends the call again on another connection.
        if !std::mem::take(&mut io.quiet) && io.peer_done() {
            self.broken = true;
            return Err(Closed::new(io::ErrorKind::UnexpectedEof, "connection closed by the server").not_sent());
        }
        let seqid = self.next_seqid;
        self.next_seqid = seqid.checked_add(1).unwrap_or(1);
        let kind = if call.is_oneway() { MessageType::Oneway } else { MessageType::Call };
        let headers = self.headers.as_deref().unwrap_or(Headers::none());
        io.out.clear();
        encode(&self.config, headers, call, kind, seqid, &mut io.out)?;
        // Until the reply is in: a call that stops midway leaves the connection unusable.
        self.broken = true;
        // A failed write leaves the message incomplete at the server, which runs nothing of
        // it: the call was not sent.
        let (wr, out) = (&mut io.wr, &io.out);
        let written = async move {
            wr.write_all(out).await?;
            wr.flush().await
        };
        written.await.map_err(|e| Closed::new(e.kind(), format!("writing to the server failed: {e}")).not_sent())?;
        // Kept for the next call, unless a large message left it large.
        if io.out.capacity() > KEEP_OUT {
            io.out = BytesMut::new();
        }
        if call.is_oneway() {
            self.broken = false;
            return Ok(None);
        }
        let incoming = io.next_reply().await.map_err(|closed| closed.error())?;
        let header = connection::envelope(&incoming.message, &self.config).map_err(|closed| closed.error())?;
        if header.parts.seqid != seqid {
            return Err(Closed::unknown_seqid(header.parts.seqid).error());
        }
        let wrong_name = connection::wrong_name(header.name, call.service(), call.method());
        let parts = header.parts;
        let (outcome, refused) = connection::judge(incoming, parts, wrong_name, &self.config);
        // More than the one reply asked for, or a server that takes no more calls here.
        self.broken = refused.is_some() || !io.buf.is_empty();
        outcome.map(Some)
    }
}

impl Io {
    /// Whether the server closed the connection or sent something unasked, looked at
    /// without waiting (and without a system call, unless the socket was last seen ready).
    fn peer_done(&mut self) -> bool {
        let mut byte = [0; 1];
        match &mut self.rd {
            // The socket's readiness alone, with no waker to register: nothing to read, as
            // it should be between calls, is `WouldBlock`.
            ReadHalf::Tcp(rd) => !matches!(rd.try_read(&mut byte), Err(e) if e.kind() == io::ErrorKind::WouldBlock),
            #[cfg(any(feature = "tls", feature = "zlib"))]
            ReadHalf::Other(rd) => {
                let mut probe = ReadBuf::new(&mut byte);
                let mut cx = Context::from_waker(noop_waker());
                // Pending: nothing to read.
                Pin::new(rd).poll_read(&mut cx, &mut probe).is_ready()
            }
        }
    }

    /// Reads until one whole reply is in.
    async fn next_reply(&mut self) -> Result<Incoming, Closed> {
        loop {
            match self.decoder.decode(&mut self.buf) {
                Ok(Some(incoming)) => return Ok(incoming),
                Ok(None) => {}
                Err(e) => return Err(connection::undecodable(&e)),
            }
            crate::room::for_read(&mut self.buf);
            match self.rd.read_buf(&mut self.buf).await {
                Ok(0) => return Err(connection::closed_by_server(self.buf.len())),
                Ok(_) => {}
                Err(e) => return Err(connection::read_failed(&e)),
            }
        }
    }
}

/// A waker that does nothing, for a look that does not wait (`Waker::noop` once the
/// minimum Rust version has it).
#[cfg(any(feature = "tls", feature = "zlib"))]
fn noop_waker() -> &'static std::task::Waker {
    use std::sync::OnceLock;
    use std::task::{Wake, Waker};
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    static NOOP: OnceLock<Waker> = OnceLock::new();
    NOOP.get_or_init(|| Waker::from(Arc::new(Noop)))
}
