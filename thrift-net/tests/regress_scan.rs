//! Regressions found by fuzzing the buffered transport (`scripts/fuzz.sh`, target `buffered`):
//! the skip-decoding scanner must refuse every message that core's skip refuses, so that a
//! message it hands over never fails there for a reason the scanner stepped over.
//!
//! Both findings were runs of elements stepped over by width without being read: bytes other
//! than 0/1 (binary) or 0/1/2 (compact) in a list or map of bools, and compact `i16` varints
//! whose 3 bytes hold a value beyond `i16`.

use bytes::BytesMut;
use thrift_core::{skip, Binary, Compact, Limits, MessageHeader, MessageType, Protocol, Reader, TType};
use thrift_net::{BufferedCodec, Scan, Scanner, TransportErrorKind};
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
    assert!(
        matches!(err.kind(), TransportErrorKind::Protocol { what: w, .. } if *w == what),
        "whole: {err} ({:?})",
        err.kind()
    );

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
    assert!(BufferedCodec::<P>::new().decode(&mut buf).is_err(), "the buffered codec yielded the message");
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
