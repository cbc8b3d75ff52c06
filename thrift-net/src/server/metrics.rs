//! The server's counters: plain atomics the connection tasks bump and the handle reads.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use thrift_core::MessageType;

use crate::detect::ProtocolKind;
use crate::framing::Framing;

/// A snapshot of a server's counters, from [`ServerHandle::metrics`](super::ServerHandle::metrics).
///
/// Each field is read on its own, so a snapshot taken while requests run may be a few
/// increments apart between fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Metrics {
    /// Connections open now.
    pub connections: u64,
    /// Connections accepted since the server started (rejected ones excluded).
    pub connections_accepted: u64,
    /// Connections turned away because the server was at its connection limit (their first
    /// request answered [`AT_CAPACITY`](crate::AT_CAPACITY) where it could be read).
    pub connections_rejected: u64,
    /// Requests received (calls and oneway messages whose envelope could be read).
    pub requests: u64,
    /// Requests being handled now.
    pub in_flight: u64,
    /// Requests answered with a `TApplicationException` (unknown method, undecodable
    /// arguments, a handler's application error, a panic), panicking oneway handlers, and
    /// connections dropped because their bytes were not Thrift.
    pub errors: u64,
    /// Bytes read from sockets.
    pub bytes_in: u64,
    /// Bytes written to sockets.
    pub bytes_out: u64,
    /// Requests read after shutdown began, answered with the retryable
    /// [`SHUTTING_DOWN`](crate::SHUTTING_DOWN) exception instead of being run.
    pub requests_refused: u64,
    /// Bytes held now, over all connections, in requests being handled and replies not yet
    /// written (each connection's share is bounded by
    /// [`ServerBuilder::max_pending_bytes_per_connection`](super::ServerBuilder::max_pending_bytes_per_connection)).
    pub bytes_pending: u64,
    /// Connections closed because a write made no progress within the write timeout (a
    /// peer not reading its replies).
    pub write_timeouts: u64,
    /// Bytes held now, over all connections, in messages partly received (bounded by
    /// [`ServerBuilder::max_receiving_bytes`](super::ServerBuilder::max_receiving_bytes)).
    pub bytes_receiving: u64,
    /// Connections closed because their partly received message would have taken the
    /// server past [`ServerBuilder::max_receiving_bytes`](super::ServerBuilder::max_receiving_bytes).
    pub receive_budget_exceeded: u64,
    /// Handlers cancelled because they ran past
    /// [`ServerBuilder::handler_timeout`](super::ServerBuilder::handler_timeout) (each call
    /// answered `INTERNAL_ERROR`).
    pub handler_timeouts: u64,
    /// Handlers cancelled because their peer closed or lost its connection (see
    /// [`ServerBuilder::half_close`](super::ServerBuilder::half_close)).
    pub handlers_cancelled: u64,
}

/// The live counters behind [`Metrics`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub connections: AtomicU64,
    pub connections_accepted: AtomicU64,
    pub connections_rejected: AtomicU64,
    pub requests: AtomicU64,
    pub in_flight: AtomicU64,
    pub errors: AtomicU64,
    pub bytes_in: AtomicU64,
    pub bytes_out: AtomicU64,
    pub requests_refused: AtomicU64,
    pub bytes_pending: AtomicU64,
    pub write_timeouts: AtomicU64,
    pub bytes_receiving: AtomicU64,
    pub receive_budget_exceeded: AtomicU64,
    pub handler_timeouts: AtomicU64,
    pub handlers_cancelled: AtomicU64,
}

impl Counters {
    pub fn snapshot(&self) -> Metrics {
        Metrics {
            connections: self.connections.load(Relaxed),
            connections_accepted: self.connections_accepted.load(Relaxed),
            connections_rejected: self.connections_rejected.load(Relaxed),
            requests: self.requests.load(Relaxed),
            in_flight: self.in_flight.load(Relaxed),
            errors: self.errors.load(Relaxed),
            bytes_in: self.bytes_in.load(Relaxed),
            bytes_out: self.bytes_out.load(Relaxed),
            requests_refused: self.requests_refused.load(Relaxed),
            bytes_pending: self.bytes_pending.load(Relaxed),
            write_timeouts: self.write_timeouts.load(Relaxed),
            bytes_receiving: self.bytes_receiving.load(Relaxed),
            receive_budget_exceeded: self.receive_budget_exceeded.load(Relaxed),
            handler_timeouts: self.handler_timeouts.load(Relaxed),
            handlers_cancelled: self.handlers_cancelled.load(Relaxed),
        }
    }

    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Relaxed);
    }

    pub fn sub(counter: &AtomicU64, n: u64) {
        counter.fetch_sub(n, Relaxed);
    }
}

/// Whether an encoded reply is an `EXCEPTION` message, read from its envelope's type byte
/// (the server writes binary envelopes strict, so the type sits at a fixed place).
pub(crate) fn is_exception(reply: &[u8], protocol: ProtocolKind, framing: &Framing) -> bool {
    let Some(at) = framing.message_offset(reply) else { return false };
    let exception = MessageType::Exception as u8;
    match protocol {
        ProtocolKind::Binary | ProtocolKind::BinaryNonStrict => reply.get(at + 3) == Some(&exception),
        ProtocolKind::Compact => reply.get(at + 1).is_some_and(|b| b >> 5 == exception),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use thrift_core::{ApplicationException, ApplicationExceptionKind, Limits, MessageHeader};

    use crate::header::{Format, FrameInfo, Headers};
    use crate::message::Message;
    use crate::server::Request;

    fn request(protocol: ProtocolKind, framing: Framing) -> Request {
        let header = MessageHeader { name: "m", kind: MessageType::Call, seqid: 1 };
        let mut buf = Vec::new();
        match protocol {
            ProtocolKind::Compact => Message::new(header, &0i32).encode::<thrift_core::Compact, _>(&mut buf),
            _ => Message::new(header, &0i32).encode::<thrift_core::Binary, _>(&mut buf),
        }
        Request::framed_as(Bytes::from(buf), protocol, framing, Limits::default()).unwrap()
    }

    fn framings(protocol: ProtocolKind) -> Vec<Framing> {
        let header = |format, nested, framed_payload| {
            let mut headers = Headers::new();
            headers.insert("k", "v");
            let info = FrameInfo { format, flags: 1, seqid: 1, protocol, zlib: false, nested, framed_payload, headers };
            Framing::Header(std::sync::Arc::new(info))
        };
        vec![
            Framing::Bare,
            Framing::Framed,
            header(Format::THeader, false, false),
            header(Format::TTHeader, false, false),
            header(Format::THeader, true, false),
            header(Format::TTHeader, false, true),
        ]
    }

    #[test]
    fn tells_exceptions_from_replies_in_every_protocol_and_transport() {
        for protocol in [ProtocolKind::Binary, ProtocolKind::BinaryNonStrict, ProtocolKind::Compact] {
            for framing in framings(protocol) {
                let req = request(protocol, framing.clone());
                let exc = ApplicationException::new(ApplicationExceptionKind::InternalError, "x");
                let bytes = req.exception(&exc).into_bytes().unwrap();
                assert!(is_exception(&bytes, protocol, &framing), "{protocol:?} {framing:?}");
                let bytes = req.reply(&5i32).into_bytes().unwrap();
                assert!(!is_exception(&bytes, protocol, &framing), "{protocol:?} {framing:?}");
            }
        }
        assert!(!is_exception(&[], ProtocolKind::Compact, &Framing::Framed));
    }
}
