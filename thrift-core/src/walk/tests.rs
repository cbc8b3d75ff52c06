//! The walker's tests: the fast path decides exactly what the careful path alone decides
//! (on valid and corrupted messages of every shape: the same end, or the same error at the
//! same offset, depth and field, or the same request for more bytes), in both modes; and
//! each mode's own promises.

use proptest::prelude::*;
use proptest::strategy::Just;

use super::{skip_varints, walkable, Halt, Scan, Scanner, Walk};
use crate::{skip, Binary, Compact, ErrorKind, Limits, MessageHeader, MessageType, Protocol, Reader, TType};

#[allow(dead_code)] // shared with thrift-net's integration tests, which use more of it
#[path = "../../tests/common/value.rs"]
mod value;

fn outcome<P: Protocol>(wire: &[u8], careful_only: bool, limits: Limits) -> String {
    let mut s = Scanner::<P>::new(limits);
    if careful_only {
        s = s.careful_only();
    }
    match s.scan(wire) {
        Ok(Scan::Complete(len)) => format!("complete at {len}"),
        Ok(Scan::NeedMore(need)) => format!("need {need} (at {}, depth {})", s.position(), s.depth()),
        Err(e) => format!("error: {e}"),
    }
}

/// A complete-mode walk (a skip) of the body after the envelope, as `skip` runs it, with
/// or without the fast path: where it ends, or its error.
fn skip_outcome<P: Protocol>(wire: &[u8], careful_only: bool, limits: Limits) -> String {
    let mut r = Reader::new(wire).with_limits(limits);
    if let Err(e) = P::read_message_begin(&mut r) {
        return format!("envelope: {e}");
    }
    let mut walk = Walk::new(&limits, r.position(), 0, Some(wire.len()));
    walk.careful_only = careful_only;
    let walked = walk.start::<P>(&mut r, TType::Struct).map_err(Halt::from).and_then(|()| walk.run::<P>(&mut r));
    match walked.map_err(|halt| walk.error(halt, wire.len())) {
        Ok(()) => format!("skipped to {}", walk.position()),
        Err(e) => format!("error: {e}"),
    }
}

fn agree(wire: &[u8], compact: bool, limits: Limits) -> Result<(), TestCaseError> {
    if compact {
        prop_assert_eq!(outcome::<Compact>(wire, false, limits), outcome::<Compact>(wire, true, limits));
        prop_assert_eq!(skip_outcome::<Compact>(wire, false, limits), skip_outcome::<Compact>(wire, true, limits));
    } else {
        prop_assert_eq!(outcome::<Binary>(wire, false, limits), outcome::<Binary>(wire, true, limits));
        prop_assert_eq!(skip_outcome::<Binary>(wire, false, limits), skip_outcome::<Binary>(wire, true, limits));
    }
    Ok(())
}

/// Limits tight enough that messages of every shape hit them now and then.
fn any_limits() -> impl Strategy<Value = Limits> {
    prop_oneof![
        3 => Just(Limits::default()),
        1 => (1u16..6, 0usize..8, 0usize..8, 20usize..400).prop_map(|(depth, string, container, message)| Limits {
            max_depth: depth,
            max_string_len: string,
            max_container_len: container,
            max_message_len: message,
            ..Limits::default()
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn on_corrupted_messages((wire, compact) in value::corrupted_wire(0), limits in any_limits()) {
        agree(&wire, compact, limits)?;
    }

    #[test]
    fn on_garbage_after_an_envelope(
        body in proptest::collection::vec(any::<u8>(), 0..200),
        compact in any::<bool>(),
    ) {
        let msg = value::Msg::new("m", value::Value::Struct(Vec::new()));
        let mut wire = if compact { msg.encode::<Compact>() } else { msg.encode::<Binary>() };
        wire.pop();
        wire.extend_from_slice(&body);
        agree(&wire, compact, Limits::default())?;
    }
}

/// Compact varints of their type's full length, whose last byte fits the type or carries
/// bits beyond it, as fields, list elements and lengths: whole and cut at every byte.
#[test]
fn on_full_length_varints() {
    let fits32 = [0xff, 0xff, 0xff, 0xff, 0x0f];
    let over32 = [0xff, 0xff, 0xff, 0xff, 0x1f];
    let fits64 = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    let over64 = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03];
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    for (i32s, i64s) in [(fits32, fits64), (over32, over64)] {
        // i16, i32 and i64 fields, and a string field's length.
        for ctype in [0x14u8, 0x15, 0x18] {
            bodies.push([&[ctype][..], &i32s, &[0x00]].concat());
        }
        bodies.push([&[0x16][..], &i64s, &[0x00]].concat());
        // list<i32> and list<i64> of 10, the full-length one among short ones.
        for (elem, v) in [(0x05u8, &i32s[..]), (0x06, &i64s[..])] {
            let mut body = vec![0x19, 0xa0 | elem];
            body.extend([0x02; 4]);
            body.extend(v);
            body.extend([0x02; 5]);
            body.push(0x00);
            bodies.push(body);
        }
        // A list's long-form size and a map's size.
        bodies.push([&[0x19, 0xf3][..], &i32s, &[0x00]].concat());
        bodies.push([&[0x1b][..], &i32s, &[0x33, 0x00]].concat());
    }
    for body in bodies {
        agree_at_every_cut(&body);
    }
}

/// A compact call whose body is `body`: both paths agree on it whole and cut at every byte.
fn agree_at_every_cut(body: &[u8]) {
    let mut wire = Vec::new();
    Compact::write_message_begin(&mut wire, &MessageHeader { name: "m", kind: MessageType::Call, seqid: 1 });
    wire.extend_from_slice(body);
    for cut in 0..=wire.len() {
        agree(&wire[..cut], true, Limits::default()).unwrap();
    }
}

/// Compact field bytes with a STOP type nibble and a non-zero delta end a struct, in both
/// paths, whole and cut at every byte.
#[test]
fn on_stop_bytes_with_a_delta() {
    for stop in (1u8..16).map(|d| d << 4) {
        for body in [vec![0x15, 0x02, stop], vec![0x19, 0x2c, 0x15, 0x02, stop, stop, stop, 0x15]] {
            agree_at_every_cut(&body);
        }
    }
}

#[test]
fn skip_varints_counts_terminators_and_stops_at_full_length_ones() {
    assert_eq!(skip_varints(&[0x01, 0x80, 0x01, 0x7f], 3, 5), (4, 0, false));
    assert_eq!(skip_varints(&[0x01, 0x80], 3, 5), (1, 2, false));
    assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80], 2, 3), (1, 1, true));
    assert_eq!(skip_varints(&[], 1, 3), (0, 1, false));
    // Four bytes pass; a fifth, valid or not, is the reader's to read.
    assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80, 0x01], 2, 5), (5, 0, false));
    assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80, 0x80, 0x0f], 2, 5), (1, 1, true));
    assert_eq!(skip_varints(&[0x01, 0x80, 0x80, 0x80, 0x80], 2, 5), (1, 1, true));
}

/// The byte-at-a-time definition the word-at-a-time `skip_varints` must match.
fn skip_varints_bytewise(bytes: &[u8], mut left: usize, max_bytes: usize) -> (usize, usize, bool) {
    let (mut start, mut i) = (0, 0);
    while left > 0 {
        let Some(&b) = bytes.get(i) else { break };
        i += 1;
        if b & 0x80 == 0 {
            left -= 1;
            start = i;
        } else if i - start >= max_bytes - 1 {
            return (start, left, true);
        }
    }
    (start, left, false)
}

proptest! {
    #[test]
    fn skip_varints_by_words_matches_bytewise(
        // Mostly short varints with runs of continuation bytes of every length.
        bytes in proptest::collection::vec(proptest::prop_oneof![3 => 0u8..0x80, 2 => 0x80u8..=0xff], 0..120),
        left in 0usize..100,
        max in proptest::prop_oneof![Just(3usize), Just(5usize), Just(10usize)],
    ) {
        proptest::prop_assert_eq!(skip_varints(&bytes, left, max), skip_varints_bytewise(&bytes, left, max));
    }

    #[test]
    fn skip_varints_of_mixed_lengths_matches_bytewise(
        // Whole varints of 1 to 11 bytes (past every type's full length), as lists of
        // integers of varying magnitude hold, cut anywhere.
        lens in proptest::collection::vec(1usize..=11, 0..60),
        cut in any::<proptest::sample::Index>(),
        left in 0usize..70,
        max in proptest::prop_oneof![Just(3usize), Just(5usize), Just(10usize)],
    ) {
        let mut bytes: Vec<u8> = lens.iter().flat_map(|&n| std::iter::repeat(0x80).take(n - 1).chain([0x01])).collect();
        bytes.truncate(cut.index(bytes.len() + 1));
        proptest::prop_assert_eq!(skip_varints(&bytes, left, max), skip_varints_bytewise(&bytes, left, max));
    }
}

#[test]
fn walkable_rejects_stop_void_and_unknown() {
    assert_eq!(walkable(Ok(TType::Stop)), Err(0));
    assert_eq!(walkable(Ok(TType::Void)), Err(1));
    assert_eq!(walkable(Err(0x1f)), Err(0x1f));
    assert_eq!(walkable(Ok(TType::Map)), Ok(TType::Map));
}

/// An envelope for a call to `m`, then `body`.
fn message<P: Protocol>(body: &[u8]) -> Vec<u8> {
    let mut wire = Vec::new();
    P::write_message_begin(&mut wire, &MessageHeader { name: "m", kind: MessageType::Call, seqid: 1 });
    wire.extend_from_slice(body);
    wire
}

// Complete mode: `skip` over a whole buffer.

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A skip stops exactly at the value's end whatever follows, and every shorter input
    /// fails with `Truncated` (never "need more", never a panic).
    #[test]
    fn skip_ends_exactly_and_short_input_is_truncated(msg in value::any_msg(), compact in any::<bool>()) {
        let (body, mut wire) = if compact {
            (msg.body.clone(), { let mut w = Vec::new(); value::write::<Compact>(&mut w, &msg.body); w })
        } else {
            (msg.body.clone(), { let mut w = Vec::new(); value::write::<Binary>(&mut w, &msg.body); w })
        };
        let t = body.ttype();
        let len = wire.len();
        wire.extend_from_slice(&[0xff; 5]);
        let skip_at = |input: &[u8]| {
            let mut r = Reader::new(input);
            let res = if compact { skip::<Compact>(&mut r, t) } else { skip::<Binary>(&mut r, t) };
            res.map(|()| r.position())
        };
        prop_assert_eq!(skip_at(&wire), Ok(len));
        for cut in [0, 1, len / 2, len.saturating_sub(1)] {
            if cut < len {
                let e = skip_at(&wire[..cut]).unwrap_err();
                prop_assert!(
                    matches!(e.kind(), ErrorKind::Truncated { .. } | ErrorKind::LengthTooLarge { what: "bytes remaining", .. }),
                    "cut at {} of {}: {}", cut, len, e
                );
            }
        }
    }
}

#[test]
fn skip_truncated_errors_say_where() {
    // A struct: field 1 i32 = 1, field 2 a list of 3 i64 with two there.
    let mut input = vec![0x08, 0x00, 0x01, 0, 0, 0, 1, 0x0f, 0x00, 0x02, 0x0a, 0, 0, 0, 3];
    input.extend([0; 16]);
    let e = skip::<Binary>(&mut Reader::new(&input), TType::Struct).unwrap_err();
    // The list's header already says it cannot fit in what is left.
    assert_eq!(e.kind(), &ErrorKind::LengthTooLarge { len: 3, limit: 2, what: "bytes remaining" });
    assert_eq!((e.offset(), e.token(), e.depth(), e.field_id()), (Some(10), Some("list header"), Some(1), Some(2)));
    // A string cut short inside a nested struct, at depth 2.
    let input = [0x0c, 0x00, 0x07, 0x0b, 0x00, 0x01, 0, 0, 0, 9, b'h', b'i'];
    let e = skip::<Binary>(&mut Reader::new(&input), TType::Struct).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Truncated { needed: 9, remaining: 2 });
    assert_eq!((e.token(), e.depth(), e.field_id()), (Some("string"), Some(2), Some(1)));
    assert_eq!(e.to_string(), "truncated: needed 9 more bytes, 2 remaining at offset 10 (string, depth 2, field id 1)");
}

#[test]
fn skip_counts_the_readers_depth() {
    // list<list<i8>> [[1]]: three levels with the reader already one deep.
    let input = [0x0f, 0, 0, 0, 1, 0x03, 0, 0, 0, 1, 0x01];
    let limits = Limits { max_depth: 2, ..Limits::default() };
    let mut r = Reader::new(&input).with_limits(limits);
    skip::<Binary>(&mut r, TType::List).unwrap();
    assert_eq!(r.position(), input.len());
    let mut r = Reader::new(&input).with_limits(limits);
    r.enter().unwrap();
    let e = skip::<Binary>(&mut r, TType::List).unwrap_err();
    assert_eq!((e.kind(), e.offset(), e.depth()), (&ErrorKind::DepthExceeded(2), Some(5), Some(2)));
    assert_eq!(r.depth(), 1, "a skip leaves the reader's depth as it was");
}

// Resumable mode: the `Scanner` over a growing buffer.

/// Feeds `wire` one byte at a time: every answer before the end is a `NeedMore` that asks
/// for more than there is, never past the end, and never less than the one before; the
/// end is `Complete(len)`. Returns the bytes examined.
fn trickle<P: Protocol>(wire: &[u8]) -> u64 {
    let mut s = Scanner::<P>::default();
    let mut last = 0;
    for n in 0..wire.len() {
        match s.scan(&wire[..n]).unwrap() {
            Scan::NeedMore(need) => {
                assert!(need > n && need <= wire.len(), "NeedMore({need}) at {n} of {}", wire.len());
                assert!(need >= last, "NeedMore({need}) after NeedMore({last})");
                last = need;
            }
            Scan::Complete(len) => panic!("complete at {len} of {}", wire.len()),
        }
    }
    assert_eq!(s.scan(wire).unwrap(), Scan::Complete(wire.len()));
    s.bytes_examined()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Byte-at-a-time feeding gives the same end as the whole message, with monotone
    /// requests and work linear in the length.
    #[test]
    fn scanner_byte_at_a_time(msg in value::any_msg(), compact in any::<bool>()) {
        let wire = if compact { msg.encode::<Compact>() } else { msg.encode::<Binary>() };
        let examined = if compact { trickle::<Compact>(&wire) } else { trickle::<Binary>(&wire) };
        // A token is retried on every byte until it is whole: a varint of 10 bytes costs 55.
        prop_assert!(examined <= 8 * wire.len() as u64 + 64, "{} examined for {}", examined, wire.len());
    }
}

#[test]
fn scanner_and_skip_agree_on_the_end() {
    let mut body = vec![0x19, 0x35, 0x02, 0x04, 0x06, 0x18, 0x02, b'h', b'i'];
    body.push(0x00);
    let wire = message::<Compact>(&body);
    assert_eq!(Scanner::<Compact>::default().scan(&wire).unwrap(), Scan::Complete(wire.len()));
    let mut r = Reader::new(&wire);
    Compact::read_message_begin(&mut r).unwrap();
    skip::<Compact>(&mut r, TType::Struct).unwrap();
    assert_eq!(r.position(), wire.len());
}

/// The scanner's error on `wire`, whole and byte by byte, which must be the same.
fn scan_err<P: Protocol>(wire: &[u8], limits: Limits) -> crate::Error {
    let whole = Scanner::<P>::new(limits).scan(wire).expect_err("whole");
    let mut s = Scanner::<P>::new(limits);
    let trickled = (1..=wire.len()).find_map(|n| s.scan(&wire[..n]).err()).expect("byte by byte");
    assert_eq!(whole.to_string(), trickled.to_string());
    whole
}

#[test]
fn scanner_limits() {
    // Depth: field 1 a struct holding field 1 a struct, under a depth limit of 2.
    let wire = message::<Binary>(&[0x0c, 0x00, 0x01, 0x0c, 0x00, 0x01, 0x00, 0x00, 0x00]);
    let tight = Limits { max_depth: 2, ..Limits::default() };
    let e = scan_err::<Binary>(&wire, tight);
    assert_eq!((e.kind(), e.depth(), e.field_id()), (&ErrorKind::DepthExceeded(2), Some(2), Some(1)));
    assert_eq!(
        Scanner::<Binary>::new(Limits { max_depth: 3, ..tight }).scan(&wire).unwrap(),
        Scan::Complete(wire.len())
    );

    // String length: field 1 a 5-byte string, under a limit of 4.
    let wire = message::<Compact>(&[0x18, 0x05, b'h', b'e', b'l', b'l', b'o', 0x00]);
    let e = scan_err::<Compact>(&wire, Limits { max_string_len: 4, ..Limits::default() });
    assert_eq!(e.kind(), &ErrorKind::LengthTooLarge { len: 5, limit: 4, what: "max_string_len" });
    assert_eq!((e.token(), e.field_id()), (Some("string"), Some(1)));

    // Container length: field 1 a list of 3 i32, under a limit of 2.
    let wire = message::<Compact>(&[0x19, 0x35, 0x02, 0x04, 0x06, 0x00]);
    let e = scan_err::<Compact>(&wire, Limits { max_container_len: 2, ..Limits::default() });
    assert_eq!(e.kind(), &ErrorKind::LengthTooLarge { len: 3, limit: 2, what: "max_container_len" });
    assert_eq!(e.token(), Some("list header"));

    // Message size: a list declaring more i64 than fit, before any of them arrives; a
    // string whose length says the same; and a complete message too long.
    let limits = Limits { max_message_len: 64, ..Limits::default() };
    let wire = message::<Binary>(&[0x0f, 0x00, 0x01, 0x0a, 0, 0, 0, 100]);
    let e = Scanner::<Binary>::new(limits).scan(&wire).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LengthTooLarge { what: "max_message_len", limit: 64, .. }), "{e}");
    let wire = message::<Binary>(&[0x0b, 0x00, 0x01, 0, 0, 0, 100]);
    let e = Scanner::<Binary>::new(limits).scan(&wire).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LengthTooLarge { what: "max_message_len", len: 120, .. }), "{e}");
    let mut body = vec![0x0b, 0x00, 0x01, 0, 0, 0, 60];
    body.extend([b'x'; 60]);
    body.push(0);
    let wire = message::<Binary>(&body);
    let e = Scanner::<Binary>::new(limits).scan(&wire).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LengthTooLarge { what: "max_message_len", .. }), "{e}");
    assert_eq!(Scanner::<Binary>::default().scan(&wire).unwrap(), Scan::Complete(wire.len()));
}

#[test]
fn scanner_resets_between_messages() {
    let one = message::<Binary>(&[0x08, 0x00, 0x01, 0, 0, 0, 7, 0x00]);
    let mut s = Scanner::<Binary>::default();
    assert_eq!(s.scan(&one).unwrap(), Scan::Complete(one.len()));
    // Asking again answers the same until reset.
    assert_eq!(s.scan(&one).unwrap(), Scan::Complete(one.len()));
    s.reset();
    assert_eq!(s.scan(&one[..3]).unwrap(), Scan::NeedMore(4));
    assert_eq!((s.position(), s.depth()), (0, 0));
    assert_eq!(s.scan(&one).unwrap(), Scan::Complete(one.len()));
    assert_eq!(s.bytes_examined(), 2 * one.len() as u64 + 3);
}
