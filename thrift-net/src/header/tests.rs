use bytes::{BufMut, Bytes, BytesMut};
use proptest::prelude::*;
use thrift_core::Limits;

use super::frame::{read, write, Format, FrameInfo};
use super::headers::Headers;
use super::section::MAX_HEADERS;
use crate::error::{Phase, TransportError};
use crate::wire::ProtocolKind;

fn info(format: Format, protocol: ProtocolKind, headers: Headers) -> FrameInfo {
    FrameInfo { format, flags: 0x0001, seqid: 7, protocol, zlib: false, nested: false, framed_payload: false, headers }
}

/// Writes `info` around `payload` and gives back the frame without its length prefix.
fn frame(info: &FrameInfo, payload: &[u8]) -> Bytes {
    let whole = write(info, &info.headers, usize::MAX, payload.len(), |b| b.put_slice(payload)).unwrap();
    let len = u32::from_be_bytes([whole[0], whole[1], whole[2], whole[3]]) as usize;
    assert_eq!(len, whole.len() - 4, "the length prefix counts what follows it");
    whole.slice(4..)
}

fn read_err(frame: &[u8]) -> TransportError {
    let e = read(Bytes::copy_from_slice(frame), &Limits::default()).unwrap_err();
    assert_eq!(e.phase(), Phase::Header);
    e
}

#[test]
fn theader_bytes_are_apaches() {
    // What Apache's Python THeaderTransport writes for seqid 7, binary, one header a=b, and
    // a one-byte payload: protocol 0, no transforms, a key/value block of one entry, no
    // padding needed (8 bytes).
    let mut headers = Headers::new();
    headers.insert("a", "b");
    let info = FrameInfo { flags: 0, ..info(Format::THeader, ProtocolKind::Binary, headers) };
    let whole = write(&info, &info.headers, usize::MAX, 1, |b| b.put_u8(0xaa)).unwrap();
    let expected = [0, 0, 0, 19, 0x0f, 0xff, 0, 0, 0, 0, 0, 7, 0, 2, 0, 0, 1, 1, 1, b'a', 1, b'b', 0xaa];
    assert_eq!(&whole[..], &expected[..]);
}

#[test]
fn a_frame_beyond_the_limit_is_refused_as_a_reader_would_refuse_it() {
    use crate::error::TransportErrorKind;
    let plain = info(Format::THeader, ProtocolKind::Binary, Headers::new());
    // Fixed part 10, a section of 4 (protocol and no transforms, padded): 14 bytes besides
    // the payload follow the length.
    let len = write(&plain, &plain.headers, usize::MAX, 6, |b| b.put_bytes(0, 6)).unwrap().len() - 4;
    assert_eq!(len, 20);
    assert!(write(&plain, &plain.headers, 20, 6, |b| b.put_bytes(0, 6)).is_ok());
    let e = write(&plain, &plain.headers, 19, 6, |b| b.put_bytes(0, 6)).unwrap_err();
    assert!(matches!(e.kind(), TransportErrorKind::FrameTooLarge { len: 20, max: 19 }), "{e}");
    assert_eq!(e.phase(), Phase::Encode);
    // Nested in a framed-transport frame, the outer frame is what a reader bounds.
    let nested = FrameInfo { nested: true, ..plain };
    let e = write(&nested, &nested.headers, 20, 6, |b| b.put_bytes(0, 6)).unwrap_err();
    assert!(matches!(e.kind(), TransportErrorKind::FrameTooLarge { len: 24, max: 20 }), "{e}");
}

#[test]
fn ttheader_bytes_follow_cloudwegos_layout() {
    let mut headers = Headers::new();
    headers.insert("k", "v");
    headers.insert_int(super::ttheader_keys::TO_METHOD, "m");
    let info = FrameInfo { flags: 0, ..info(Format::TTHeader, ProtocolKind::Compact, headers) };
    let whole = write(&info, &info.headers, usize::MAX, 0, |_| {}).unwrap();
    let section = [
        2, 0, // protocol compact, no transforms
        0x01, 0, 1, 0, 1, b'k', 0, 1, b'v', // string key/values: u16 count, u16-length strings
        0x10, 0, 1, 0, 9, 0, 1, b'm', // integer key/values: u16 count, u16 key, u16-length string
        0,    // padding to 20 bytes
    ];
    let mut expected = vec![0, 0, 0, 30, 0x10, 0x00, 0, 0, 0, 0, 0, 7, 0, 5];
    expected.extend_from_slice(&section);
    assert_eq!(&whole[..], &expected[..]);
}

#[test]
fn frames_read_back_as_written() {
    for format in [Format::THeader, Format::TTHeader] {
        for protocol in [ProtocolKind::Binary, ProtocolKind::Compact] {
            let mut headers = Headers::new();
            headers.insert("trace-id", "00f067aa0ba902b7");
            headers.insert("", "");
            headers.insert(vec![0xff, 0], vec![1, 2, 3]);
            if format == Format::TTHeader {
                headers.insert_int(super::ttheader_keys::RPC_TIMEOUT, "250");
                headers.insert("acl_token", "secret");
            }
            let sent = info(format, protocol, headers);
            let payload = b"\x80\x01\x00\x01 a message";
            let (got, body) = read(frame(&sent, payload), &Limits::default()).unwrap();
            assert_eq!(got, sent, "{format:?} {protocol:?}");
            assert_eq!(&body[..], payload);
        }
    }
}

#[test]
fn json_is_theaders_protocol_1_and_not_ttheaders() {
    let sent = info(Format::THeader, ProtocolKind::Json, Headers::new());
    let whole = frame(&sent, b"[1,\"m\",1,0,{}]");
    assert_eq!(whole[10], 1, "protocol id");
    assert_eq!(read(whole, &Limits::default()).unwrap().0.protocol, ProtocolKind::Json);
    let tt = frame(&info(Format::TTHeader, ProtocolKind::Json, Headers::new()), b"[1,\"m\",1,0,{}]");
    assert!(read_err(&tt).to_string().contains("protocol id 1 is neither binary (0) nor compact (2)"));
}

#[test]
fn a_frame_inside_a_frame_reads_and_writes_the_same_way() {
    let sent = FrameInfo { nested: true, ..info(Format::THeader, ProtocolKind::Compact, Headers::new()) };
    let whole = write(&sent, &sent.headers, usize::MAX, 3, |b| b.put_slice(b"abc")).unwrap();
    let outer = u32::from_be_bytes([whole[0], whole[1], whole[2], whole[3]]) as usize;
    let inner = u32::from_be_bytes([whole[4], whole[5], whole[6], whole[7]]) as usize;
    assert_eq!((outer, inner), (whole.len() - 4, whole.len() - 8));
    let (got, body) = read(whole.slice(4..), &Limits::default()).unwrap();
    assert_eq!((got, &body[..]), (sent, &b"abc"[..]));
}

#[test]
fn a_framed_payload_is_unwrapped_and_written_back_framed() {
    // volo-thrift's default: TTHeader around a framed message.
    let sent = FrameInfo { framed_payload: true, ..info(Format::TTHeader, ProtocolKind::Binary, Headers::new()) };
    let f = frame(&sent, b"\x80\x01\x00\x01rest");
    assert_eq!(f[f.len() - 12..f.len() - 8], 8u32.to_be_bytes(), "the message's length before it");
    let (got, body) = read(f, &Limits::default()).unwrap();
    assert_eq!((got, &body[..]), (sent, &b"\x80\x01\x00\x01rest"[..]));
}

#[test]
fn a_key_sent_twice_reads_as_its_last_value() {
    // count 2: a=1, a=2
    let section = [0, 0, 1, 2, 1, b'a', 1, b'1', 1, b'a', 1, b'2', 0, 0, 0, 0];
    let mut f = vec![0x0f, 0xff, 0, 0, 0, 0, 0, 1, 0, 4];
    f.extend_from_slice(&section);
    let (info, _) = read(Bytes::from(f), &Limits::default()).unwrap();
    assert_eq!(info.headers.get("a"), Some("2"));
}

#[test]
fn malformed_headers_are_errors_that_say_what() {
    let good = frame(&info(Format::THeader, ProtocolKind::Binary, Headers::new()), b"x");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (good[..9].to_vec(), "shorter than a header frame's fixed 10"),
        ([&[0x0f, 0xfe], &good[2..]].concat(), "is neither THeader's"),
        (
            {
                let mut f = good.to_vec();
                f[9] = 200; // 800 header bytes in a frame of 15
                f
            },
            "does not fit a frame",
        ),
        (
            {
                let mut f = good.to_vec();
                f[10] = 5; // protocol id 5
                f
            },
            "protocol id 5 is neither binary (0), JSON (1) nor compact (2)",
        ),
        (
            {
                let mut f = good.to_vec();
                f[11] = 1; // one transform...
                f[12] = 9; // ...of id 9
                f
            },
            "unknown transform id 9",
        ),
        (
            vec![0x0f, 0xff, 0, 0, 0, 0, 0, 1, 0, 2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0],
            "varint longer than 5 bytes",
        ),
        (vec![0x0f, 0xff, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0x7f], "127 headers do not fit"),
        (vec![0x0f, 0xff, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1, 1, 9, b'a', 0, 0], "ends inside a string"),
    ];
    for (bytes, says) in cases {
        let e = read_err(&bytes);
        assert!(e.to_string().contains(says), "{bytes:02x?}: {e}");
    }
}

#[test]
fn header_counts_are_bounded_before_anything_is_read() {
    // A block declaring more headers than the section can hold, and one beyond MAX_HEADERS
    // whose entries would fit (empty keys and values).
    let n = MAX_HEADERS + 1;
    let mut section = vec![0, 0, 1];
    let mut v = n as u32;
    while v >= 0x80 {
        section.push(v as u8 | 0x80);
        v >>= 7;
    }
    section.push(v as u8);
    section.resize(section.len() + 2 * n, 0);
    section.resize(section.len().next_multiple_of(4), 0);
    let mut f = vec![0x0f, 0xff, 0, 0, 0, 0, 0, 1];
    f.extend_from_slice(&((section.len() / 4) as u16).to_be_bytes());
    f.extend_from_slice(&section);
    let e = read_err(&f);
    assert!(e.to_string().contains("beyond the 1024 taken"), "{e}");
}

#[test]
fn too_long_a_ttheader_value_is_refused_when_written() {
    let mut headers = Headers::new();
    headers.insert("big", vec![b'x'; 70_000]);
    let e = write(&info(Format::TTHeader, ProtocolKind::Binary, Headers::new()), &headers, usize::MAX, 0, |_| {})
        .unwrap_err();
    assert!(e.to_string().contains("too long for the format"), "{e}");
}

#[test]
fn zlib_payloads_inflate_within_the_frame_limit() {
    let sent = FrameInfo { zlib: true, ..info(Format::THeader, ProtocolKind::Compact, Headers::new()) };
    let payload = vec![7u8; 10_000];
    let f = frame(&sent, &payload);
    assert!(f.len() < 200, "compressed: {} bytes", f.len());
    let (got, body) = read(f.clone(), &Limits::default()).unwrap();
    assert!(got.zlib);
    assert_eq!(&body[..], &payload[..]);
    // The same frame read with a limit below what it inflates to: refused, and inflating
    // stops one byte past the limit.
    let small = Limits { max_frame_len: 4096, ..Limits::default() };
    let e = read(f, &small).unwrap_err();
    assert!(e.to_string().contains("inflates beyond the maximum frame size 4096"), "{e}");
}

proptest! {
    /// Any bytes after a magic: an answer or an error, never a panic, and never more
    /// headers than bytes.
    #[test]
    fn arbitrary_frames_never_panic(tt in any::<bool>(), body in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut f = BytesMut::new();
        f.put_u16(if tt { 0x1000 } else { 0x0fff });
        f.put_slice(&body);
        let len = f.len();
        if let Ok((info, _)) = read(f.freeze(), &Limits::default()) {
            prop_assert!(info.headers.len() <= len);
        }
    }

    /// Any headers, written and read back in either format, are the headers written; kept as
    /// read, copied out by a change, or encoded once, they write the same frame again.
    #[test]
    fn headers_survive_every_representation(
        tt in any::<bool>(),
        strings in proptest::collection::vec(("[a-z_]{0,6}", "[ -~]{0,20}"), 0..6),
        ints in proptest::collection::vec((any::<u16>(), "[0-9]{0,4}"), 0..4),
    ) {
        let format = if tt { Format::TTHeader } else { Format::THeader };
        let mut sent = Headers::new();
        for (k, v) in strings {
            sent.insert(k, v);
        }
        if tt {
            for (k, v) in ints {
                sent.insert_int(k, v);
            }
        }
        let written = frame(&info(format, ProtocolKind::Compact, sent.clone()), b"x");
        let (got, _) = read(written.clone(), &Limits::default()).unwrap();
        prop_assert_eq!(&got.headers, &sent);
        let mut copied = got.headers.clone();
        let absent = "k".repeat(300);
        copied.insert(absent.clone(), "v");
        prop_assert!(copied.remove(&absent).is_some());
        let encoded = super::frame::encode_headers(format, sent.clone());
        for headers in [got.headers, copied, encoded] {
            prop_assert_eq!(&frame(&info(format, ProtocolKind::Compact, headers), b"x"), &written);
        }
    }

    /// Every cut of a valid frame's header section is an error or reads a prefix of it.
    #[test]
    fn cut_frames_never_panic(tt in any::<bool>(), key in "[a-z]{0,8}", value in "[a-z]{0,40}", cut in 0usize..80) {
        let format = if tt { Format::TTHeader } else { Format::THeader };
        let mut headers = Headers::new();
        headers.insert(key, value);
        let f = frame(&info(format, ProtocolKind::Binary, headers), b"payload");
        let _ = read(f.slice(..cut.min(f.len())), &Limits::default());
    }
}

// Per thread: the other tests of this binary, on their own threads, are not counted.
#[global_allocator]
static ALLOCATOR: thrift_alloc_counter::Counting = thrift_alloc_counter::Counting;

#[test]
fn headers_are_read_in_place_and_copied_out_only_when_changed() {
    use super::section::ACL_TOKEN_KEY;
    use super::ttheader_keys::{RPC_TIMEOUT, TO_METHOD};
    use thrift_alloc_counter::measure;

    for format in [Format::THeader, Format::TTHeader] {
        let mut sent = Headers::new();
        sent.insert("trace-id", "4bf92f35");
        sent.insert("client_timeout", "250");
        if format == Format::TTHeader {
            sent.insert_int(TO_METHOD, "ping");
            sent.insert_int(RPC_TIMEOUT, "300");
            sent.insert(ACL_TOKEN_KEY, "secret");
        }
        let bytes = frame(&info(format, ProtocolKind::Binary, sent.clone()), b"x");
        let ((info, _), allocated) = measure(|| read(bytes.clone(), &Limits::default()).unwrap());
        assert_eq!(allocated.count, 0, "{format:?}: reading a frame's headers allocated");
        let (got, allocated) = measure(|| {
            let h = &info.headers;
            (h.get("trace-id"), h.get("client_timeout"), h.int(TO_METHOD), h.get(ACL_TOKEN_KEY), h.len())
        });
        assert_eq!(allocated.count, 0, "{format:?}: the getters allocated");
        let tt = format == Format::TTHeader;
        let expected = (Some("4bf92f35"), Some("250"), tt.then_some("ping"), tt.then_some("secret"), sent.len());
        assert_eq!(got, expected, "{format:?}");
        assert_eq!(info.headers, sent, "{format:?}: read equals what was sent");
        assert_eq!(format!("{:?}", info.headers), format!("{sent:?}"));

        // Changes see every header the frame held, whichever kind.
        let mut changed = info.headers.clone();
        changed.insert("trace-id", "00f067aa");
        assert_eq!(changed.remove("client_timeout").as_deref(), Some(&b"250"[..]));
        assert_eq!(changed.get("trace-id"), Some("00f067aa"));
        assert_eq!(changed.get(ACL_TOKEN_KEY), tt.then_some("secret"));
        if tt {
            assert_eq!(changed.remove_int(TO_METHOD).as_deref(), Some(&b"ping"[..]));
            assert_eq!(changed.int(RPC_TIMEOUT), Some("300"));
        }
        assert_eq!(changed.len(), sent.len() - 1 - usize::from(tt));
        assert_eq!(info.headers, sent, "{format:?}: a changed clone leaves the original alone");

        let mut merged = Headers::new();
        merged.insert("trace-id", "first");
        merged.extend(&info.headers);
        assert_eq!(merged, sent, "{format:?}: extend takes the frame's headers");
    }
}

#[test]
fn headers_encoded_once_write_the_same_frames() {
    use super::frame::encode_headers;
    use super::section::ACL_TOKEN_KEY;
    use super::ttheader_keys::RPC_TIMEOUT;

    for format in [Format::THeader, Format::TTHeader] {
        let mut built = Headers::new();
        built.insert("client_timeout", "250");
        built.insert("caller", "billing");
        built.insert(ACL_TOKEN_KEY, "secret");
        if format == Format::TTHeader {
            built.insert_int(RPC_TIMEOUT, "300");
        }
        let encoded = encode_headers(format, built.clone());
        assert!(encoded.encoding(format).is_some(), "{format:?}: kept as its encoding");
        assert_eq!(encoded, built, "{format:?}: the same headers");
        let plain = info(format, ProtocolKind::Compact, built.clone());
        let copied = info(format, ProtocolKind::Compact, encoded.clone());
        assert_eq!(frame(&copied, b"xyz"), frame(&plain, b"xyz"), "{format:?}: the same bytes");
        // Read back, the frame's headers are its encoding again, and written as such.
        let (read_back, _) = read(frame(&plain, b"xyz"), &Limits::default()).unwrap();
        assert_eq!(read_back.headers, built);
        assert_eq!(read_back.headers.encoding(format), encoded.encoding(format));
        // Changed, they are written from their lists.
        let mut changed = encoded;
        changed.insert("caller", "ledger");
        assert_eq!(changed.encoding(format), None);
        let (changed_back, _) =
            read(frame(&info(format, ProtocolKind::Compact, changed), b""), &Limits::default()).unwrap();
        assert_eq!(changed_back.headers.get("caller"), Some("ledger"));
    }
    // THeader writes no integer keys: headers holding some stay as they are, getters and all.
    let mut ints = Headers::new();
    ints.insert("caller", "billing");
    ints.insert_int(RPC_TIMEOUT, "300");
    let kept = encode_headers(Format::THeader, ints.clone());
    assert_eq!((kept.encoding(Format::THeader), kept.int(RPC_TIMEOUT)), (None, Some("300")));
    assert_eq!(kept, ints);
}
