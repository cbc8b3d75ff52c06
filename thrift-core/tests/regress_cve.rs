//! Immunity to the classes of Apache Thrift decoder vulnerabilities, one test group each:
//!
//! - CVE-2019-0205 (all languages up to 0.12.0): an endless loop on malformed input. A skip
//!   that makes no progress (an element type STOP or VOID, or one no type has, repeated a
//!   declared two billion times) or a struct whose fields never end. Here every such input
//!   ends in an error, having walked each input byte at most once.
//! - CVE-2020-13949 (Java up to 0.13.0): huge allocations from declared sizes. Covered for
//!   decode and skip by `limits_alloc.rs` (every container and string kind, both protocols,
//!   with a counting allocator); the transports by `thrift-net/tests/regress_cve.rs`. Here:
//!   the remaining readers (envelopes, `Bytes`, the declared count of a struct's container
//!   field read through a skip of an unknown field).
//! - CVE-2019-0210 (Go up to 0.12.0): panics on crafted input (negative sizes to `make`,
//!   invalid type ids, out-of-range values). Here: errors, never panics, for invalid type ids
//!   everywhere a type is read, out-of-range varints, compact field-id deltas that overflow
//!   an `i16`, and garbage envelopes.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use bytes::Bytes;
use common::Hex;
use thrift_core::{
    skip, ApplicationException, Binary, Compact, Decode, DecodeOwned, ErrorKind, Protocol, Reader, Result, TType,
};

/// Runs `f` on another thread and fails if it has not returned within `secs` seconds, so a
/// regression to an endless loop fails the test instead of hanging the suite.
#[track_caller]
fn within<R: Send + 'static>(secs: u64, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs)).expect("did not finish in time: an endless loop?")
}

/// Decodes `input` as `T` and skips it as `ttype` in `P`, each within 10 seconds; both must
/// fail. Returns the two errors.
#[track_caller]
fn both_fail<P: Protocol, T: DecodeOwned + std::fmt::Debug>(
    input: Vec<u8>,
    ttype: TType,
) -> (thrift_core::Error, thrift_core::Error) {
    let copy = input.clone();
    let decoded = within(10, move || T::decode::<P>(&mut Reader::new(&copy)).map(drop));
    let copy = input.clone();
    let skipped = within(10, move || skip::<P>(&mut Reader::new(&copy), ttype));
    let name = std::any::type_name::<T>();
    let d = decoded.expect_err(&format!("{} decoded {:?} as {name}", P::NAME, Hex(&input[..input.len().min(32)])));
    let s = skipped.expect_err(&format!("{} skipped {:?} as {ttype}", P::NAME, Hex(&input[..input.len().min(32)])));
    (d, s)
}

fn invalid_type(kind: &ErrorKind) -> bool {
    matches!(kind, ErrorKind::InvalidType(_))
}

// ---- CVE-2019-0205: endless loops ------------------------------------------------------

/// Element types that take no bytes, or name no type, with a count the bytes remaining
/// could hold (8, then 8 bytes) and with the largest count a header can declare: walking them
/// would loop that many times without consuming input. Refused at the header: the type when
/// the count fits, the count (beyond the container limit) when it does not.
#[test]
fn zero_width_element_types_are_refused_at_the_header() {
    let refused = |kind: &ErrorKind| {
        matches!(
            kind,
            ErrorKind::InvalidType(_) | ErrorKind::UnexpectedElementType { .. } | ErrorKind::LengthTooLarge { .. }
        )
    };
    for elem in [0x00u8, 0x01, 0x05, 0x07, 0x09, 0x11, 0xff] {
        for count in [[0, 0, 0, 8], [0x7f, 0xff, 0xff, 0xff]] {
            let fits = count[0] == 0;
            let tail = [0u8; 8];
            // Binary list and set: type byte, count, eight bytes.
            let list = [&[elem][..], &count, &tail].concat();
            let (d, s) = both_fail::<Binary, Vec<i32>>(list.clone(), TType::List);
            assert!(refused(d.kind()) && refused(s.kind()), "binary list of 0x{elem:02x}: {d} / {s}");
            assert!(!fits || invalid_type(s.kind()), "binary list of 0x{elem:02x}: {s}");
            let (_, s) = both_fail::<Binary, std::collections::BTreeSet<i32>>(list, TType::Set);
            assert!(!fits || invalid_type(s.kind()), "binary set of 0x{elem:02x}: {s}");
            // Binary map: key and value both zero-width.
            let map = [&[elem, elem][..], &count, &tail, &tail].concat();
            let (d, s) = both_fail::<Binary, std::collections::BTreeMap<i32, i32>>(map, TType::Map);
            assert!(refused(d.kind()) && refused(s.kind()), "binary map of 0x{elem:02x}: {d} / {s}");
            assert!(!fits || invalid_type(s.kind()), "binary map of 0x{elem:02x}: {s}");
        }
    }
    // Compact: long-form list header (the count follows as a varint) with element type STOP
    // (0) or no type (14, 15); a map's key/value byte likewise.
    for elem in [0x00u8, 0x0e, 0x0f] {
        for count in [&[0x08][..], &[0xff, 0xff, 0xff, 0xff, 0x07]] {
            let fits = count.len() == 1;
            let list = [&[0xf0 | elem][..], count, &[0u8; 8]].concat();
            let (d, s) = both_fail::<Compact, Vec<i32>>(list, TType::List);
            assert!(refused(d.kind()) && refused(s.kind()), "compact list of 0x{elem:02x}: {d} / {s}");
            assert!(!fits || invalid_type(s.kind()), "compact list of 0x{elem:02x}: {s}");
            let map = [count, &[elem << 4 | elem], &[0u8; 16]].concat();
            let (d, s) = both_fail::<Compact, std::collections::BTreeMap<i32, i32>>(map, TType::Map);
            assert!(refused(d.kind()) && refused(s.kind()), "compact map of 0x{elem:02x}: {d} / {s}");
            assert!(!fits || invalid_type(s.kind()), "compact map of 0x{elem:02x}: {s}");
        }
    }
}

/// The same where the decoder skips: an unknown field holding the list.
#[test]
fn zero_width_elements_in_an_unknown_field_are_refused() {
    // Binary: field 99 list<VOID> x 8, eight bytes, then stop.
    let input = [&[0x0f, 0x00, 0x63, 0x01, 0, 0, 0, 8][..], &[0u8; 9]].concat();
    let (d, s) = both_fail::<Binary, ApplicationException>(input, TType::Struct);
    assert!(invalid_type(d.kind()), "{d}");
    assert!(invalid_type(s.kind()), "{s}");
    // Compact: field 15 (delta) list<STOP> long form x 8.
    let input = [&[0xf9, 0xf0, 0x08][..], &[0u8; 9]].concat();
    let (d, s) = both_fail::<Compact, ApplicationException>(input, TType::Struct);
    assert!(invalid_type(d.kind()), "{d}");
    assert!(invalid_type(s.kind()), "{s}");
}

/// STOP and VOID as a field's type: refused, not read as "no value" and looped on.
#[test]
fn stop_and_void_as_a_value_type_are_refused() {
    for ttype in [TType::Stop, TType::Void] {
        for input in [&[][..], &[0u8; 16][..]] {
            let e = skip::<Binary>(&mut Reader::new(input), ttype).unwrap_err();
            assert!(invalid_type(e.kind()), "{e}");
            let e = skip::<Compact>(&mut Reader::new(input), ttype).unwrap_err();
            assert!(invalid_type(e.kind()), "{e}");
        }
    }
    // A VOID field in a struct (binary type 1).
    let (d, s) = both_fail::<Binary, ApplicationException>(vec![0x01, 0x00, 0x05, 0x00], TType::Struct);
    assert!(invalid_type(d.kind()) && invalid_type(s.kind()), "{d} / {s}");
}

/// A struct whose fields never end: 4 MiB of fields and no stop byte. Each field consumes
/// input, so decoding and skipping walk to the end once and report it truncated there.
#[test]
fn a_struct_that_never_ends_is_truncated_where_the_input_ends() {
    const N: usize = 1 << 20;
    // Binary: bool field 9 = true, four bytes, repeated.
    let binary: Vec<u8> = [0x02, 0x00, 0x09, 0x01].repeat(N);
    // Compact: bool field, delta 0 long form id 9 (zigzag 18), true folded in: two bytes.
    let compact: Vec<u8> = [0x01, 0x12].repeat(2 * N);
    for (input, compact_protocol) in [(binary, false), (compact, true)] {
        let len = input.len();
        let (d, s) = if compact_protocol {
            both_fail::<Compact, ApplicationException>(input, TType::Struct)
        } else {
            both_fail::<Binary, ApplicationException>(input, TType::Struct)
        };
        for e in [d, s] {
            assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
            assert_eq!(e.offset(), Some(len), "{e}");
        }
    }
}

/// Zero and negative sizes (the Go binary protocol's case): a zero size is an empty value
/// that consumes its length bytes; a negative one is an error, never a loop or a panic.
#[test]
fn zero_and_negative_sizes() {
    // Zero: an empty string, list and map, each consuming exactly its header.
    let mut r = Reader::new(&[0, 0, 0, 0, 0x08, 0, 0, 0, 0, 0x08, 0x08, 0, 0, 0, 0]);
    assert_eq!(String::decode::<Binary>(&mut r).unwrap(), "");
    assert_eq!(Vec::<i32>::decode::<Binary>(&mut r).unwrap(), Vec::<i32>::new());
    assert!(std::collections::BTreeMap::<i32, i32>::decode::<Binary>(&mut r).unwrap().is_empty());
    assert!(r.is_empty());
    // Negative: every size field, both protocols.
    let negative = |kind: &ErrorKind| matches!(kind, ErrorKind::NegativeLength(_));
    for input in [vec![0xff, 0xff, 0xff, 0xff], vec![0x80, 0, 0, 0]] {
        let (d, s) = both_fail::<Binary, String>(input.clone(), TType::String);
        assert!(negative(d.kind()) && negative(s.kind()), "{d} / {s}");
        let list = [&[0x08][..], &input].concat();
        let (d, s) = both_fail::<Binary, Vec<i32>>(list, TType::List);
        assert!(negative(d.kind()) && negative(s.kind()), "{d} / {s}");
        let map = [&[0x08, 0x08][..], &input].concat();
        let (d, s) = both_fail::<Binary, std::collections::BTreeMap<i32, i32>>(map, TType::Map);
        assert!(negative(d.kind()) && negative(s.kind()), "{d} / {s}");
    }
    // Compact: a 32-bit varint of -1 as a string length, a list count, a map count.
    let minus_one = [0xff, 0xff, 0xff, 0xff, 0x0f];
    let (d, s) = both_fail::<Compact, String>(minus_one.to_vec(), TType::String);
    assert!(negative(d.kind()) && negative(s.kind()), "{d} / {s}");
    let (d, s) = both_fail::<Compact, Vec<i32>>([&[0xf5][..], &minus_one].concat(), TType::List);
    assert!(negative(d.kind()) && negative(s.kind()), "{d} / {s}");
    let (d, s) = both_fail::<Compact, std::collections::BTreeMap<i32, i32>>(minus_one.to_vec(), TType::Map);
    assert!(negative(d.kind()) && negative(s.kind()), "{d} / {s}");
}

// ---- CVE-2020-13949: huge allocations from declared sizes -----------------------------

/// Envelopes and `Bytes` with a declared length of 2^31-1 and a few bytes: an error from
/// the declared length alone (the allocation side is measured in `limits_alloc.rs`).
#[test]
fn huge_declared_lengths_in_envelopes_and_shared_bytes() {
    let too_large = |kind: &ErrorKind| matches!(kind, ErrorKind::LengthTooLarge { .. } | ErrorKind::Truncated { .. });
    // Binary strict: version word, name length 2^31-1.
    let strict = [0x80, 0x01, 0x00, 0x01, 0x7f, 0xff, 0xff, 0xff, b'a'];
    let e = Binary::read_message_begin(&mut Reader::new(&strict)).unwrap_err();
    assert!(too_large(e.kind()), "{e}");
    // Binary non-strict: the name length comes first.
    let e = Binary::read_message_begin(&mut Reader::new(&[0x7f, 0xff, 0xff, 0xff, b'a'])).unwrap_err();
    assert!(too_large(e.kind()), "{e}");
    // Compact: id, version and type, seqid, name length 2^31-1 as a varint.
    let compact = [0x82, 0x21, 0x01, 0xff, 0xff, 0xff, 0xff, 0x07, b'a'];
    let e = Compact::read_message_begin(&mut Reader::new(&compact)).unwrap_err();
    assert!(too_large(e.kind()), "{e}");
    // Bytes from a shared buffer.
    let input = Bytes::from_static(&[0x7f, 0xff, 0xff, 0xff, 1, 2, 3]);
    let e = thrift_core::from_bytes::<Binary, Bytes>(&input).unwrap_err();
    assert!(too_large(e.kind()), "{e}");
}

// ---- CVE-2019-0210: panics on crafted input -------------------------------------------

/// Every byte value where a type id is read: a field header, a list, set or map header, in
/// both protocols. Each is a value or an error; none panics.
#[test]
fn every_type_id_everywhere_is_a_value_or_an_error() {
    for b in 0..=255u8 {
        let inputs: [Vec<u8>; 4] = [
            vec![b, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            vec![b, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            vec![b, b, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            vec![0x01, b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ];
        for input in &inputs {
            for ttype in [TType::Struct, TType::List, TType::Set, TType::Map] {
                let _ = skip::<Binary>(&mut Reader::new(input), ttype);
                let _ = skip::<Compact>(&mut Reader::new(input), ttype);
            }
            let _ = thrift_core::from_slice::<Binary, ApplicationException>(input);
            let _ = thrift_core::from_slice::<Compact, ApplicationException>(input);
            let _ = thrift_core::from_slice::<Binary, Vec<Vec<i32>>>(input);
            let _ = thrift_core::from_slice::<Compact, std::collections::BTreeMap<i16, Vec<u8>>>(input);
        }
    }
}

/// Compact field ids are deltas from the previous id: from 32767, a delta of 15 overflows
/// an `i16`. It wraps (as Apache's C++ and Java do, whose ids are 16-bit), so the field is
/// an unknown negative id and skipped; a long-form id beyond `i16` is an error.
#[test]
fn compact_field_id_deltas_that_overflow_wrap_without_panicking() {
    // Field 32767 (long form: type byte, zigzag 65534) holding a byte; then delta 15, byte.
    let input = [0x03, 0xfe, 0xff, 0x03, 0x07, 0xf3, 0x09, 0x00];
    let e: ApplicationException = thrift_core::from_slice::<Compact, _>(&input).unwrap();
    assert_eq!(e, ApplicationException::new(thrift_core::ApplicationExceptionKind::Unknown, ""));
    let mut r = Reader::new(&input);
    skip::<Compact>(&mut r, TType::Struct).unwrap();
    assert!(r.is_empty());
    let mut last = 32767i16;
    let field = Compact::read_field_begin(&mut Reader::new(&[0xf3]), &mut last).unwrap().unwrap();
    assert_eq!(field.id, i16::MIN + 14);
    // A long-form id of zigzag 65536 (32768): beyond i16.
    let e =
        thrift_core::from_slice::<Compact, ApplicationException>(&[0x03, 0x80, 0x80, 0x04, 0x07, 0x00]).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::VarintOverflow { bits: 16 }, "{e}");
}

/// Varints longer than their type, in every place a varint is read: an error, not an
/// overflow panic or a read past the value.
#[test]
fn overlong_varints_everywhere() {
    let long = [0xffu8; 12];
    let check = |r: Result<()>| {
        let e = r.unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::VarintTooLong | ErrorKind::VarintOverflow { .. }), "{e}");
    };
    check(i16::decode::<Compact>(&mut Reader::new(&long)).map(drop));
    check(i32::decode::<Compact>(&mut Reader::new(&long)).map(drop));
    check(i64::decode::<Compact>(&mut Reader::new(&long)).map(drop));
    check(String::decode::<Compact>(&mut Reader::new(&long)).map(drop));
    check(Vec::<i32>::decode::<Compact>(&mut Reader::new(&[&[0xf5][..], &long].concat())).map(drop));
    check(std::collections::BTreeMap::<i32, i32>::decode::<Compact>(&mut Reader::new(&long)).map(drop));
    // A long-form field id, and a message's seqid.
    check(thrift_core::from_slice::<Compact, ApplicationException>(&[&[0x05][..], &long].concat()).map(drop));
    check(Compact::read_message_begin(&mut Reader::new(&[&[0x82, 0x21][..], &long].concat())).map(drop));
}

/// Garbage envelopes: wrong protocol id or version, message types 0 and 5..7, cut short
/// anywhere. Errors, never panics.
#[test]
fn garbage_envelopes() {
    let bad_envelope = |e: &thrift_core::Error| matches!(e.kind(), ErrorKind::BadEnvelope(_));
    // Binary strict with message types 0, 5, 255; and version 2.
    for word in [0x8001_0000u32, 0x8001_0005, 0x8001_00ff, 0x8002_0001, 0xffff_ffff] {
        let mut input = word.to_be_bytes().to_vec();
        input.extend([0, 0, 0, 0, 0, 0, 0, 1]);
        let e = Binary::read_message_begin(&mut Reader::new(&input)).unwrap_err();
        assert!(bad_envelope(&e), "{word:08x}: {e}");
    }
    // Compact: protocol id other than 0x82, version other than 1, types 0 and 5..=7.
    for (id, vt) in [(0x81u8, 0x21u8), (0x82, 0x22), (0x82, 0x01), (0x82, 0xa1), (0x82, 0xe1)] {
        let e = Compact::read_message_begin(&mut Reader::new(&[id, vt, 0x01, 0x00])).unwrap_err();
        assert!(bad_envelope(&e), "{id:02x} {vt:02x}: {e}");
    }
    // A name that is not UTF-8.
    let e = Compact::read_message_begin(&mut Reader::new(&[0x82, 0x21, 0x01, 0x02, 0xc3, 0x28])).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
    // Every prefix of a valid envelope.
    let mut valid = Vec::new();
    Compact::write_message_begin(
        &mut valid,
        &thrift_core::MessageHeader { name: "ping", kind: thrift_core::MessageType::Call, seqid: -7 },
    );
    for n in 0..valid.len() {
        assert!(Compact::read_message_begin(&mut Reader::new(&valid[..n])).is_err());
    }
}
