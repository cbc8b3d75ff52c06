//! Regressions found by fuzzing the buffered transport (`scripts/fuzz.sh`, target `buffered`):
//! the skip-decoding scanner must refuse every message that core's skip refuses, so that a
//! message it hands over never fails there for a reason the scanner stepped over.
//!
//! Both findings were runs of elements stepped over by width without being read: bytes other
//! than 0/1 (binary) or 0/1/2 (compact) in a list or map of bools, and compact `i16` varints
//! whose 3 bytes hold a value beyond `i16`.
//!
//! Then, from a hostile-input run: compact varints of their type's full length whose last
//! byte carries more bits than the type holds (`ff ff ff ff 7f` as an `i32`), which core
//! truncated and now refuses; the scanner stepped over them by their end bytes. It now hands
//! every varint of full length to core's readers.
//!
//! And compact field bytes with a STOP type nibble and a non-zero delta (`0x10`), which core
//! now reads as STOP, as Apache does: the scanner must end the struct there too.

use bytes::BytesMut;
use thrift_core::{skip, Binary, Compact, Limits, MessageHeader, MessageType, Protocol, Reader, TType};
use thrift_net::codec::{BufferedCodec, Scan, Scanner};
use thrift_net::TransportErrorKind;
use tokio_util::codec::Decoder;

/// An envelope for a call to `ping`, then `body` (the args struct).
fn message<P: Protocol>(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    P::write_message_begin(&mut out, &MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 });
    out.extend_from_slice(body);
    out
}

/// Core's verdict: the envelope read and the body skipped as a struct.
fn core_walks<P: Protocol>(msg: &[u8]) -> thrift_core::Result<usize> {
    let mut r = Reader::new(msg);
    P::read_message_begin(&mut r)?;
    skip::<P>(&mut r, TType::Struct)?;
    Ok(r.position())
}

/// Scans `msg` whole and byte by byte, and through the buffered codec: each must fail with
/// an error naming `what`, and core's skip must fail too.
#[track_caller]
fn refused<P: Protocol>(msg: &[u8], what: &str) {
    assert!(core_walks::<P>(msg).is_err(), "core walks {msg:02x?}");

    let err = Scanner::<P>::new(Limits::default()).scan(msg).expect_err("the scanner passed the message whole");
    assert_eq!(err.token(), Some(what), "whole: {err} ({:?})", err.kind());

    let mut scanner = Scanner::<P>::new(Limits::default());
    let mut failed = None;
    for n in 1..=msg.len() {
        match scanner.scan(&msg[..n]) {
            Ok(Scan::NeedMore(_)) => {}
            Ok(Scan::Complete(len)) => panic!("byte by byte: complete at {len} of {msg:02x?}"),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let e = failed.expect("byte by byte: no error");
    assert_eq!(e.to_string(), err.to_string(), "byte by byte and whole fail apart");

    let mut buf = BytesMut::from(msg);
    let e = BufferedCodec::<P>::new().decode(&mut buf).expect_err("the buffered codec yielded the message");
    assert!(matches!(e.kind(), TransportErrorKind::Protocol { what: w, .. } if *w == what), "codec: {e}");
}

#[test]
fn binary_list_of_bool_with_a_non_bool_byte() {
    // field 1: list<bool> [true, 0x80]; stop.
    let msg = message::<Binary>(&[0x0f, 0x00, 0x01, 0x02, 0, 0, 0, 2, 0x01, 0x80, 0x00]);
    refused::<Binary>(&msg, "bool");
    // The same list with a valid second byte passes both.
    let mut ok = msg.clone();
    let at = ok.len() - 2;
    ok[at] = 0x00;
    assert_eq!(Scanner::<Binary>::new(Limits::default()).scan(&ok).unwrap(), Scan::Complete(ok.len()));
    assert_eq!(core_walks::<Binary>(&ok), Ok(ok.len()));
}

#[test]
fn compact_list_of_bool_with_a_non_bool_byte() {
    // field 1 (delta 1, list): list header 2 x bool (type 1), elements 0x01, 0x03; stop.
    let msg = message::<Compact>(&[0x19, 0x21, 0x01, 0x03, 0x00]);
    refused::<Compact>(&msg, "bool");
}

#[test]
fn binary_map_with_a_non_bool_value_byte() {
    // field 1: map<byte, bool> {5: 0x02}; stop.
    let msg = message::<Binary>(&[0x0d, 0x00, 0x01, 0x03, 0x02, 0, 0, 0, 1, 0x05, 0x02, 0x00]);
    refused::<Binary>(&msg, "bool");
}

#[test]
fn compact_list_of_i16_beyond_its_range() {
    // field 1 (delta 1, list): list header 1 x i16 (type 4), element ff ff 7f: a 3-byte
    // zigzag varint of -1048576; stop.
    let msg = message::<Compact>(&[0x19, 0x14, 0xff, 0xff, 0x7f, 0x00]);
    refused::<Compact>(&msg, "i16");
    // A long run: the bad element after 20 good ones.
    let mut body = vec![0x19, 0xf4, 21];
    body.extend([0x02; 20]);
    body.extend([0xff, 0xff, 0x7f, 0x00]);
    refused::<Compact>(&message::<Compact>(&body), "i16");
}

#[test]
fn compact_map_of_i16_beyond_its_range() {
    // field 1 (delta 1, map): 1 entry, i16 -> i16 (0x44), key 0x02, value ff ff 7f; stop.
    let msg = message::<Compact>(&[0x1b, 0x01, 0x44, 0x02, 0xff, 0xff, 0x7f, 0x00]);
    refused::<Compact>(&msg, "i16");
}

/// A compact 32-bit varint of 2^32 (five bytes, the last carrying a bit beyond 32).
const OVER_32: [u8; 5] = [0x80, 0x80, 0x80, 0x80, 0x10];

#[test]
fn compact_scalar_fields_beyond_their_type() {
    // field 1 (delta 1) of type i16, i32, string: a varint beyond 32 bits; stop.
    for (ctype, what) in [(0x14u8, "i16"), (0x15, "i32"), (0x18, "string")] {
        let body = [&[ctype][..], &OVER_32, &[0x00]].concat();
        refused::<Compact>(&message::<Compact>(&body), what);
    }
    // i32 fields of the largest value that fits, and of one beyond, after an ordinary one.
    let ok = message::<Compact>(&[0x15, 0x02, 0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    assert_eq!(Scanner::<Compact>::new(Limits::default()).scan(&ok).unwrap(), Scan::Complete(ok.len()));
    assert_eq!(core_walks::<Compact>(&ok), Ok(ok.len()));
    refused::<Compact>(&message::<Compact>(&[0x15, 0x02, 0x15, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00]), "i32");
    // An i64 whose tenth byte carries two bits.
    let mut body = vec![0x16];
    body.extend([0x80; 9]);
    body.extend([0x02, 0x00]);
    refused::<Compact>(&message::<Compact>(&body), "i64");
}

#[test]
fn compact_headers_beyond_32_bits() {
    // A long-form field id (type i32, delta 0), then its value.
    refused::<Compact>(&message::<Compact>(&[&[0x05][..], &OVER_32, &[0x02, 0x00]].concat()), "field header");
    // field 1: a list of i32 with a long-form size.
    refused::<Compact>(&message::<Compact>(&[&[0x19, 0xf5][..], &OVER_32, &[0x00]].concat()), "list header");
    // field 1: a map with a size of 2^32 + 1, i32 -> i32, one entry.
    let map = [0x1b, 0x81, 0x80, 0x80, 0x80, 0x10, 0x55, 0x02, 0x02, 0x00];
    refused::<Compact>(&message::<Compact>(&map), "map header");
    // The envelope's seqid.
    let mut msg = vec![0x82, 0x21];
    msg.extend(OVER_32);
    msg.extend([0x04, b'p', b'i', b'n', b'g', 0x00]);
    refused::<Compact>(&msg, "envelope");
}

#[test]
fn compact_containers_of_integers_beyond_their_type() {
    // field 1: list<i32> of 3 (the middle one beyond 32 bits); stop.
    let body = [&[0x19, 0x35, 0x02][..], &[0xff, 0xff, 0xff, 0xff, 0x1f], &[0x02, 0x00]].concat();
    refused::<Compact>(&message::<Compact>(&body), "i32");
    // A long run, stepped over a word at a time: the bad one after 20 good ones.
    for (elem, bad, what) in [
        (0x05u8, &OVER_32[..], "i32"),
        (0x06, &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02][..], "i64"),
    ] {
        let mut body = vec![0x19, 0xf0 | elem, 22];
        body.extend([0x02; 20]);
        body.extend(bad);
        body.extend([0x02, 0x00]);
        refused::<Compact>(&message::<Compact>(&body), what);
    }
    // A long run of full-length varints that fit passes both.
    let mut body = vec![0x19, 0xf5, 20];
    for _ in 0..20 {
        body.extend([0xff, 0xff, 0xff, 0xff, 0x0f]);
    }
    body.push(0x00);
    let ok = message::<Compact>(&body);
    assert_eq!(Scanner::<Compact>::new(Limits::default()).scan(&ok).unwrap(), Scan::Complete(ok.len()));
    assert_eq!(core_walks::<Compact>(&ok), Ok(ok.len()));
    // field 1: map<i32, i32> {1: beyond}; and list<string> with a length beyond.
    let map = [&[0x1b, 0x01, 0x55, 0x02][..], &OVER_32, &[0x00]].concat();
    refused::<Compact>(&message::<Compact>(&map), "i32");
    let strings = [&[0x19, 0x28, 0x01, b'a'][..], &OVER_32, &[0x00]].concat();
    refused::<Compact>(&message::<Compact>(&strings), "string");
}

#[test]
fn compact_stop_bytes_with_a_delta_end_the_struct() {
    for stop in (1u8..16).map(|d| d << 4) {
        // field 1 = 1, stop; and field 1: a struct {field 1 = 1, stop}, stop; and
        // field 1: list of 2 structs, each ending in such a stop byte, stop.
        let bodies = [
            vec![0x15, 0x02, stop],
            vec![0x1c, 0x15, 0x02, stop, stop],
            vec![0x19, 0x2c, 0x15, 0x02, stop, stop, stop],
        ];
        for body in bodies {
            let msg = message::<Compact>(&body);
            assert_eq!(core_walks::<Compact>(&msg), Ok(msg.len()), "core, {body:02x?}");
            assert_eq!(Scanner::<Compact>::new(Limits::default()).scan(&msg).unwrap(), Scan::Complete(msg.len()));
            let mut scanner = Scanner::<Compact>::new(Limits::default());
            for n in 1..msg.len() {
                assert!(matches!(scanner.scan(&msg[..n]), Ok(Scan::NeedMore(_))), "{body:02x?} cut at {n}");
            }
            assert_eq!(scanner.scan(&msg).unwrap(), Scan::Complete(msg.len()), "{body:02x?} byte by byte");
        }
    }
}
