//! Telling the transport (framed, buffered, THeader or TTHeader) and protocol (binary,
//! compact or JSON) of a connection from its first bytes.
//!
//! Every reading is tried, and the answer is given only when exactly one fits and no other
//! could still fit with more bytes. Two that fit are an error, none is an error; it never
//! guesses. The readings:
//!
//! | reading | first bytes |
//! | --- | --- |
//! | buffered binary, strict | `80 01 ?? TT`: the version word, `TT` a message type 1..=4 (the third byte is ignored, as Apache does) |
//! | buffered compact | `82 VV`: `VV` has version 1 in its low 5 bits and a message type 1..=4 in its high 3 |
//! | buffered binary, non-strict | `LL LL LL LL`, a name length 1..=4096, then that many bytes of method name (UTF-8, no control characters, not beginning with `[`), then a message type byte 1..=4 |
//! | buffered JSON | `[1`: the envelope array and the protocol version |
//! | framed, any of the four above | `NN NN NN NN`, a frame length from the smallest message of that reading up to the maximum frame size, then the same bytes as the buffered reading |
//! | THeader, binary or compact | `NN NN NN NN 0F FF`: a frame length as above, THeader's magic, then at byte 14 the protocol id `00` (binary) or `02` (compact) |
//! | TTHeader, binary or compact | `NN NN NN NN 10 00`: the same with TTHeader's magic |
//! | THeader in a frame | `NN NN NN NN`, then a THeader frame whose length is four less |
//!
//! Why they don't collide: a frame length or non-strict name length is a non-negative `i32`,
//! so its first byte is below `0x80`, while the strict binary and compact envelopes begin with
//! `0x80` or `0x82`. JSON's `[` (`0x5b`) as a frame's or name's first length byte is a length
//! of at least `0x5b000000`, beyond any frame limit below 1.4 GiB and any name; and a frame
//! holding JSON has `[` where the others' envelopes have `0x80`, `0x82` or `00`. A
//! non-strict name cannot begin with `0x80` or `0x82` (UTF-8 continuation bytes), so a frame
//! holding a strict or compact message is no non-strict message; and a frame holding a
//! non-strict message puts the `00` high byte of its name length where the buffered reading
//! wants a printable name. A framed JSON message is printable throughout, so its length and
//! text would also read as a non-strict envelope with the JSON for a name; but no method
//! name begins with `[`, which the non-strict reading refuses. A header frame has `0F` or
//! `10` where a framed envelope has `80` or `82`, and as a non-strict name length `0F FF ..`
//! or `10 00 ..` is far beyond the longest name.

use thrift_core::Limits;

use crate::error::{Phase, TransportError, TransportErrorKind};
use crate::header::{self, Format};
use crate::wire::{ProtocolKind, Transport, Wire};

/// The longest method name the non-strict readings consider, which bounds how many bytes
/// detection may ask for.
pub const DETECT_MAX_NAME_LEN: usize = 4096;

/// The answer of [`detect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Detection {
    /// Exactly one reading fits.
    Found(Wire),
    /// No answer yet: look again once at least this many bytes have arrived.
    NeedMore(usize),
}

/// One reading's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Yes,
    No,
    More(usize),
}

/// Tells the transport and protocol of a connection from `prefix`, its first bytes (all of
/// them so far; pass more on [`Detection::NeedMore`]). Frame lengths are checked against
/// `limits.max_frame_len`.
///
/// # Errors
/// [`TransportErrorKind::Unrecognized`] when no reading fits,
/// [`TransportErrorKind::Ambiguous`] when more than one does.
///
/// ```
/// use thrift_core::Limits;
/// use thrift_net::{ProtocolKind, Transport};
/// use thrift_net::codec::{detect, Detection, Wire};
///
/// let limits = Limits::default();
/// let framed_compact = [0, 0, 0, 20, 0x82, 0x21];
/// assert_eq!(
///     detect(&framed_compact, &limits).unwrap(),
///     Detection::Found(Wire { transport: Transport::Framed, protocol: ProtocolKind::Compact })
/// );
/// assert_eq!(detect(&[0x80, 0x01], &limits).unwrap(), Detection::NeedMore(4));
/// assert!(detect(b"GET / HTTP/1.1\r\n", &limits).is_err());
/// ```
pub fn detect(prefix: &[u8], limits: &Limits) -> Result<Detection, TransportError> {
    const READINGS: [ProtocolKind; 4] =
        [ProtocolKind::Binary, ProtocolKind::Compact, ProtocolKind::BinaryNonStrict, ProtocolKind::Json];
    let mut found: Vec<Wire> = Vec::new();
    let mut need: Option<usize> = None;
    const TRANSPORTS: [Transport; 5] =
        [Transport::Buffered, Transport::Framed, Transport::Header, Transport::TTHeader, Transport::FramedHeader];
    for transport in TRANSPORTS {
        for protocol in READINGS {
            let verdict = match (transport, transport.header_format()) {
                (Transport::Buffered, _) => envelope(protocol, prefix, usize::MAX, limits),
                (Transport::FramedHeader, _) => nested_header_frame(protocol, prefix, limits),
                (_, Some(format)) => header_frame(format, protocol, prefix, limits),
                _ => framed(protocol, prefix, limits),
            };
            match verdict {
                Verdict::Yes => found.push(Wire { transport, protocol }),
                Verdict::More(n) => need = Some(need.map_or(n, |m| m.min(n))),
                Verdict::No => {}
            }
        }
    }
    match (found.as_slice(), need) {
        ([], None) => {
            let why = match prefix.first() {
                Some(0x80) => "0x80 but not a binary version word with a message type",
                Some(0x82) => "0x82 but not a compact version byte with a message type",
                Some(b'[') => "'[' but not a JSON envelope `[1,`",
                _ => "neither a frame length before an envelope nor a non-strict binary envelope",
            };
            Err(TransportError::new(Phase::Detect, TransportErrorKind::Unrecognized(why)).at(0))
        }
        ([], Some(n)) | ([_], Some(n)) => Ok(Detection::NeedMore(n)),
        ([wire], None) => Ok(Detection::Found(*wire)),
        (many, _) => {
            let kind = TransportErrorKind::Ambiguous(format!("the first bytes fit {many:?}"));
            Err(TransportError::new(Phase::Detect, kind).at(0))
        }
    }
}

/// The smallest whole message of a reading: envelope with an empty name (one byte for the
/// non-strict reading, whose name is not empty) and an empty struct.
fn min_message_len(protocol: ProtocolKind) -> usize {
    match protocol {
        ProtocolKind::Binary => 4 + 4 + 4 + 1,
        ProtocolKind::Compact => 2 + 1 + 1 + 1,
        ProtocolKind::BinaryNonStrict => 4 + 1 + 1 + 4 + 1,
        // `[1,"",1,0,{}]`
        ProtocolKind::Json => 13,
    }
}

/// The frame length at the start of `prefix`, or the verdict when there is none yet: a
/// frame length is a non-negative i32, so a first byte of `0x80` or more says "no" early.
fn frame_length(prefix: &[u8]) -> Result<i32, Verdict> {
    match prefix.get(..4) {
        Some(len) => Ok(i32::from_be_bytes([len[0], len[1], len[2], len[3]])),
        None if prefix.first().is_some_and(|b| *b >= 0x80) => Err(Verdict::No),
        None => Err(Verdict::More(4)),
    }
}

/// The framed reading: a plausible length, then the envelope of `protocol` inside it.
fn framed(protocol: ProtocolKind, prefix: &[u8], limits: &Limits) -> Verdict {
    let len = match frame_length(prefix) {
        Ok(len) => len,
        Err(verdict) => return verdict,
    };
    if len < min_message_len(protocol) as i32 || len as usize > limits.max_frame_len {
        return Verdict::No;
    }
    match envelope(protocol, &prefix[4..], len as usize, limits) {
        Verdict::More(n) => Verdict::More(4 + n),
        v => v,
    }
}

/// The header readings: a plausible frame length, the format's magic, and the protocol id
/// of `protocol` first in the header section.
fn header_frame(format: Format, protocol: ProtocolKind, prefix: &[u8], limits: &Limits) -> Verdict {
    const PROTOCOL_ID_AT: usize = 4 + header::FIXED_LEN;
    let len = match frame_length(prefix) {
        Ok(len) => len,
        Err(verdict) => return verdict,
    };
    // The fixed part, a header section of one word, and a message.
    let shortest = header::FIXED_LEN + 4 + min_message_len(protocol);
    if protocol == ProtocolKind::BinaryNonStrict || len < shortest as i32 || len as usize > limits.max_frame_len {
        return Verdict::No;
    }
    let magic = format.magic().to_be_bytes();
    match prefix.get(4..6) {
        None if prefix.get(4).is_some_and(|b| *b != magic[0]) => Verdict::No,
        None => Verdict::More(6),
        Some(m) if m != magic => Verdict::No,
        Some(_) => match prefix.get(PROTOCOL_ID_AT) {
            None => Verdict::More(PROTOCOL_ID_AT + 1),
            Some(id) => yes_if(header::protocol_of(format, u32::from(*id)) == Some(protocol)),
        },
    }
}

/// The nested THeader reading: a frame length, then a THeader frame whose length is four
/// less.
fn nested_header_frame(protocol: ProtocolKind, prefix: &[u8], limits: &Limits) -> Verdict {
    let outer = match frame_length(prefix) {
        Ok(len) => len,
        Err(verdict) => return verdict,
    };
    if outer < 4 || outer as usize > limits.max_frame_len {
        return Verdict::No;
    }
    if frame_length(&prefix[4..]).is_ok_and(|inner| inner != outer - 4) {
        return Verdict::No;
    }
    match header_frame(Format::THeader, protocol, &prefix[4..], limits) {
        Verdict::More(n) => Verdict::More(4 + n),
        v => v,
    }
}

/// Whether `bytes` begin like an envelope of `protocol` in a message of at most `room` bytes.
fn envelope(protocol: ProtocolKind, bytes: &[u8], room: usize, limits: &Limits) -> Verdict {
    let message_type = |b: u8| (1..=4).contains(&b);
    match protocol {
        ProtocolKind::Binary => match bytes {
            [] => Verdict::More(1),
            [b0, ..] if *b0 != 0x80 => Verdict::No,
            [_] => Verdict::More(2),
            [_, b1, ..] if *b1 != 0x01 => Verdict::No,
            [_, _] | [_, _, _] => Verdict::More(4),
            [_, _, _, t, ..] => yes_if(message_type(*t)),
        },
        ProtocolKind::Compact => match bytes {
            [] => Verdict::More(1),
            [b0, ..] if *b0 != 0x82 => Verdict::No,
            [_] => Verdict::More(2),
            [_, v, ..] => yes_if(*v & 0x1f == 1 && message_type(*v >> 5)),
        },
        ProtocolKind::Json => match bytes {
            [] => Verdict::More(1),
            [b0, ..] if *b0 != b'[' => Verdict::No,
            [_] => Verdict::More(2),
            [_, b1, ..] => yes_if(*b1 == b'1'),
        },
        ProtocolKind::BinaryNonStrict => {
            let Some(len) = bytes.get(..4) else {
                // A name length is a non-negative i32: its first byte says "no" early.
                return if bytes.first().is_some_and(|b| *b >= 0x80) { Verdict::No } else { Verdict::More(4) };
            };
            let len = i32::from_be_bytes([len[0], len[1], len[2], len[3]]);
            let max_name = DETECT_MAX_NAME_LEN.min(limits.max_string_len);
            if len < 1 || len as usize > max_name || 4 + len as usize + 5 + 1 > room {
                return Verdict::No;
            }
            let len = len as usize;
            let name = &bytes[4..bytes.len().min(4 + len)];
            // A name beginning with `[` would make every framed JSON message (printable
            // throughout) a non-strict message too: method names never do.
            if !plausible_name(name) || name.first() == Some(&b'[') {
                return Verdict::No;
            }
            match bytes.get(4 + len) {
                None => Verdict::More(4 + len + 1),
                Some(t) => yes_if(message_type(*t) && std::str::from_utf8(name).is_ok()),
            }
        }
    }
}

fn yes_if(fits: bool) -> Verdict {
    if fits {
        Verdict::Yes
    } else {
        Verdict::No
    }
}

/// Whether `name` is, or may become with more bytes, a method name: UTF-8 without control
/// characters (a prefix may end inside a character).
fn plausible_name(name: &[u8]) -> bool {
    let (valid, rest_ok) = match std::str::from_utf8(name) {
        Ok(s) => (s, true),
        // An error with no error_len is a character cut short by the end of the prefix.
        Err(e) => (std::str::from_utf8(&name[..e.valid_up_to()]).unwrap_or(""), e.error_len().is_none()),
    };
    rest_ok && !valid.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;
    use thrift_core::{Binary, Compact, MessageHeader, MessageType, Protocol};

    fn found(transport: Transport, protocol: ProtocolKind) -> Detection {
        Detection::Found(Wire { transport, protocol })
    }

    fn limits() -> Limits {
        Limits::default()
    }

    fn message<P: Protocol>() -> Vec<u8> {
        let mut buf = Vec::new();
        P::write_message_begin(&mut buf, &MessageHeader { name: "getUser", kind: MessageType::Call, seqid: 5 });
        buf.push(0);
        buf
    }

    fn non_strict() -> Vec<u8> {
        let mut buf = vec![0, 0, 0, 7];
        buf.extend_from_slice(b"getUser");
        buf.push(1);
        buf.extend_from_slice(&5i32.to_be_bytes());
        buf.push(0);
        buf
    }

    fn json() -> Vec<u8> {
        br#"[1,"testVoid",1,1,{}]"#.to_vec()
    }

    fn framed_bytes(msg: &[u8]) -> Vec<u8> {
        let mut buf = (msg.len() as u32).to_be_bytes().to_vec();
        buf.extend_from_slice(msg);
        buf
    }

    /// Feeds prefixes of growing length and returns the first answer that is not NeedMore,
    /// checking every NeedMore asks for more than it was given.
    fn detect_growing(bytes: &[u8]) -> Result<Detection, TransportError> {
        let mut n = 0;
        loop {
            match detect(&bytes[..n], &limits())? {
                Detection::NeedMore(more) => {
                    assert!(more > n, "NeedMore({more}) after {n} bytes");
                    assert!(more <= bytes.len(), "asked for {more} of {} bytes", bytes.len());
                    n = more;
                }
                found => return Ok(found),
            }
        }
    }

    #[test]
    fn detects_all_eight_combinations() {
        use ProtocolKind as K;
        use Transport::*;
        let cases = [
            (message::<Binary>(), found(Buffered, K::Binary)),
            (message::<Compact>(), found(Buffered, K::Compact)),
            (non_strict(), found(Buffered, K::BinaryNonStrict)),
            (framed_bytes(&message::<Binary>()), found(Framed, K::Binary)),
            (framed_bytes(&message::<Compact>()), found(Framed, K::Compact)),
            (framed_bytes(&non_strict()), found(Framed, K::BinaryNonStrict)),
            (json(), found(Buffered, K::Json)),
            (framed_bytes(&json()), found(Framed, K::Json)),
        ];
        for (bytes, expected) in cases {
            assert_eq!(detect_growing(&bytes).unwrap(), expected, "{bytes:02x?}");
            assert_eq!(detect(&bytes, &limits()).unwrap(), expected);
        }
    }

    /// A header frame of `format` around `msg`, with one header.
    fn header_bytes(format: header::Format, protocol: ProtocolKind, msg: &[u8]) -> Vec<u8> {
        let mut headers = crate::Headers::new();
        headers.insert("k", "v");
        let info = header::FrameInfo {
            format,
            flags: 0,
            seqid: 5,
            protocol,
            zlib: false,
            nested: false,
            framed_payload: false,
            headers: crate::Headers::new(),
        };
        header::write(&info, &headers, usize::MAX, msg.len(), |b| b.extend_from_slice(msg)).unwrap().to_vec()
    }

    #[test]
    fn detects_both_header_formats_in_both_protocols() {
        use header::Format;
        for (format, transport) in [(Format::THeader, Transport::Header), (Format::TTHeader, Transport::TTHeader)] {
            for (protocol, msg) in
                [(ProtocolKind::Binary, message::<Binary>()), (ProtocolKind::Compact, message::<Compact>())]
            {
                let bytes = header_bytes(format, protocol, &msg);
                assert_eq!(detect_growing(&bytes).unwrap(), found(transport, protocol), "{bytes:02x?}");
            }
        }
        // Inside a framed-transport frame.
        for (protocol, msg) in
            [(ProtocolKind::Binary, message::<Binary>()), (ProtocolKind::Compact, message::<Compact>())]
        {
            let bytes = framed_bytes(&header_bytes(Format::THeader, protocol, &msg));
            assert_eq!(detect_growing(&bytes).unwrap(), found(Transport::FramedHeader, protocol), "{bytes:02x?}");
        }
        // JSON, THeader's protocol 1.
        let bytes = header_bytes(Format::THeader, ProtocolKind::Json, br#"[1,"m",1,0,{}]"#);
        assert_eq!(detect_growing(&bytes).unwrap(), found(Transport::Header, ProtocolKind::Json), "{bytes:02x?}");
        // THeader's magic with a protocol id that is none of these.
        let mut bytes = header_bytes(Format::THeader, ProtocolKind::Binary, &message::<Binary>());
        bytes[14] = 3;
        assert!(detect(&bytes, &limits()).is_err());
    }

    #[test]
    fn need_more_is_its_own_answer() {
        assert_eq!(detect(&[], &limits()).unwrap(), Detection::NeedMore(1));
        assert_eq!(detect(&[0x82], &limits()).unwrap(), Detection::NeedMore(2));
        assert_eq!(detect(&[0, 0, 0], &limits()).unwrap(), Detection::NeedMore(4));
        // A frame length: the envelope after it decides.
        assert_eq!(detect(&[0, 0, 0, 30], &limits()).unwrap(), Detection::NeedMore(5));
    }

    #[test]
    fn garbage_is_an_error_not_a_guess() {
        for bytes in [
            &b"GET / HTTP/1.1\r\n"[..],
            &[0x80, 0x02, 0, 1],
            &[0x82, 0x22],
            &[0x82, 0xa1],
            &[0x16, 3, 1, 2, 0],
            b"[2,\"a\",1,0,{}]",
        ] {
            let e = detect(bytes, &limits()).unwrap_err();
            assert!(matches!(e.kind(), TransportErrorKind::Unrecognized(_)), "{bytes:02x?}: {e}");
            assert_eq!(e.phase(), Phase::Detect);
        }
        // Frame lengths beyond the limit, zero, negative, or too small for any message.
        let mut too_big = (16_384_001u32).to_be_bytes().to_vec();
        too_big.extend_from_slice(&[0x80, 1, 0, 1]);
        for bytes in [too_big, vec![0, 0, 0, 0, 0x82, 0x21], vec![0, 0, 0, 4, 0x82, 0x21, 0, 0]] {
            assert!(detect(&bytes, &limits()).is_err(), "{bytes:02x?}");
        }
    }

    #[test]
    fn non_strict_names_must_be_printable() {
        let mut bytes = vec![0, 0, 0, 3, b'a', 0x01, b'c', 1, 0, 0, 0, 1, 0];
        assert!(detect(&bytes, &limits()).is_err());
        bytes[5] = b'b';
        assert_eq!(detect(&bytes, &limits()).unwrap(), found(Transport::Buffered, ProtocolKind::BinaryNonStrict));
        // A bad message type after the name.
        bytes[7] = 9;
        assert!(detect(&bytes, &limits()).is_err());
    }

    #[test]
    fn plausible_name_accepts_cut_characters_and_rejects_bad_utf8() {
        assert!(plausible_name("é".as_bytes()));
        assert!(plausible_name(&"é".as_bytes()[..1]));
        assert!(!plausible_name(&[0x80]));
        assert!(!plausible_name(b"a\nb"));
    }
}
