//! Message envelopes, byte for byte: binary strict (written and read), binary non-strict
//! (read), compact (0x82, version | type << 5, varint seqid, name).

mod common;

use common::Hex;
use thrift_core::{Binary, Compact, ErrorKind, Limits, MessageHeader, MessageType, Protocol, Reader};

/// Checks that `header` is written as `expected` at the reported length and read back.
#[track_caller]
fn golden<P: Protocol>(header: MessageHeader<'_>, expected: &[u8]) {
    let mut buf = Vec::new();
    P::write_message_begin(&mut buf, &header);
    assert_eq!(Hex(&buf), Hex(expected), "{} envelope {header:?}", P::NAME);
    assert_eq!(P::message_begin_len(&header), expected.len());
    let mut r = Reader::new(expected);
    assert_eq!(P::read_message_begin(&mut r).unwrap(), header);
    assert!(r.is_empty());
}

#[track_caller]
fn read_err<P: Protocol>(input: &[u8]) -> thrift_core::Error {
    match P::read_message_begin(&mut Reader::new(input)) {
        Ok(h) => panic!("{} read {:?} as {h:?}", P::NAME, Hex(input)),
        Err(e) => e,
    }
}

fn call(name: &str, seqid: i32) -> MessageHeader<'_> {
    MessageHeader { name, kind: MessageType::Call, seqid }
}

#[test]
fn binary_strict_envelope() {
    golden::<Binary>(
        call("ping", 7),
        &[
            0x80, 0x01, 0x00, 0x01, // version 1 (0x8001), unused byte, type call
            0x00, 0x00, 0x00, 0x04, b'p', b'i', b'n', b'g', // name
            0x00, 0x00, 0x00, 0x07, // seqid
        ],
    );
    for (kind, byte) in
        [(MessageType::Reply, 2u8), (MessageType::Exception, 3), (MessageType::Oneway, 4), (MessageType::Call, 1)]
    {
        golden::<Binary>(
            MessageHeader { name: "", kind, seqid: -1 },
            &[0x80, 0x01, 0x00, byte, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff],
        );
    }
    golden::<Binary>(
        call("Svc:é", i32::MAX),
        &[0x80, 0x01, 0x00, 0x01, 0, 0, 0, 6, b'S', b'v', b'c', b':', 0xc3, 0xa9, 0x7f, 0xff, 0xff, 0xff],
    );
}

#[test]
fn binary_non_strict_envelope_is_read() {
    let input = [
        0x00, 0x00, 0x00, 0x04, b'p', b'i', b'n', b'g', // name length (positive: old style), name
        0x02, // type reply
        0x00, 0x00, 0x01, 0x00, // seqid 256
    ];
    let mut r = Reader::new(&input);
    let header = Binary::read_message_begin(&mut r).unwrap();
    assert_eq!(header, MessageHeader { name: "ping", kind: MessageType::Reply, seqid: 256 });
    assert!(r.is_empty());
    // The name borrows from the input.
    assert_eq!(header.name.as_ptr(), input[4..].as_ptr());
    // An empty name.
    let header = Binary::read_message_begin(&mut Reader::new(&[0, 0, 0, 0, 0x01, 0, 0, 0, 9])).unwrap();
    assert_eq!(header, call("", 9));
}

/// Strict mode ([`Limits::strict_binary_envelope`]): old-style envelopes are refused at their
/// first byte, strict ones still read; off by default, as in Apache.
#[test]
fn binary_strict_mode_refuses_non_strict_envelopes() {
    let non_strict = [0x00, 0x00, 0x00, 0x04, b'p', b'i', b'n', b'g', 0x01, 0x00, 0x00, 0x00, 0x07];
    let mut strict = Vec::new();
    Binary::write_message_begin(&mut strict, &call("ping", 7));
    assert!(!Limits::default().strict_binary_envelope, "off by default");
    assert_eq!(Binary::read_message_begin(&mut Reader::new(&non_strict)), Ok(call("ping", 7)));

    let on = Limits { strict_binary_envelope: true, ..Limits::default() };
    let e = Binary::read_message_begin(&mut Reader::new(&non_strict).with_limits(on)).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::NonStrictEnvelope, Some(0)));
    assert_eq!(e.to_string(), "non-strict binary envelope rejected (strict mode) at offset 0");
    // Even an empty name, and before the rest of the envelope has arrived.
    for input in [&[0u8, 0, 0, 0, 0x01, 0, 0, 0, 9][..], &non_strict[..4]] {
        let e = Binary::read_message_begin(&mut Reader::new(input).with_limits(on)).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::NonStrictEnvelope);
    }
    assert_eq!(Binary::read_message_begin(&mut Reader::new(&strict).with_limits(on)), Ok(call("ping", 7)));
    // Compact has one envelope only: unaffected.
    let mut compact = Vec::new();
    Compact::write_message_begin(&mut compact, &call("ping", 7));
    assert_eq!(Compact::read_message_begin(&mut Reader::new(&compact).with_limits(on)), Ok(call("ping", 7)));
}

#[test]
fn binary_envelope_errors() {
    // Strict with version 2.
    let e = read_err::<Binary>(&[0x80, 0x02, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert!(matches!(e.kind(), ErrorKind::BadEnvelope(_)), "{e}");
    assert_eq!(e.offset(), Some(0));
    // Message type 5 and 0 do not exist.
    for t in [0u8, 5, 0xff] {
        let e = read_err::<Binary>(&[0x80, 0x01, 0x00, t, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(e.kind(), ErrorKind::BadEnvelope(_)), "{e}");
        let e = read_err::<Binary>(&[0, 0, 0, 0, t, 0, 0, 0, 0]);
        assert!(matches!(e.kind(), ErrorKind::BadEnvelope(_)), "{e}");
        assert_eq!(e.offset(), Some(4));
    }
    // Non-UTF-8 method name.
    let e = read_err::<Binary>(&[0x80, 0x01, 0x00, 0x01, 0, 0, 0, 1, 0xff, 0, 0, 0, 0]);
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), Some(8));
    // A non-strict name length beyond the input.
    let e = read_err::<Binary>(&[0x7f, 0xff, 0xff, 0xff, b'x']);
    assert!(matches!(e.kind(), ErrorKind::Truncated { .. } | ErrorKind::LengthTooLarge { .. }), "{e}");
    // A strict name length that is negative.
    let e = read_err::<Binary>(&[0x80, 0x01, 0x00, 0x01, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0]);
    assert_eq!(e.kind(), &ErrorKind::NegativeLength(-2));
}

#[test]
fn compact_envelope() {
    golden::<Compact>(
        call("ping", 7),
        &[
            0x82, // protocol id
            0x21, // version 1 | type call (1) << 5
            0x07, // seqid varint
            0x04, b'p', b'i', b'n', b'g', // name: varint length, bytes
        ],
    );
    for (kind, byte) in [(MessageType::Reply, 0x41u8), (MessageType::Exception, 0x61), (MessageType::Oneway, 0x81)] {
        golden::<Compact>(MessageHeader { name: "", kind, seqid: 0 }, &[0x82, byte, 0x00, 0x00]);
    }
    // The seqid is a plain (not zigzag) varint of its 32 bits: -1 takes five bytes.
    golden::<Compact>(call("a", -1), &[0x82, 0x21, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, b'a']);
    golden::<Compact>(call("a", 300), &[0x82, 0x21, 0xac, 0x02, 0x01, b'a']);
    golden::<Compact>(call("a", i32::MIN), &[0x82, 0x21, 0x80, 0x80, 0x80, 0x80, 0x08, 0x01, b'a']);
}

#[test]
fn compact_envelope_errors() {
    let e = read_err::<Compact>(&[0x80, 0x21, 0x00, 0x00]);
    assert!(matches!(e.kind(), ErrorKind::BadEnvelope(_)), "{e}");
    assert_eq!(e.offset(), Some(0));
    // Version 2.
    let e = read_err::<Compact>(&[0x82, 0x22, 0x00, 0x00]);
    assert!(matches!(e.kind(), ErrorKind::BadEnvelope(_)), "{e}");
    assert_eq!(e.offset(), Some(1));
    // Message types 0, 5 and 7.
    for vt in [0x01u8, 0xa1, 0xe1] {
        let e = read_err::<Compact>(&[0x82, vt, 0x00, 0x00]);
        assert!(matches!(e.kind(), ErrorKind::BadEnvelope(_)), "{e}");
        assert_eq!(e.offset(), Some(1));
    }
    // A seqid varint longer than five bytes.
    let e = read_err::<Compact>(&[0x82, 0x21, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00]);
    assert_eq!(e.kind(), &ErrorKind::VarintTooLong);
    // Invalid UTF-8 in the name.
    let e = read_err::<Compact>(&[0x82, 0x21, 0x00, 0x02, b'a', 0xc3]);
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), Some(4));
}

#[test]
fn a_binary_reader_rejects_a_compact_envelope_and_back() {
    let mut compact = Vec::new();
    Compact::write_message_begin(&mut compact, &call("ping", 1));
    // 0x82 0x21 ... as a binary i32 is negative with version 0x8221: not binary version 1.
    assert!(matches!(read_err::<Binary>(&compact).kind(), ErrorKind::BadEnvelope(_)));
    let mut binary = Vec::new();
    Binary::write_message_begin(&mut binary, &call("ping", 1));
    assert!(matches!(read_err::<Compact>(&binary).kind(), ErrorKind::BadEnvelope(_)));
}

#[test]
fn every_truncated_envelope_is_an_error() {
    for header in [call("ping", 7), call("", -1), MessageHeader { name: "Svc:m", kind: MessageType::Oneway, seqid: 1 }]
    {
        for (name, bytes) in [("binary", encode::<Binary>(&header)), ("compact", encode::<Compact>(&header))] {
            for cut in 0..bytes.len() {
                let prefix = &bytes[..cut];
                let res = if name == "binary" {
                    Binary::read_message_begin(&mut Reader::new(prefix))
                } else {
                    Compact::read_message_begin(&mut Reader::new(prefix))
                };
                assert!(res.is_err(), "{name} envelope cut at {cut}: {:?}", Hex(prefix));
            }
        }
    }
}

fn encode<P: Protocol>(header: &MessageHeader<'_>) -> Vec<u8> {
    let mut buf = Vec::new();
    P::write_message_begin(&mut buf, header);
    buf
}
