//! One request as a service receives it: the message, its envelope read, and the context it
//! came in (peer, transport, protocol, headers, arrival, deadline).

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use thrift_core::{DecodeOwned, Limits, MessageType, SharedStr};

use super::peer::Peer;
use crate::framing::Framing;
use crate::header::{ttheader_keys, Headers};
use crate::message::read_envelope;
use crate::protocol::with_protocol;
use crate::wire::{ProtocolKind, Transport};

/// One request as a service receives it: the whole message, its envelope read, and its
/// context: where it came from ([`Request::peer`]), on what ([`Request::transport`],
/// [`Request::protocol`], [`Request::headers`]), when ([`Request::arrived`]) and by when
/// its caller wants the answer ([`Request::deadline`]).
///
/// Middleware (tower layers on the [`Server`](crate::Server)) sees it whole; a handler sees
/// it by taking a `#[thrift(context)] request: &Request` argument (see
/// [`service`](crate::service)).
#[derive(Clone, Debug)]
pub struct Request {
    pub(super) message: Bytes,
    pub(super) protocol: ProtocolKind,
    pub(super) framing: Framing,
    pub(super) kind: MessageType,
    pub(super) seqid: i32,
    /// The name the message carries, checked once as it is read (the dispatch and the reply
    /// each read it again), and where the method starts in it, past a multiplexed `Service:`
    /// prefix.
    pub(super) name: SharedStr,
    pub(super) method_at: usize,
    pub(super) body_start: usize,
    pub(super) limits: Limits,
    pub(super) peer: Peer,
    pub(super) arrived: Instant,
    pub(super) reply_headers: ReplyHeaders,
}

/// The headers a handler sets for its reply's frame, through the `&Request` it is given.
/// Boxed when there are any: most replies have none.
#[derive(Debug, Default)]
pub(super) struct ReplyHeaders(Mutex<Option<Box<Headers>>>);

impl ReplyHeaders {
    fn lock(&self) -> MutexGuard<'_, Option<Box<Headers>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The headers set so far.
    pub(super) fn take(&self) -> Option<Box<Headers>> {
        self.lock().take()
    }
}

impl Clone for ReplyHeaders {
    fn clone(&self) -> Self {
        ReplyHeaders(Mutex::new(self.lock().clone()))
    }
}

/// What a request's envelope says, as [`Request`] keeps it.
struct Envelope {
    kind: MessageType,
    seqid: i32,
    name: SharedStr,
    method_at: usize,
    body_start: usize,
}

impl Envelope {
    fn read(message: &Bytes, protocol: ProtocolKind, limits: Limits) -> thrift_core::Result<Envelope> {
        let (header, body_start) = read_envelope(message, protocol, limits)?;
        let name = shared_name(message, header.name);
        let method_at = name.find(':').map_or(0, |colon| colon + 1);
        Ok(Envelope { kind: header.kind, seqid: header.seqid, name, method_at, body_start })
    }
}

/// fbthrift's THeader key for the caller's timeout, in milliseconds.
pub const CLIENT_TIMEOUT: &str = "client_timeout";

impl Request {
    /// Reads the envelope of `message`, a whole message as a transport yields it.
    /// Replies will be written in the same protocol, with a frame header when `framed`.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use thrift_core::{Binary, Limits, MessageHeader, MessageType};
    /// use thrift_net::codec::{Message, ProtocolKind};
    /// use thrift_net::server::Request;
    ///
    /// let header = MessageHeader { name: "Calc:add", kind: MessageType::Call, seqid: 4 };
    /// let mut buf = Vec::new();
    /// Message::new(header, &7i32).encode::<Binary, _>(&mut buf);
    /// let request = Request::parse(Bytes::from(buf), ProtocolKind::Binary, false, Limits::default()).unwrap();
    /// assert_eq!((request.service(), request.method(), request.seqid()), (Some("Calc"), "add", 4));
    /// assert_eq!(request.decode_args::<i32>().unwrap(), 7);
    /// ```
    pub fn parse(message: Bytes, protocol: ProtocolKind, framed: bool, limits: Limits) -> thrift_core::Result<Self> {
        Request::framed_as(message, protocol, Framing::plain(framed), limits, Instant::now())
    }

    /// Reads the envelope of `message`, which arrived framed as `framing` says (a header
    /// frame names its own protocol, which overrides `protocol`), at `arrived`.
    ///
    /// Inline, the envelope read by [`Envelope::read`]: the 300-byte request is then built
    /// where the caller keeps it, not built here and copied there.
    #[inline]
    pub(crate) fn framed_as(
        message: Bytes,
        protocol: ProtocolKind,
        framing: Framing,
        limits: Limits,
        arrived: Instant,
    ) -> thrift_core::Result<Self> {
        let protocol = framing.protocol().unwrap_or(protocol);
        let Envelope { kind, seqid, name, method_at, body_start } = Envelope::read(&message, protocol, limits)?;
        Ok(Request {
            message,
            protocol,
            framing,
            kind,
            seqid,
            name,
            method_at,
            body_start,
            limits,
            peer: Peer::Local,
            arrived,
            reply_headers: ReplyHeaders::default(),
        })
    }

    /// A copy to answer this request with when its handler does not (a timeout, a panic):
    /// everything but its bytes and its headers, which answering does not read, so nothing is
    /// allocated and the read buffer's count of references is not touched.
    #[cfg(feature = "server")]
    pub(super) fn answering_copy(&self) -> Request {
        Request {
            message: Bytes::new(),
            framing: self.framing.without_headers(),
            peer: self.peer.clone(),
            name: self.name.clone(),
            reply_headers: ReplyHeaders::default(),
            ..*self
        }
    }

    /// The same request, from `peer`.
    pub fn with_peer(mut self, peer: Peer) -> Self {
        self.peer = peer;
        self
    }

    /// Where the request came from.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// When its envelope was read.
    pub fn arrived(&self) -> Instant {
        self.arrived
    }

    /// By when the caller wants the answer, when the transport carries its timeout: a
    /// TTHeader's `RPC_TIMEOUT` (Kitex, volo-thrift) or a THeader's `client_timeout`
    /// (fbthrift), both in milliseconds, counted from [`Request::arrived`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use bytes::Bytes;
    /// use thrift_core::{Binary, Limits, MessageHeader, MessageType};
    /// use thrift_net::codec::{Message, ProtocolKind};
    /// use thrift_net::server::Request;
    ///
    /// let header = MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 };
    /// let mut buf = Vec::new();
    /// Message::new(header, &0i32).encode::<Binary, _>(&mut buf);
    /// let request = Request::parse(Bytes::from(buf), ProtocolKind::Binary, true, Limits::default()).unwrap();
    /// assert_eq!(request.deadline(), None, "a framed request carries no timeout");
    /// ```
    pub fn deadline(&self) -> Option<Instant> {
        let headers = self.headers();
        let millis = headers.int(ttheader_keys::RPC_TIMEOUT).or_else(|| headers.get(CLIENT_TIMEOUT))?;
        let millis: u64 = millis.trim().parse().ok().filter(|&ms| ms > 0)?;
        self.arrived.checked_add(Duration::from_millis(millis))
    }

    /// The method name, without a multiplexed `Service:` prefix.
    pub fn method(&self) -> &str {
        &self.name[self.method_at..]
    }

    /// The multiplexed protocol's service name, when the call has a `Service:` prefix.
    pub fn service(&self) -> Option<&str> {
        (self.method_at > 0).then(|| &self.name[..self.method_at - 1])
    }

    /// The sequence id the reply must carry.
    pub fn seqid(&self) -> i32 {
        self.seqid
    }

    /// Call or oneway (or, from a confused peer, another type).
    pub fn kind(&self) -> MessageType {
        self.kind
    }

    /// The protocol of the request, and of the reply.
    pub fn protocol(&self) -> ProtocolKind {
        self.protocol
    }

    /// The transport the request came on, and the reply goes back on.
    pub fn transport(&self) -> Transport {
        self.framing.transport()
    }

    /// The headers of the request's THeader or TTHeader frame (none on other transports).
    ///
    /// ```
    /// use bytes::Bytes;
    /// use thrift_core::{Binary, Limits, MessageHeader, MessageType};
    /// use thrift_net::codec::{Message, ProtocolKind, Transport};
    /// use thrift_net::server::Request;
    ///
    /// let header = MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 };
    /// let mut buf = Vec::new();
    /// Message::new(header, &0i32).encode::<Binary, _>(&mut buf); // a real body is an args struct
    /// let request = Request::parse(Bytes::from(buf), ProtocolKind::Binary, true, Limits::default()).unwrap();
    /// assert_eq!(request.transport(), Transport::Framed);
    /// assert!(request.headers().is_empty());
    /// ```
    pub fn headers(&self) -> &Headers {
        match &self.framing {
            Framing::Header(info) => &info.headers,
            _ => Headers::none(),
        }
    }

    /// Sets a header of the reply's frame, replacing an earlier value of `key`: what an
    /// fbthrift or Kitex client, or ours ([`Reply::headers`](crate::Reply::headers)), reads
    /// beside the result. Only THeader and TTHeader frames carry headers: on other
    /// transports the reply goes without them.
    ///
    /// ```
    /// # use bytes::Bytes;
    /// # use thrift_core::{Binary, Limits, MessageHeader, MessageType};
    /// # use thrift_net::codec::{Message, ProtocolKind};
    /// # use thrift_net::server::Request;
    /// # let header = MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 };
    /// # let mut buf = Vec::new();
    /// # Message::new(header, &0i32).encode::<Binary, _>(&mut buf);
    /// # let request = Request::parse(Bytes::from(buf), ProtocolKind::Binary, true, Limits::default()).unwrap();
    /// // In a handler that takes `#[thrift(context)] request: &Request`:
    /// request.set_reply_header("biz-status", "0");
    /// ```
    pub fn set_reply_header(&self, key: impl Into<Bytes>, value: impl Into<Bytes>) {
        self.reply_headers.lock().get_or_insert_with(Default::default).insert(key, value);
    }

    /// How the request was framed.
    #[cfg(feature = "server")]
    pub(crate) fn framing(&self) -> &Framing {
        &self.framing
    }

    /// The whole message, envelope included.
    pub fn message(&self) -> &Bytes {
        &self.message
    }

    /// Decodes the arguments struct, which must end where the message does. `Bytes`
    /// fields share the message's buffer.
    pub fn decode_args<T: DecodeOwned>(&self) -> thrift_core::Result<T> {
        let body = self.message.slice(self.body_start..);
        with_protocol!(self.protocol, P => P::from_bytes_with_limits::<T>(&body, &self.limits))
    }
}

/// `name`, a string inside `message`, as an owned string: copied inline when short, as
/// nearly all names are (no reference to the message to count), else a slice of `message`.
fn shared_name(message: &Bytes, name: &str) -> SharedStr {
    if name.len() > SharedStr::INLINE_CAPACITY {
        // Checked as UTF-8 already: this does not fail.
        if let Ok(shared) = SharedStr::from_utf8(message.slice_ref(name.as_bytes())) {
            return shared;
        }
    }
    name.parse().unwrap_or_else(|never: std::convert::Infallible| match never {})
}
