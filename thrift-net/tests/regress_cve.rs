//! The transports' immunity to the classes of Apache Thrift decoder vulnerabilities (the
//! core readers' is in `thrift-core/tests/regress_cve.rs`):
//!
//! - CVE-2019-0205, endless loops: a message whose struct never ends costs the buffered
//!   codec a bounded number of bytes examined however it arrives, then an error at the end of
//!   the stream; element types that take no bytes are refused at the header; a stream of
//!   zero-length frames is an error, not an endless stream of empty messages.
//! - CVE-2020-13949, allocations from declared sizes: a declared string, list, set, map or
//!   frame length of 2^31-1 is refused from the header; one within the limits but far beyond
//!   the bytes received makes the codecs wait without reserving for it (a counting allocator
//!   measures it).
//! - CVE-2019-0210, panics on crafted input: every one- and two-byte stream, and garbage
//!   after valid envelopes, is an error or a wait, in both codecs and in detection.

use bytes::BytesMut;
use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Binary, Compact, Limits, MessageHeader, MessageType, Protocol};
use thrift_net::codec::{detect, BufferedCodec, FramedCodec};
use thrift_net::{TransportError, TransportErrorKind};
use tokio_util::codec::Decoder;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its result and the bytes this thread allocated meanwhile.
fn allocated_by<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (out, allocated) = measure(f);
    (out, allocated.bytes)
}

/// A call to `ping` in `P`, then `body` (the args struct, or the start of it).
fn message<P: Protocol>(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    P::write_message_begin(&mut out, &MessageHeader { name: "ping", kind: MessageType::Call, seqid: 1 });
    out.extend_from_slice(body);
    out
}

/// Feeds `stream` to `codec` in chunks of `chunk` bytes; the messages, then how it ended.
fn feed<D>(codec: &mut D, stream: &[u8], chunk: usize) -> (usize, Result<(), TransportError>)
where
    D: Decoder<Error = TransportError>,
{
    let mut buf = BytesMut::new();
    let mut messages = 0;
    for piece in stream.chunks(chunk) {
        buf.extend_from_slice(piece);
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(_)) => messages += 1,
                Ok(None) => break,
                Err(e) => return (messages, Err(e)),
            }
        }
    }
    loop {
        match codec.decode_eof(&mut buf) {
            Ok(Some(_)) => messages += 1,
            Ok(None) => return (messages, Ok(())),
            Err(e) => return (messages, Err(e)),
        }
    }
}

// ---- CVE-2019-0205: endless loops ------------------------------------------------------

/// A struct that never ends: 256 KiB of bool fields and no stop byte, fed in chunks of 1 to
/// 4096 bytes. The scanner walks each byte a bounded number of times, then the stream's end
/// is an error naming the truncation.
#[test]
fn a_message_that_never_ends_costs_linear_work_then_an_error() {
    let binary = message::<Binary>(&[0x02, 0x00, 0x09, 0x01].repeat(1 << 16));
    let compact = message::<Compact>(&[0x01, 0x12].repeat(1 << 17));
    for chunk in [1, 7, 4096] {
        for (stream, compact_protocol) in [(&binary, false), (&compact, true)] {
            let (examined, (messages, end)) = if compact_protocol {
                let mut codec = BufferedCodec::<Compact>::new();
                let out = feed(&mut codec, stream, chunk);
                (codec.bytes_examined(), out)
            } else {
                let mut codec = BufferedCodec::<Binary>::new();
                let out = feed(&mut codec, stream, chunk);
                (codec.bytes_examined(), out)
            };
            assert_eq!(messages, 0);
            let e = end.unwrap_err();
            assert!(matches!(e.kind(), TransportErrorKind::Truncated { buffered } if *buffered == stream.len()), "{e}");
            assert!(
                examined <= 4 * stream.len() as u64,
                "chunks of {chunk}: examined {examined} bytes of {}",
                stream.len()
            );
        }
    }
}

/// Lists, sets and maps of STOP, VOID or no type, with counts the bytes could hold and with
/// 2^31-1: refused at the header, in both protocols.
#[test]
fn zero_width_element_types_in_a_message_are_refused() {
    for elem in [0x00u8, 0x01, 0x07, 0x11] {
        for count in [[0, 0, 0, 8], [0x7f, 0xff, 0xff, 0xff]] {
            // field 1: list (or set), element type, count, eight bytes; stop.
            for container in [0x0fu8, 0x0e] {
                let body = [&[container, 0x00, 0x01, elem][..], &count, &[0u8; 9]].concat();
                let (_, end) = feed(&mut BufferedCodec::<Binary>::new(), &message::<Binary>(&body), 1 << 20);
                let e = end.unwrap_err();
                assert!(
                    matches!(
                        e.kind(),
                        TransportErrorKind::Protocol {
                            kind: thrift_core::ErrorKind::InvalidType(_)
                                | thrift_core::ErrorKind::LengthTooLarge { .. },
                            ..
                        }
                    ),
                    "0x{elem:02x}: {e}"
                );
            }
            let body = [&[0x0d, 0x00, 0x01, elem, elem][..], &count, &[0u8; 17]].concat();
            let (_, end) = feed(&mut BufferedCodec::<Binary>::new(), &message::<Binary>(&body), 1 << 20);
            assert!(end.is_err(), "map of 0x{elem:02x}");
        }
    }
    for elem in [0x00u8, 0x0e, 0x0f] {
        // Compact field 1 list (0x19), long-form header of type `elem`, count 8 or 2^31-1.
        for count in [&[0x08][..], &[0xff, 0xff, 0xff, 0xff, 0x07]] {
            let body = [&[0x19, 0xf0 | elem][..], count, &[0u8; 9]].concat();
            let (_, end) = feed(&mut BufferedCodec::<Compact>::new(), &message::<Compact>(&body), 1 << 20);
            assert!(end.is_err(), "compact list of 0x{elem:02x}");
        }
    }
}

/// Zero-length frames: an error at the first one, not an endless stream of empty messages.
#[test]
fn zero_length_frames_are_an_error() {
    let (messages, end) = feed(&mut FramedCodec::<Binary>::new(), &[0u8; 4096], 4096);
    assert_eq!(messages, 0);
    assert!(matches!(end.unwrap_err().kind(), TransportErrorKind::EmptyFrame));
}

// ---- CVE-2020-13949: allocations from declared sizes ----------------------------------

/// Declared lengths of 2^31-1: refused from the header, allocating only the error.
#[test]
fn huge_declared_lengths_are_refused_without_allocating() {
    let huge = [0x7f, 0xff, 0xff, 0xff];
    let bodies: [Vec<u8>; 4] = [
        [&[0x0b, 0x00, 0x01][..], &huge, b"abc"].concat(),        // string
        [&[0x0f, 0x00, 0x01, 0x0a][..], &huge, &[0; 8]].concat(), // list<i64>
        [&[0x0e, 0x00, 0x01, 0x0b][..], &huge, &[0; 8]].concat(), // set<string>
        [&[0x0d, 0x00, 0x01, 0x08, 0x0c][..], &huge, &[0; 8]].concat(), // map<i32, struct>
    ];
    for body in &bodies {
        let msg = message::<Binary>(body);
        let ((_, end), bytes) = allocated_by(|| feed(&mut BufferedCodec::<Binary>::new(), &msg, 1 << 20));
        let e = end.unwrap_err();
        assert!(bytes < 4096 + msg.len(), "{e}: allocated {bytes}");
    }
    // The envelope's name.
    let msg = [0x80, 0x01, 0x00, 0x01, 0x7f, 0xff, 0xff, 0xff, b'a'];
    let ((_, end), bytes) = allocated_by(|| feed(&mut BufferedCodec::<Binary>::new(), &msg, 1 << 20));
    assert!(end.is_err());
    assert!(bytes < 4096, "allocated {bytes}");
    // Compact: a list<i64> of 2^31-1 elements.
    let msg = message::<Compact>(&[0x19, 0xf6, 0xff, 0xff, 0xff, 0xff, 0x07, 0, 0]);
    let ((_, end), bytes) = allocated_by(|| feed(&mut BufferedCodec::<Compact>::new(), &msg, 1 << 20));
    assert!(end.is_err());
    assert!(bytes < 4096 + msg.len(), "allocated {bytes}");
    // A frame of 2^31-1 bytes.
    let ((_, end), bytes) =
        allocated_by(|| feed(&mut FramedCodec::<Binary>::new(), &[0x7f, 0xff, 0xff, 0xff, 0x80, 0x01], 1 << 20));
    assert!(matches!(end.unwrap_err().kind(), TransportErrorKind::FrameTooLarge { .. }));
    assert!(bytes < 4096, "allocated {bytes}");
}

/// Declared lengths within the limits but far beyond the bytes received (a 90 MB string,
/// ten million i64s, a 16 MB frame): the codecs wait for more without reserving for the
/// declared length; memory follows the bytes that actually came.
#[test]
fn declared_lengths_within_the_limits_reserve_only_what_arrived() {
    const CAP: usize = 64 * 1024;
    let msgs = [
        message::<Binary>(&[&[0x0b, 0x00, 0x01][..], &(90_000_000i32).to_be_bytes(), b"abc"].concat()),
        message::<Binary>(&[&[0x0f, 0x00, 0x01, 0x0a][..], &(10_000_000i32).to_be_bytes(), &[0; 8]].concat()),
    ];
    for msg in &msgs {
        let mut codec = BufferedCodec::<Binary>::new();
        let mut buf = BytesMut::from(&msg[..]);
        let (res, bytes) = allocated_by(|| codec.decode(&mut buf));
        assert!(res.unwrap().is_none(), "a message was yielded");
        assert!(bytes < CAP && buf.capacity() < CAP, "allocated {bytes}, capacity {}", buf.capacity());
    }
    let mut codec = FramedCodec::<Binary>::new();
    let mut buf = BytesMut::from(&[&(16_000_000u32).to_be_bytes()[..], &[0x80, 0x01, 0x00, 0x01]].concat()[..]);
    let (res, bytes) = allocated_by(|| codec.decode(&mut buf));
    assert!(res.unwrap().is_none());
    assert!(bytes < CAP && buf.capacity() < CAP, "allocated {bytes}, capacity {}", buf.capacity());
}

// ---- CVE-2019-0210: panics on crafted input -------------------------------------------

/// Every stream of one or two bytes, in both codecs and both protocols, and in detection:
/// a message, an error or a wait; never a panic.
#[test]
fn every_short_stream_is_an_answer() {
    let limits = Limits::default();
    for a in 0..=255u8 {
        for b in 0..=256u16 {
            let stream: Vec<u8> = if b == 256 { vec![a] } else { vec![a, b as u8] };
            let _ = feed(&mut BufferedCodec::<Binary>::new(), &stream, 1);
            let _ = feed(&mut BufferedCodec::<Compact>::new(), &stream, 1);
            let _ = feed(&mut FramedCodec::<Binary>::new(), &stream, 1);
            let _ = detect(&stream, &limits);
        }
    }
}

/// Garbage after valid envelopes (every byte value, then a run of them) in the buffered
/// codec: an error or a wait, never a panic; and whatever it yields is a whole message.
#[test]
fn garbage_after_an_envelope_is_an_answer() {
    for b in 0..=255u8 {
        for run in [1usize, 2, 3, 9] {
            let garbage = vec![b; run];
            for (stream, compact) in [(message::<Binary>(&garbage), false), (message::<Compact>(&garbage), true)] {
                let (messages, end) = if compact {
                    feed(&mut BufferedCodec::<Compact>::new(), &stream, 3)
                } else {
                    feed(&mut BufferedCodec::<Binary>::new(), &stream, 3)
                };
                assert!(messages <= 1);
                assert!(messages == 1 || end.is_err(), "{stream:02x?}: neither a message nor an error");
            }
        }
    }
}
