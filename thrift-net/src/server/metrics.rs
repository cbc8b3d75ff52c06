//! The server's counters: plain atomics the connection tasks bump and the handle reads.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use thrift_core::MessageType;

use crate::framing::Framing;
use crate::wire::ProtocolKind;

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
    /// request answered [`AT_CAPACITY`](crate::server::AT_CAPACITY) where it could be read).
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
    /// [`SHUTTING_DOWN`](crate::server::SHUTTING_DOWN) exception instead of being run.
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

/// One live counter: an atomic the snapshot reads and, with the `metrics` feature, the
/// facade handle it moves in step.
#[derive(Debug, Default)]
pub(crate) struct Stat {
    value: AtomicU64,
    #[cfg(feature = "metrics")]
    export: super::export::Handle,
}

impl Stat {
    #[cfg(feature = "metrics")]
    fn exported(export: super::export::Handle) -> Self {
        Stat { value: AtomicU64::new(0), export }
    }

    fn load(&self) -> u64 {
        self.value.load(Relaxed)
    }
}

/// The live counters behind [`Metrics`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub connections: Stat,
    pub connections_accepted: Stat,
    pub connections_rejected: Stat,
    pub requests: Stat,
    pub in_flight: Stat,
    pub errors: Stat,
    pub bytes_in: Stat,
    pub bytes_out: Stat,
    pub requests_refused: Stat,
    pub bytes_pending: Stat,
    pub write_timeouts: Stat,
    pub bytes_receiving: Stat,
    pub receive_budget_exceeded: Stat,
    pub handler_timeouts: Stat,
    pub handlers_cancelled: Stat,
    /// Request durations by method.
    #[cfg(feature = "metrics")]
    pub durations: super::export::Durations,
}

impl Counters {
    /// The counters of a new server, registered with the facade under its labels.
    pub fn new(config: &super::config::ServerConfig) -> Self {
        #[cfg(feature = "metrics")]
        {
            use super::export::Handle;
            use crate::metrics_names as n;
            let labels = super::export::labels(&config.metrics_labels);
            let labels = &labels[..];
            Counters {
                connections: Stat::exported(Handle::gauge(n::SERVER_CONNECTIONS, labels)),
                connections_accepted: Stat::exported(Handle::counter(n::SERVER_CONNECTIONS_ACCEPTED_TOTAL, labels)),
                connections_rejected: Stat::exported(Handle::counter(n::SERVER_CONNECTIONS_REJECTED_TOTAL, labels)),
                requests: Stat::exported(Handle::counter(n::SERVER_REQUESTS_TOTAL, labels)),
                in_flight: Stat::exported(Handle::gauge(n::SERVER_IN_FLIGHT, labels)),
                errors: Stat::exported(Handle::counter(n::SERVER_ERRORS_TOTAL, labels)),
                bytes_in: Stat::exported(Handle::counter(n::SERVER_RECEIVED_BYTES_TOTAL, labels)),
                bytes_out: Stat::exported(Handle::counter(n::SERVER_SENT_BYTES_TOTAL, labels)),
                requests_refused: Stat::exported(Handle::counter(n::SERVER_REQUESTS_REFUSED_TOTAL, labels)),
                bytes_pending: Stat::exported(Handle::gauge(n::SERVER_PENDING_BYTES, labels)),
                write_timeouts: Stat::exported(Handle::counter(n::SERVER_WRITE_TIMEOUTS_TOTAL, labels)),
                bytes_receiving: Stat::exported(Handle::gauge(n::SERVER_RECEIVING_BYTES, labels)),
                receive_budget_exceeded: Stat::exported(Handle::counter(
                    n::SERVER_RECEIVE_BUDGET_EXCEEDED_TOTAL,
                    labels,
                )),
                handler_timeouts: Stat::exported(Handle::counter(n::SERVER_HANDLER_TIMEOUTS_TOTAL, labels)),
                handlers_cancelled: Stat::exported(Handle::counter(n::SERVER_HANDLERS_CANCELLED_TOTAL, labels)),
                durations: super::export::Durations::new(labels),
            }
        }
        #[cfg(not(feature = "metrics"))]
        {
            let _ = config;
            Counters::default()
        }
    }

    pub fn snapshot(&self) -> Metrics {
        Metrics {
            connections: self.connections.load(),
            connections_accepted: self.connections_accepted.load(),
            connections_rejected: self.connections_rejected.load(),
            requests: self.requests.load(),
            in_flight: self.in_flight.load(),
            errors: self.errors.load(),
            bytes_in: self.bytes_in.load(),
            bytes_out: self.bytes_out.load(),
            requests_refused: self.requests_refused.load(),
            bytes_pending: self.bytes_pending.load(),
            write_timeouts: self.write_timeouts.load(),
            bytes_receiving: self.bytes_receiving.load(),
            receive_budget_exceeded: self.receive_budget_exceeded.load(),
            handler_timeouts: self.handler_timeouts.load(),
            handlers_cancelled: self.handlers_cancelled.load(),
        }
    }

    pub fn add(counter: &Stat, n: u64) {
        counter.value.fetch_add(n, Relaxed);
        #[cfg(feature = "metrics")]
        counter.export.add(n);
    }

    pub fn sub(counter: &Stat, n: u64) {
        counter.value.fetch_sub(n, Relaxed);
        #[cfg(feature = "metrics")]
        counter.export.sub(n);
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
        ProtocolKind::Json => reply.get(at..).is_some_and(|m| {
            let mut r = thrift_core::Reader::new(m);
            thrift_core::json::read_message_begin(&mut r).is_ok_and(|h| h.kind == MessageType::Exception)
        }),
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
        Request::framed_as(Bytes::from(buf), protocol, framing, Limits::default(), std::time::Instant::now()).unwrap()
    }

    fn framings(protocol: ProtocolKind) -> Vec<Framing> {
        let header = |format, nested, framed_payload| {
            let mut headers = Headers::new();
            headers.insert("k", "v");
            let info = FrameInfo { format, flags: 1, seqid: 1, protocol, zlib: false, nested, framed_payload, headers };
            Framing::Header(info)
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
