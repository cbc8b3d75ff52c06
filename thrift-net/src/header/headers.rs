//! The key/value headers a THeader or TTHeader frame carries.

use std::fmt;

use bytes::Bytes;

use super::frame::Format;
use super::section::{Entry, WireHeaders, ACL_TOKEN_KEY};

/// Key/value headers of one message on the [`Transport::Header`](crate::Transport::Header)
/// (THeader) or [`Transport::TTHeader`](crate::Transport::TTHeader) transport: trace ids,
/// deadlines, auth tokens, caller names.
///
/// Keys and values are bytes (Apache's C++ and Python libraries allow any); the `&str`
/// getters answer `None` for a value that is not UTF-8. TTHeader also has headers with
/// 16-bit integer keys ([`Headers::int`], named in [`ttheader_keys`](crate::codec::ttheader_keys)),
/// which Kitex and volo use for the method, timeouts and caller; THeader has no such
/// headers, and writes none. A key set twice keeps its last value, as Apache's
/// libraries do. Headers read from a frame share its buffer: no copy.
///
/// ```
/// use thrift_net::Headers;
///
/// let mut headers = Headers::new();
/// headers.insert("trace-id", "4bf92f3577b34da6");
/// headers.insert("trace-id", "00f067aa0ba902b7");
/// assert_eq!(headers.get("trace-id"), Some("00f067aa0ba902b7"));
/// assert_eq!(headers.len(), 1);
/// headers.insert_int(thrift_net::codec::ttheader_keys::RPC_TIMEOUT, "250");
/// assert_eq!(headers.int(thrift_net::codec::ttheader_keys::RPC_TIMEOUT), Some("250"));
/// ```
#[derive(Clone, Default)]
pub struct Headers {
    /// Headers read from a frame and not changed since, walked in place: reading a request's
    /// headers allocates nothing. A change first copies them into the lists below, so at
    /// most one of the two holds any. `Some` only with one header at least.
    wire: Option<WireHeaders>,
    strings: Vec<(Bytes, Bytes)>,
    ints: Vec<(u16, Bytes)>,
}

impl Headers {
    /// No headers.
    pub const fn new() -> Headers {
        Headers { wire: None, strings: Vec::new(), ints: Vec::new() }
    }

    /// The headers a frame holds, as read.
    pub(crate) fn from_wire(wire: Option<WireHeaders>) -> Headers {
        Headers { wire, ..Headers::new() }
    }

    /// The encoding of these headers in `format`, when they are kept as one: read from a
    /// frame of that format and unchanged, or encoded for it by `encode_headers`.
    pub(super) fn encoding(&self, format: Format) -> Option<&[u8]> {
        self.wire.as_ref()?.encoding(format)
    }

    /// An empty set to borrow.
    pub(crate) fn none() -> &'static Headers {
        static NONE: Headers = Headers::new();
        &NONE
    }

    /// The value of `key`, when it is there and UTF-8.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.get_bytes(key.as_bytes()).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// The value of `key` as bytes.
    pub fn get_bytes(&self, key: &[u8]) -> Option<&[u8]> {
        // The last: of a key read twice from the wire, the last counts.
        self.iter().filter(|(k, _)| *k == key).last().map(|(_, v)| v)
    }

    /// Sets `key` to `value`, replacing an earlier value.
    pub fn insert(&mut self, key: impl Into<Bytes>, value: impl Into<Bytes>) {
        let key = key.into();
        let strings = &mut self.owned().strings;
        strings.retain(|(k, _)| *k != key);
        strings.push((key, value.into()));
    }

    /// Removes `key`, answering its value.
    pub fn remove(&mut self, key: &str) -> Option<Bytes> {
        let mut value = None;
        self.owned().strings.retain(|(k, v)| {
            let hit = k == key.as_bytes();
            if hit {
                value = Some(v.clone());
            }
            !hit
        });
        value
    }

    /// The value of the integer key `key` (TTHeader), when it is there and UTF-8.
    pub fn int(&self, key: u16) -> Option<&str> {
        self.iter_int().filter(|(k, _)| *k == key).last().and_then(|(_, v)| std::str::from_utf8(v).ok())
    }

    /// Sets the integer key `key` (TTHeader only) to `value`, replacing an earlier value.
    pub fn insert_int(&mut self, key: u16, value: impl Into<Bytes>) {
        let ints = &mut self.owned().ints;
        ints.retain(|(k, _)| *k != key);
        ints.push((key, value.into()));
    }

    /// Removes the integer key `key`, answering its value.
    pub fn remove_int(&mut self, key: u16) -> Option<Bytes> {
        let ints = &mut self.owned().ints;
        let at = ints.iter().rposition(|(k, _)| *k == key)?;
        let value = ints.remove(at).1;
        ints.retain(|(k, _)| *k != key);
        Some(value)
    }

    /// These headers in lists of their own, to be changed: those read from a frame are
    /// copied out of it (sharing its bytes) first.
    fn owned(&mut self) -> &mut Headers {
        if let Some(wire) = self.wire.take() {
            for entry in wire.entries() {
                match entry {
                    Entry::Str(k, v) => self.strings.push((wire.share(k), wire.share(v))),
                    Entry::AclToken(v) => {
                        self.strings.push((Bytes::from_static(ACL_TOKEN_KEY.as_bytes()), wire.share(v)))
                    }
                    Entry::Int(k, v) => self.ints.push((k, wire.share(v))),
                }
            }
        }
        self
    }

    /// The string-keyed headers, in the order set (a key the peer sent twice appears
    /// twice).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        let wire = self.wire.iter().flat_map(WireHeaders::entries).filter_map(|entry| match entry {
            Entry::Str(k, v) => Some((k, v)),
            Entry::AclToken(v) => Some((ACL_TOKEN_KEY.as_bytes(), v)),
            Entry::Int(..) => None,
        });
        wire.chain(self.strings.iter().map(|(k, v)| (&k[..], &v[..])))
    }

    /// The integer-keyed headers (TTHeader), in the order set (a key the peer sent
    /// twice appears twice).
    pub fn iter_int(&self) -> impl Iterator<Item = (u16, &[u8])> {
        // THeader has no integer keys: its frames' headers need no walk for them.
        let ttheader = self.wire.iter().filter(|wire| wire.format() == Format::TTHeader);
        let wire = ttheader.flat_map(WireHeaders::entries).filter_map(|entry| match entry {
            Entry::Int(k, v) => Some((k, v)),
            Entry::Str(..) | Entry::AclToken(_) => None,
        });
        wire.chain(self.ints.iter().map(|(k, v)| (*k, &v[..])))
    }

    /// How many headers there are, of both kinds.
    pub fn len(&self) -> usize {
        self.wire.iter().flat_map(WireHeaders::entries).count() + self.strings.len() + self.ints.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        // Kept frame headers always hold one at least: no walk needed.
        self.wire.is_none() && self.strings.is_empty() && self.ints.is_empty()
    }

    /// Sets every header of `other` here, replacing values of the same keys.
    pub fn extend(&mut self, other: &Headers) {
        let mut other = other.clone();
        let other = other.owned();
        for (k, v) in &other.strings {
            self.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.ints {
            self.insert_int(*k, v.clone());
        }
    }
}

/// Equal when they hold the same headers in the same order, read from a frame or set.
impl PartialEq for Headers {
    fn eq(&self, other: &Headers) -> bool {
        self.iter().eq(other.iter()) && self.iter_int().eq(other.iter_int())
    }
}

impl Eq for Headers {}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        f.debug_map()
            .entries(self.iter().map(|(k, v)| (text(k), text(v))))
            .entries(self.iter_int().map(|(k, v)| (k.to_string(), text(v))))
            .finish()
    }
}

/// The integer header keys of TTHeader that Kitex and volo define (CloudWeGo's
/// `transport_protocol_ttheader`); values are strings (a timeout in milliseconds is `"250"`).
pub mod ttheader_keys {
    /// The transport type (`"framed"`, `"unframed"`).
    pub const TRANSPORT_TYPE: u16 = 1;
    /// The log id of the call.
    pub const LOG_ID: u16 = 2;
    /// The caller's service name.
    pub const FROM_SERVICE: u16 = 3;
    /// The caller's cluster.
    pub const FROM_CLUSTER: u16 = 4;
    /// The caller's data centre.
    pub const FROM_IDC: u16 = 5;
    /// The callee's service name.
    pub const TO_SERVICE: u16 = 6;
    /// The callee's cluster.
    pub const TO_CLUSTER: u16 = 7;
    /// The callee's data centre.
    pub const TO_IDC: u16 = 8;
    /// The method called.
    pub const TO_METHOD: u16 = 9;
    /// The environment.
    pub const ENV: u16 = 10;
    /// The address the call is for.
    pub const DEST_ADDRESS: u16 = 11;
    /// The caller's whole-call timeout, in milliseconds.
    pub const RPC_TIMEOUT: u16 = 12;
    /// The caller's read timeout, in milliseconds.
    pub const READ_TIMEOUT: u16 = 13;
    /// The caller's connect timeout, in milliseconds.
    pub const CONNECT_TIMEOUT: u16 = 17;
    /// The tracing span context.
    pub const SPAN_CONTEXT: u16 = 18;
    /// The method the caller is in.
    pub const FROM_METHOD: u16 = 20;
    /// The message type.
    pub const MSG_TYPE: u16 = 22;
}
