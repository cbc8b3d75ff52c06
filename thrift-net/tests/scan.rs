//! The scanner resumes rather than re-walks: a message fed one byte at a time costs a small
//! constant times its length in bytes examined, and every chunking gives the same answer.

mod common;

use bytes::{Bytes, BytesMut};
use common::value::{any_chunks, any_msg, corrupted_wire, cut, Msg, Value};
use proptest::prelude::*;
use thrift_core::{Binary, Compact, Limits, Protocol, TType};
use thrift_net::codec::{BufferedCodec, Scan, Scanner};
use tokio_util::codec::Decoder;

/// A ~100 KB message of many small tokens: lists of structs with ints, strings, doubles,
/// bools, nested maps and lists of varints.
fn big_msg() -> Msg {
    let items: Vec<Value> = (0..1500)
        .map(|i| {
            Value::Struct(vec![
                (1, Value::I64(i * 1_000_003)),
                (2, Value::Str(format!("item number {i}").into_bytes())),
                (3, Value::Double((i as f64 * 0.5).to_bits())),
                (4, Value::Bool(i % 2 == 0)),
                (5, Value::List(TType::I32, (0..8).map(|k| Value::I32(k * i as i32 - 300)).collect())),
                (
                    7,
                    Value::Map(
                        TType::String,
                        TType::I16,
                        vec![
                            (Value::Str(b"a".to_vec()), Value::I16(i as i16)),
                            (Value::Str(b"bb".to_vec()), Value::I16(-1)),
                        ],
                    ),
                ),
                (300, Value::I8(i as i8)),
            ])
        })
        .collect();
    Msg::new("bulkInsert", Value::Struct(vec![(1, Value::List(TType::Struct, items)), (2, Value::I32(7))]))
}

/// Feeds `wire` to a scanner one byte at a time; returns the bytes examined.
fn trickle<P: Protocol>(wire: &[u8]) -> u64 {
    let mut s = Scanner::<P>::new(Limits::default());
    for n in 1..wire.len() {
        match s.scan(&wire[..n]).unwrap() {
            Scan::NeedMore(need) => {
                assert!(need > n && need <= wire.len(), "NeedMore({need}) at {n} of {}", wire.len())
            }
            Scan::Complete(len) => panic!("complete at {len} of {}", wire.len()),
        }
    }
    assert_eq!(s.scan(wire).unwrap(), Scan::Complete(wire.len()));
    s.bytes_examined()
}

fn check_linear<P: Protocol>() {
    let wire = big_msg().encode::<P>();
    assert!(wire.len() > 90_000, "{} bytes", wire.len());

    let mut whole = Scanner::<P>::new(Limits::default());
    assert_eq!(whole.scan(&wire).unwrap(), Scan::Complete(wire.len()));
    assert_eq!(whole.bytes_examined(), wire.len() as u64, "all at once: each byte once");

    let examined = trickle::<P>(&wire);
    let ratio = examined as f64 / wire.len() as f64;
    println!("{}: {} bytes, {examined} examined one byte at a time ({ratio:.2}x)", P::NAME, wire.len());
    // Re-walking from the start on every byte would examine ~len^2/2 (about 5e9 here).
    assert!(examined <= 4 * wire.len() as u64, "{examined} examined for {} bytes", wire.len());
}

#[test]
fn one_byte_at_a_time_is_linear_binary() {
    check_linear::<Binary>();
}

#[test]
fn one_byte_at_a_time_is_linear_compact() {
    check_linear::<Compact>();
}

#[test]
fn one_byte_at_a_time_through_the_codec() {
    let msg = big_msg();
    let wire = msg.encode::<Compact>();
    let mut codec = BufferedCodec::<Compact>::new();
    let mut buf = BytesMut::new();
    let mut got: Option<Bytes> = None;
    for (i, b) in wire.iter().enumerate() {
        buf.extend_from_slice(&[*b]);
        if let Some(m) = codec.decode(&mut buf).unwrap() {
            assert_eq!(i, wire.len() - 1, "complete early");
            got = Some(m);
        }
        // The codec never reserves far beyond the bytes that came.
        assert!(buf.capacity() <= 2 * (i + 1) + 64 * 1024, "capacity {} after {} bytes", buf.capacity(), i + 1);
    }
    let got = got.expect("complete");
    assert_eq!(&got[..], &wire[..]);
    assert_eq!(Msg::decode::<Compact>(&got).unwrap(), msg);
    assert!(codec.bytes_examined() <= 4 * wire.len() as u64);
}

#[test]
fn a_long_string_trickling_in_is_not_re_read() {
    let msg = Msg::new("blob", Value::Struct(vec![(1, Value::Str(vec![7; 200_000]))]));
    for compact in [false, true] {
        let wire = if compact { msg.encode::<Compact>() } else { msg.encode::<Binary>() };
        let examined = if compact { trickle::<Compact>(&wire) } else { trickle::<Binary>(&wire) };
        // Once its length is read the body is stepped over: the scanner does not even wake
        // up until the buffer holds it all.
        assert!(examined <= wire.len() as u64 + 64, "{examined} for {}", wire.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// However the bytes arrive, the scanner ends at the message's end; every NeedMore asks
    /// for more than it has and never past the end (or the reader would wait forever).
    #[test]
    fn every_chunking_finds_the_same_end(msg in any_msg(), sizes in any_chunks(), compact in any::<bool>()) {
        let wire = if compact { msg.encode::<Compact>() } else { msg.encode::<Binary>() };
        let mut trailing = wire.clone();
        trailing.extend_from_slice(&[0xff; 7]); // the next message's bytes must not matter
        let mut have = 0;
        let mut result = None;
        let (mut sb, mut sc) = (Scanner::<Binary>::default(), Scanner::<Compact>::default());
        for piece in cut(&trailing, &sizes) {
            have += piece.len();
            let r = if compact { sc.scan(&trailing[..have]) } else { sb.scan(&trailing[..have]) };
            match r.unwrap() {
                Scan::NeedMore(need) => {
                    prop_assert!(need > have && need <= wire.len(), "NeedMore({}) with {} of {}", need, have, wire.len());
                }
                Scan::Complete(len) => {
                    result = Some(len);
                    break;
                }
            }
        }
        prop_assert_eq!(result, Some(wire.len()));
    }
}

/// The scanner's whole answer for `wire` fed in pieces: where it completes, the error it
/// gives (as displayed: kind, offset, depth, field), or what it last asked for.
fn outcome<P: Protocol>(wire: &[u8], sizes: &[usize]) -> String {
    let mut s = Scanner::<P>::default();
    let mut have = 0;
    let mut last = String::from("nothing fed");
    for piece in cut(wire, sizes) {
        have += piece.len();
        match s.scan(&wire[..have]) {
            Ok(Scan::Complete(len)) => return format!("complete at {len}"),
            Ok(Scan::NeedMore(need)) => last = format!("need {need}"),
            Err(e) => return format!("error: {e}"),
        }
    }
    last
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// Corrupted messages get the same answer (the end, or the error to its offset, depth
    /// and field id, or the bytes asked for) whether they arrive whole or a byte at a time.
    #[test]
    fn chunking_never_changes_the_answer_on_corrupted_messages((wire, compact) in corrupted_wire(1)) {
        let (whole, trickled) = if compact {
            (outcome::<Compact>(&wire, &[wire.len().max(1)]), outcome::<Compact>(&wire, &[1]))
        } else {
            (outcome::<Binary>(&wire, &[wire.len().max(1)]), outcome::<Binary>(&wire, &[1]))
        };
        prop_assert_eq!(whole, trickled);
    }
}
