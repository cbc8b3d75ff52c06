//! The buffered transport over real TCP connections: messages of every shape in random
//! chunks come out whole and decode equal; pipelined messages split; garbage, truncation
//! and hostile declarations end in errors, never panics or hangs.

mod common;

use bytes::Bytes;
use common::net::{in_memory, over_tcp, End};
use common::value::{any_chunks, any_msg, cut, Msg, Value};
use proptest::prelude::*;
use thrift_core::{Binary, Compact, ErrorKind, Limits, Protocol, TType};
use thrift_net::codec::BufferedCodec;
use thrift_net::{Phase, TransportErrorKind};

/// How a test message is written.
#[derive(Clone, Copy, Debug)]
enum Style {
    Strict,
    NonStrict,
}

fn encode<P: Protocol>(msg: &Msg, style: Style) -> Vec<u8> {
    match style {
        Style::NonStrict if P::NAME == "binary" => msg.encode_non_strict(),
        _ => msg.encode::<P>(),
    }
}

fn chunks(wire: &[u8], sizes: &[usize]) -> Vec<Vec<u8>> {
    cut(wire, sizes).into_iter().map(<[u8]>::to_vec).collect()
}

/// Sends `msgs` back to back in chunks of `sizes` over TCP and checks each comes out whole,
/// byte for byte, and decodes equal.
fn roundtrip_tcp<P: Protocol>(msgs: &[Msg], style: Style, sizes: &[usize]) {
    let encoded: Vec<Vec<u8>> = msgs.iter().map(|m| encode::<P>(m, style)).collect();
    let wire = encoded.concat();
    let got = over_tcp(chunks(&wire, sizes), End::Close, BufferedCodec::<P>::new());
    assert!(got.error.is_none(), "{:?}", got.error);
    check_messages::<P>(&got.messages, msgs, &encoded);
}

fn check_messages<P: Protocol>(got: &[Bytes], msgs: &[Msg], encoded: &[Vec<u8>]) {
    assert_eq!(got.len(), msgs.len());
    for ((bytes, msg), enc) in got.iter().zip(msgs).zip(encoded) {
        assert_eq!(&bytes[..], &enc[..]);
        let back = Msg::decode::<P>(bytes).expect("a scanned message decodes");
        assert_eq!(back.normalized(), msg.normalized());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn binary_messages_of_every_shape_cross_tcp_in_random_chunks(
        msgs in proptest::collection::vec(any_msg(), 1..4),
        sizes in any_chunks(),
        non_strict in any::<bool>(),
    ) {
        let style = if non_strict { Style::NonStrict } else { Style::Strict };
        roundtrip_tcp::<Binary>(&msgs, style, &sizes);
    }

    /// Random bytes over a real connection, then its end: the reader stops with an error
    /// (or, rarely, after messages that happen to take every byte), within the deadline.
    #[test]
    fn garbage_over_tcp_ends_in_an_error(
        garbage in proptest::collection::vec(any::<u8>(), 1..400),
        sizes in any_chunks(),
        compact in any::<bool>(),
    ) {
        let pieces = chunks(&garbage, &sizes);
        let got = if compact {
            over_tcp(pieces, End::Close, BufferedCodec::<Compact>::new())
        } else {
            over_tcp(pieces, End::Close, BufferedCodec::<Binary>::new())
        };
        let taken: usize = got.messages.iter().map(Bytes::len).sum();
        prop_assert!(got.error.is_some() || taken == garbage.len());
    }

    #[test]
    fn compact_messages_of_every_shape_cross_tcp_in_random_chunks(
        msgs in proptest::collection::vec(any_msg(), 1..4),
        sizes in any_chunks(),
    ) {
        roundtrip_tcp::<Compact>(&msgs, Style::Strict, &sizes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The same in memory, many more cases: every chunking gives the same messages.
    #[test]
    fn any_chunking_yields_the_same_messages(
        msgs in proptest::collection::vec(any_msg(), 1..4),
        sizes in any_chunks(),
        non_strict in any::<bool>(),
    ) {
        let style = if non_strict { Style::NonStrict } else { Style::Strict };
        for compact in [false, true] {
            let encoded: Vec<Vec<u8>> = msgs
                .iter()
                .map(|m| if compact { encode::<Compact>(m, style) } else { encode::<Binary>(m, style) })
                .collect();
            let wire = encoded.concat();
            let pieces = cut(&wire, &sizes);
            if compact {
                let got = in_memory(&pieces, &mut BufferedCodec::<Compact>::new());
                prop_assert!(got.error.is_none(), "{:?}", got.error);
                check_messages::<Compact>(&got.messages, &msgs, &encoded);
            } else {
                let got = in_memory(&pieces, &mut BufferedCodec::<Binary>::new());
                prop_assert!(got.error.is_none(), "{:?}", got.error);
                check_messages::<Binary>(&got.messages, &msgs, &encoded);
            }
        }
    }

    /// A message cut short, then the end of the stream: an error naming the truncation,
    /// after the whole messages before it.
    #[test]
    fn truncated_streams_error_at_eof(msgs in proptest::collection::vec(any_msg(), 1..3), cut_at in any::<prop::sample::Index>(), sizes in any_chunks()) {
        let whole: Vec<u8> = msgs[..msgs.len() - 1].iter().flat_map(|m| m.encode::<Compact>()).collect();
        let last = msgs[msgs.len() - 1].encode::<Compact>();
        let keep = cut_at.index(last.len()); // 0..len: always short of the whole message
        let mut wire = whole.clone();
        wire.extend_from_slice(&last[..keep]);
        let got = in_memory(&cut(&wire, &sizes), &mut BufferedCodec::<Compact>::new());
        prop_assert_eq!(got.messages.len(), msgs.len() - 1);
        if keep == 0 {
            prop_assert!(got.error.is_none());
        } else {
            let e = got.error.expect("truncation is an error");
            prop_assert!(matches!(e.kind(), TransportErrorKind::Truncated { buffered } if *buffered == keep), "{}", e);
            prop_assert_eq!(e.phase(), Phase::SkipDecoder);
            prop_assert_eq!(e.stream_offset(), Some(whole.len() as u64));
        }
    }

    /// Random bytes: messages or an error, never a panic, and never a message that is not a
    /// prefix of what was sent.
    #[test]
    fn garbage_gives_errors_not_panics(garbage in proptest::collection::vec(any::<u8>(), 0..600), sizes in any_chunks(), compact in any::<bool>()) {
        let pieces = cut(&garbage, &sizes);
        let got = if compact {
            in_memory(&pieces, &mut BufferedCodec::<Compact>::new())
        } else {
            in_memory(&pieces, &mut BufferedCodec::<Binary>::new())
        };
        let yielded: Vec<u8> = got.messages.concat();
        prop_assert_eq!(&garbage[..yielded.len()], &yielded[..]);
        prop_assert!(got.error.is_some() || yielded.len() == garbage.len());
    }

    /// Garbage after a valid message, with a valid envelope in front so the scanner walks it.
    #[test]
    fn garbage_bodies_give_errors_not_panics(msg in any_msg(), body in proptest::collection::vec(any::<u8>(), 0..300), sizes in any_chunks()) {
        for compact in [false, true] {
            let mut wire = if compact { msg.encode::<Compact>() } else { msg.encode::<Binary>() };
            let first = wire.len();
            let header = Msg { body: Value::Struct(Vec::new()), ..msg.clone() };
            let mut envelope = if compact { header.encode::<Compact>() } else { header.encode::<Binary>() };
            envelope.pop(); // the empty struct's stop byte
            wire.extend_from_slice(&envelope);
            wire.extend_from_slice(&body);
            let pieces = cut(&wire, &sizes);
            let got = if compact {
                in_memory(&pieces, &mut BufferedCodec::<Compact>::new())
            } else {
                in_memory(&pieces, &mut BufferedCodec::<Binary>::new())
            };
            prop_assert!(!got.messages.is_empty());
            prop_assert_eq!(got.messages[0].len(), first);
            let yielded: usize = got.messages.iter().map(Bytes::len).sum();
            prop_assert!(got.error.is_some() || yielded == wire.len());
        }
    }
}

#[test]
fn garbage_and_truncation_over_tcp_end_in_errors() {
    let got = over_tcp(vec![b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec()], End::Close, BufferedCodec::<Binary>::new());
    let e = got.error.expect("not thrift");
    assert_eq!(e.phase(), Phase::SkipDecoder);
    assert!(matches!(e.kind(), TransportErrorKind::Protocol { what: "envelope", .. }), "{e}");

    let msg = sample_msg().encode::<Binary>();
    let got = over_tcp(vec![msg[..msg.len() - 3].to_vec()], End::Close, BufferedCodec::<Binary>::new());
    let e = got.error.expect("truncated");
    assert!(matches!(e.kind(), TransportErrorKind::Truncated { .. }), "{e}");

    // Garbage that keeps the connection open must still end the read with an error.
    let got = over_tcp(vec![vec![0x82, 0x21, 0, 0, 0xff]], End::KeepOpen, BufferedCodec::<Compact>::new());
    let e = got.error.expect("invalid field type");
    assert!(
        matches!(e.kind(), TransportErrorKind::Protocol { what: "field header", kind: ErrorKind::InvalidType(0x0f) }),
        "{e}"
    );
}

fn sample_msg() -> Msg {
    let inner = Value::Struct(vec![(1, Value::I32(5)), (2, Value::Str(b"hello".to_vec()))]);
    let body = Value::Struct(vec![
        (1, Value::Bool(true)),
        (2, Value::List(TType::Struct, vec![inner.clone(), inner])),
        (3, Value::Map(TType::String, TType::I64, vec![(Value::Str(b"k".to_vec()), Value::I64(-1))])),
        (4, Value::Bool(false)),
    ]);
    Msg::new("getUser", body)
}

#[test]
fn pipelined_messages_in_one_write_are_split() {
    let msgs: Vec<Msg> = (0..5)
        .map(|i| {
            let mut m = sample_msg();
            m.seqid = i;
            if i % 2 == 1 {
                m.body = Value::Struct(vec![(i as i16, Value::Str(vec![b'x'; 100 * i as usize]))]);
            }
            m
        })
        .collect();
    let binary: Vec<Vec<u8>> = msgs.iter().map(Msg::encode::<Binary>).collect();
    let got = over_tcp(vec![binary.concat()], End::Close, BufferedCodec::<Binary>::new());
    assert!(got.error.is_none(), "{:?}", got.error);
    check_messages::<Binary>(&got.messages, &msgs, &binary);

    let compact: Vec<Vec<u8>> = msgs.iter().map(Msg::encode::<Compact>).collect();
    let got = over_tcp(vec![compact.concat()], End::Close, BufferedCodec::<Compact>::new());
    assert!(got.error.is_none(), "{:?}", got.error);
    check_messages::<Compact>(&got.messages, &msgs, &compact);
}

/// The start of a binary message whose struct's first field is a string of `len` bytes.
fn string_declaration(len: i32) -> Vec<u8> {
    let mut wire = Msg::new("put", Value::Struct(Vec::new())).encode::<Binary>();
    wire.pop();
    wire.extend_from_slice(&[TType::String as u8, 0, 1]);
    wire.extend_from_slice(&len.to_be_bytes());
    wire.extend_from_slice(b"only a few bytes follow");
    wire
}

#[test]
fn a_2gb_string_errors_when_declared_not_after_buffering() {
    // Default limits: the string limit (100 MiB) catches it, over a connection left open.
    let got = over_tcp(vec![string_declaration(i32::MAX)], End::KeepOpen, BufferedCodec::<Binary>::new());
    let e = got.error.expect("declared 2 GB");
    assert!(
        matches!(
            e.kind(),
            TransportErrorKind::Protocol { kind: ErrorKind::LengthTooLarge { len: 2147483647, .. }, .. }
        ),
        "{e}"
    );
    // Envelope (15 bytes), field header (3), then the declared length (4) just read.
    assert_eq!(e.offset(), Some(15 + 3 + 4), "{e}");

    // With no string limit, the message limit catches it from the declaration alone.
    let limits = Limits { max_string_len: usize::MAX, max_message_len: 1 << 20, ..Limits::default() };
    let got = over_tcp(vec![string_declaration(i32::MAX)], End::KeepOpen, BufferedCodec::<Binary>::with_limits(limits));
    let e = got.error.expect("declared 2 GB");
    assert!(
        matches!(
            e.kind(),
            TransportErrorKind::Protocol {
                kind: ErrorKind::LengthTooLarge { limit: 1048576, what: "max_message_len", .. },
                ..
            }
        ),
        "{e}"
    );

    // A negative length is an error too.
    let got = over_tcp(vec![string_declaration(-5)], End::KeepOpen, BufferedCodec::<Binary>::new());
    let e = got.error.expect("negative length");
    assert!(matches!(e.kind(), TransportErrorKind::Protocol { kind: ErrorKind::NegativeLength(-5), .. }), "{e}");
}

#[test]
fn huge_container_declarations_error_at_once() {
    // list<i64> declaring 20 million elements: 160 MB at least, past the 100 MiB message limit.
    let mut wire = Msg::new("put", Value::Struct(Vec::new())).encode::<Binary>();
    wire.pop();
    wire.extend_from_slice(&[TType::List as u8, 0, 1, TType::I64 as u8]);
    wire.extend_from_slice(&20_000_000i32.to_be_bytes());
    let got = over_tcp(vec![wire.clone()], End::KeepOpen, BufferedCodec::<Binary>::new());
    let e = got.error.expect("too large");
    assert!(
        matches!(
            e.kind(),
            TransportErrorKind::Protocol { kind: ErrorKind::LengthTooLarge { what: "max_message_len", .. }, .. }
        ),
        "{e}"
    );

    // The same count past the container limit.
    let limits = Limits { max_container_len: 1000, ..Limits::default() };
    let got = over_tcp(vec![wire], End::KeepOpen, BufferedCodec::<Binary>::with_limits(limits));
    let e = got.error.expect("too many elements");
    assert!(matches!(e.kind(), TransportErrorKind::Protocol { what: "list header", .. }), "{e}");
    assert_eq!(e.depth(), Some(1));
    assert_eq!(e.field_id(), Some(1));
}

#[test]
fn depth_is_limited_while_scanning() {
    let mut body = Value::Struct(Vec::new());
    for _ in 0..70 {
        body = Value::Struct(vec![(1, body)]);
    }
    let wire = Msg::new("deep", body).encode::<Compact>();
    let got = over_tcp(vec![wire], End::KeepOpen, BufferedCodec::<Compact>::new());
    let e = got.error.expect("too deep");
    assert!(matches!(e.kind(), TransportErrorKind::Protocol { kind: ErrorKind::DepthExceeded(64), .. }), "{e}");
    assert_eq!(e.depth(), Some(64));

    // Lists nest too.
    let mut v = Value::List(TType::I8, Vec::new());
    for _ in 0..70 {
        v = Value::List(TType::List, vec![v]);
    }
    let wire = Msg::new("deep", Value::Struct(vec![(1, v)])).encode::<Binary>();
    let got = in_memory(&[&wire], &mut BufferedCodec::<Binary>::new());
    assert!(matches!(
        got.error.expect("too deep").kind(),
        TransportErrorKind::Protocol { kind: ErrorKind::DepthExceeded(64), .. }
    ));
}

#[test]
fn errors_name_the_phase_the_offset_the_depth_and_the_field() {
    // struct { 7: struct { 2: struct { <field of type 0x1f> } } }
    let mut wire = Msg::new("m", Value::Struct(Vec::new())).encode::<Binary>();
    wire.pop();
    let start = wire.len();
    wire.extend_from_slice(&[TType::Struct as u8, 0, 7]); // field 7
    wire.extend_from_slice(&[TType::Struct as u8, 0, 2]); // field 2
    wire.extend_from_slice(&[TType::I32 as u8, 0, 3, 0, 0, 0, 1]); // field 3: i32 1
    wire.extend_from_slice(&[0x1f, 0, 4]);
    let bad = start + 6 + 7;
    let got = in_memory(&[&wire], &mut BufferedCodec::<Binary>::new());
    let e = got.error.expect("invalid type");
    assert_eq!(
        e.to_string(),
        format!("skip-decoder: field header: invalid type id 0x1f at offset {bad}, depth 3 (field id 3) in the message at stream offset 0")
    );
    assert_eq!((e.offset(), e.depth(), e.field_id()), (Some(bad), Some(3), Some(3)));

    // A bad element type in a non-empty list.
    let mut wire = Msg::new("m", Value::Struct(Vec::new())).encode::<Compact>();
    wire.pop();
    wire.extend_from_slice(&[0x19, 0x10]); // field 1: list, one element of type STOP
    let got = in_memory(&[&wire], &mut BufferedCodec::<Compact>::new());
    let e = got.error.expect("STOP elements");
    assert!(
        matches!(e.kind(), TransportErrorKind::Protocol { what: "list header", kind: ErrorKind::InvalidType(0) }),
        "{e}"
    );
    assert_eq!(e.field_id(), Some(1));

    // An empty one declaring the same is accepted, as Apache does.
    let mut wire = Msg::new("m", Value::Struct(Vec::new())).encode::<Compact>();
    wire.pop();
    wire.extend_from_slice(&[0x19, 0x00, 0x00]);
    let got = in_memory(&[&wire], &mut BufferedCodec::<Compact>::new());
    assert!(got.error.is_none(), "{:?}", got.error);
    assert_eq!(got.messages.len(), 1);
}

#[test]
fn compact_bools_folded_into_field_headers_take_no_value_byte() {
    let body = Value::Struct((1..=20).map(|i| (i, Value::Bool(i % 3 == 0))).collect());
    let msg = Msg::new("flags", body);
    let wire = msg.encode::<Compact>();
    // Envelope, 20 one-byte headers, stop: no value bytes.
    assert_eq!(wire.len(), 2 + 1 + 1 + 5 + 20 + 1);
    let pieces: Vec<&[u8]> = wire.chunks(1).collect();
    let got = in_memory(&pieces, &mut BufferedCodec::<Compact>::new());
    assert!(got.error.is_none(), "{:?}", got.error);
    assert_eq!(Msg::decode::<Compact>(&got.messages[0]).unwrap(), msg);
}
