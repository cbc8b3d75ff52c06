//! Turning a connection away at the connection limit with an answer a client can act on:
//! the first request is read (within small bounds) and answered with the retryable
//! [`AT_CAPACITY`] exception, so a pool tells "full" from "down" and tries elsewhere at
//! once, instead of reading a bare close as a failed call.

use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use thrift_core::{ApplicationException, ApplicationExceptionKind, Limits};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;
use tokio_util::codec::Decoder;
use tracing::debug;

use super::bind::Shared;
use super::codec::WireCodec;
use super::{Request, AT_CAPACITY};
use crate::detect::{detect, Detection};

/// Connections being turned away at once; past it they are closed without an answer.
pub(crate) const MAX_REJECTING: usize = 64;
/// The most of a turned-away connection's first request that is read.
const MAX_REQUEST: usize = 64 * 1024;
/// How long a turned-away connection may take to send its first request and then close.
const WINDOW: Duration = Duration::from_secs(1);

/// Answers the first request of `stream` with [`AT_CAPACITY`] and closes, within
/// [`WINDOW`] and [`MAX_REQUEST`]; anything else (not Thrift, too large, too slow) is
/// closed without an answer. `_slot` is its place under [`MAX_REJECTING`].
pub(crate) async fn at_capacity<IO: AsyncRead + AsyncWrite + Unpin>(
    mut stream: IO,
    shared: Arc<Shared>,
    _slot: OwnedSemaphorePermit,
) {
    let until = Instant::now() + WINDOW;
    let limits = Limits { max_frame_len: MAX_REQUEST, max_message_len: MAX_REQUEST, ..shared.config.limits };
    let answered = tokio::select! {
        biased;
        _ = shared.force.cancelled() => return,
        answered = tokio::time::timeout_at(until, answer(&mut stream, &limits)) => answered,
    };
    match answered {
        Ok(Some(reply)) => {
            if stream.write_all(&reply).await.is_err() || stream.shutdown().await.is_err() {
                return;
            }
            // Read what else the peer sent until it closes: closing on unread bytes would
            // send a reset, which can destroy the answer before the peer reads it.
            let mut sink = [0u8; 1024];
            let drained = async { while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {} };
            let _ = tokio::time::timeout_at(until.max(Instant::now()) + WINDOW, drained).await;
        }
        Ok(None) => debug!("turned away at the connection limit without an answer (not a readable call)"),
        Err(_) => debug!("turned away at the connection limit: no whole request in time"),
    }
}

/// Reads the first request and encodes the answer to it; `None` when there is none to give.
async fn answer(stream: &mut (impl AsyncRead + Unpin), limits: &Limits) -> Option<Bytes> {
    let mut buf = BytesMut::with_capacity(1024);
    let wire = loop {
        if stream.read_buf(&mut buf).await.ok()? == 0 {
            return None;
        }
        match detect(&buf, limits).ok()? {
            Detection::Found(wire) => break wire,
            Detection::NeedMore(_) => {}
        }
    };
    // One codec for the whole request: the buffered one resumes where it stopped.
    let mut codec = WireCodec::new(wire, limits);
    let (message, framing) = loop {
        if let Some(received) = codec.decode(&mut buf).ok()? {
            break received;
        }
        if buf.len() >= MAX_REQUEST || stream.read_buf(&mut buf).await.ok()? == 0 {
            return None;
        }
    };
    let incoming = Request::framed_as(message, wire.protocol, framing, *limits, std::time::Instant::now()).ok()?;
    let exception = ApplicationException::new(ApplicationExceptionKind::Unknown, AT_CAPACITY);
    incoming.exception(&exception).into_bytes()
}
