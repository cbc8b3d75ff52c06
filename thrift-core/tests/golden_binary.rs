//! Golden bytes for the binary protocol, written by hand from Apache Thrift's specification
//! (`doc/specs/thrift-binary-protocol.md`): big-endian fixed-width integers, `i32` length
//! prefixes, a field header is the type byte then the `i16` id, a struct ends with 0x00.
//!
//! Type ids: bool 2, byte 3, double 4, i16 6, i32 8, i64 10, string 11, struct 12, map 13,
//! set 14, list 15, uuid 16.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use bytes::Bytes;
use common::{golden, golden_encode, Fields};
use thrift_core::{Binary, Protocol, Reader, StructDecoder, StructEncoder, StructSizer, Uuid};

#[test]
fn bool_is_one_byte_one_or_zero() {
    golden::<Binary, _>(&true, &[0x01]);
    golden::<Binary, _>(&false, &[0x00]);
}

#[test]
fn i8_is_one_byte_twos_complement() {
    golden::<Binary, _>(&0i8, &[0x00]);
    golden::<Binary, _>(&-2i8, &[0xfe]);
    golden::<Binary, _>(&i8::MAX, &[0x7f]);
    golden::<Binary, _>(&i8::MIN, &[0x80]);
}

#[test]
fn i16_is_two_bytes_big_endian() {
    golden::<Binary, _>(&1i16, &[0x00, 0x01]);
    golden::<Binary, _>(&0x1234i16, &[0x12, 0x34]);
    golden::<Binary, _>(&-2i16, &[0xff, 0xfe]);
    golden::<Binary, _>(&i16::MIN, &[0x80, 0x00]);
}

#[test]
fn i32_is_four_bytes_big_endian() {
    golden::<Binary, _>(&1i32, &[0x00, 0x00, 0x00, 0x01]);
    golden::<Binary, _>(&0x0102_0304i32, &[0x01, 0x02, 0x03, 0x04]);
    golden::<Binary, _>(&-1i32, &[0xff, 0xff, 0xff, 0xff]);
    golden::<Binary, _>(&i32::MIN, &[0x80, 0x00, 0x00, 0x00]);
}

#[test]
fn i64_is_eight_bytes_big_endian() {
    golden::<Binary, _>(&0x0102_0304_0506_0708i64, &[0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]);
    golden::<Binary, _>(&-2i64, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]);
    golden::<Binary, _>(&i64::MIN, &[0x80, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn double_is_ieee754_bits_big_endian() {
    golden::<Binary, _>(&1.0f64, &[0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
    golden::<Binary, _>(&-2.5f64, &[0xc0, 0x04, 0, 0, 0, 0, 0, 0]);
    golden::<Binary, _>(&0.0f64, &[0; 8]);
    // A NaN payload survives: compare bits, since NaN != NaN.
    let nan = f64::from_bits(0x7ff8_0000_0000_0001);
    golden_encode::<Binary, _>(&nan, &[0x7f, 0xf8, 0, 0, 0, 0, 0, 0x01]);
    let back: f64 = thrift_core::from_slice::<Binary, _>(&[0x7f, 0xf8, 0, 0, 0, 0, 0, 0x01]).unwrap();
    assert_eq!(back.to_bits(), nan.to_bits());
}

#[test]
fn string_is_i32_length_then_utf8() {
    golden::<Binary, _>(&String::new(), &[0x00, 0x00, 0x00, 0x00]);
    golden::<Binary, _>(&"hi".to_string(), &[0x00, 0x00, 0x00, 0x02, b'h', b'i']);
    // Length counts bytes, not chars: é = c3 a9, € = e2 82 ac.
    golden::<Binary, _>(&"é€".to_string(), &[0x00, 0x00, 0x00, 0x05, 0xc3, 0xa9, 0xe2, 0x82, 0xac]);
    golden_encode::<Binary, str>("hi", &[0x00, 0x00, 0x00, 0x02, b'h', b'i']);
    // Borrowed decoding points into the input.
    let input = [0x00, 0x00, 0x00, 0x02, b'h', b'i'];
    let s: &str = thrift_core::from_slice::<Binary, _>(&input).unwrap();
    assert_eq!(s.as_ptr(), input[4..].as_ptr());
}

#[test]
fn binary_is_i32_length_then_bytes() {
    golden::<Binary, _>(&vec![0xcau8, 0xfe], &[0x00, 0x00, 0x00, 0x02, 0xca, 0xfe]);
    golden::<Binary, _>(&Vec::<u8>::new(), &[0x00, 0x00, 0x00, 0x00]);
    golden::<Binary, _>(&Bytes::from_static(&[0x00, 0xff]), &[0x00, 0x00, 0x00, 0x02, 0x00, 0xff]);
}

#[test]
fn uuid_is_sixteen_bytes_in_order() {
    let bytes: [u8; 16] =
        [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff];
    golden::<Binary, _>(&Uuid(bytes), &bytes);
}

#[test]
fn list_header_is_elem_type_then_i32_count() {
    golden::<Binary, _>(
        &vec![1i32, -1],
        &[
            0x08, // element type i32
            0x00, 0x00, 0x00, 0x02, // count 2
            0x00, 0x00, 0x00, 0x01, // 1
            0xff, 0xff, 0xff, 0xff, // -1
        ],
    );
    golden::<Binary, _>(&Vec::<i32>::new(), &[0x08, 0x00, 0x00, 0x00, 0x00]);
    // list<bool>: elements are single bytes 1 / 0.
    golden::<Binary, _>(&vec![true, false], &[0x02, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00]);
    // Vec<i8> is list<byte>, not binary.
    golden::<Binary, _>(&vec![1i8, -1], &[0x03, 0x00, 0x00, 0x00, 0x02, 0x01, 0xff]);
    // list<binary>
    golden::<Binary, _>(&vec![vec![0xabu8]], &[0x0b, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0xab]);
    // list<double>
    golden::<Binary, _>(&vec![1.0f64], &[0x04, 0x00, 0x00, 0x00, 0x01, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
    // list<uuid>
    let mut uuids = vec![0x10, 0x00, 0x00, 0x00, 0x01];
    uuids.extend([7u8; 16]);
    golden::<Binary, _>(&vec![Uuid([7; 16])], &uuids);
}

#[test]
fn nested_lists() {
    golden::<Binary, _>(
        &vec![vec![7i16], vec![]],
        &[
            0x0f, 0x00, 0x00, 0x00, 0x02, // list<list>, 2 elements
            0x06, 0x00, 0x00, 0x00, 0x01, 0x00, 0x07, // list<i16> [7]
            0x06, 0x00, 0x00, 0x00, 0x00, // list<i16> []
        ],
    );
    golden::<Binary, _>(
        &vec![vec!["a".to_string()]],
        &[
            0x0f, 0x00, 0x00, 0x00, 0x01, // list<list>, 1 element
            0x0b, 0x00, 0x00, 0x00, 0x01, // list<string>, 1 element
            0x00, 0x00, 0x00, 0x01, b'a', // "a"
        ],
    );
}

#[test]
fn set_header_is_like_a_list() {
    golden::<Binary, _>(
        &BTreeSet::from([2i16, 1]),
        &[
            0x06, 0x00, 0x00, 0x00, 0x02, // element type i16, count 2
            0x00, 0x01, 0x00, 0x02, // 1, 2 (BTreeSet order)
        ],
    );
    golden::<Binary, _>(&HashSet::from([5i32]), &[0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05]);
    golden::<Binary, _>(&BTreeSet::<String>::new(), &[0x0b, 0x00, 0x00, 0x00, 0x00]);
}

#[test]
fn map_header_is_key_type_value_type_then_i32_count() {
    golden::<Binary, _>(
        &BTreeMap::from([("a".to_string(), 1i32), ("b".to_string(), 2)]),
        &[
            0x0b, 0x08, // key string, value i32
            0x00, 0x00, 0x00, 0x02, // 2 entries
            0x00, 0x00, 0x00, 0x01, b'a', // "a"
            0x00, 0x00, 0x00, 0x01, // 1
            0x00, 0x00, 0x00, 0x01, b'b', // "b"
            0x00, 0x00, 0x00, 0x02, // 2
        ],
    );
    // Binary writes both types even for an empty map.
    golden::<Binary, _>(&BTreeMap::<i8, bool>::new(), &[0x03, 0x02, 0x00, 0x00, 0x00, 0x00]);
    golden::<Binary, _>(
        &HashMap::from([(1i32, "x".to_string())]),
        &[
            0x08, 0x0b, 0x00, 0x00, 0x00, 0x01, // i32 -> string, 1 entry
            0x00, 0x00, 0x00, 0x01, // 1
            0x00, 0x00, 0x00, 0x01, b'x', // "x"
        ],
    );
    golden::<Binary, _>(
        &BTreeMap::from([(3i16, vec![true])]),
        &[
            0x06, 0x0f, 0x00, 0x00, 0x00, 0x01, // i16 -> list, 1 entry
            0x00, 0x03, // 3
            0x02, 0x00, 0x00, 0x00, 0x01, 0x01, // list<bool> [true]
        ],
    );
}

#[test]
fn empty_struct_is_the_stop_byte() {
    golden::<Binary, _>(&Fields::<i32>(vec![]), &[0x00]);
}

#[test]
fn field_header_is_type_then_i16_id() {
    golden::<Binary, _>(
        &Fields(vec![(1, 7i32)]),
        &[
            0x08, 0x00, 0x01, // i32 field 1
            0x00, 0x00, 0x00, 0x07, // 7
            0x00, // stop
        ],
    );
    // Ids are written as they are: negative, zero, the largest, decreasing, repeated.
    golden::<Binary, _>(
        &Fields(vec![(-1, 5i16), (0, 6), (i16::MAX, 1), (2, 2), (2, 3)]),
        &[
            0x06, 0xff, 0xff, 0x00, 0x05, // i16 field -1: 5
            0x06, 0x00, 0x00, 0x00, 0x06, // i16 field 0: 6
            0x06, 0x7f, 0xff, 0x00, 0x01, // i16 field 32767: 1
            0x06, 0x00, 0x02, 0x00, 0x02, // i16 field 2: 2
            0x06, 0x00, 0x02, 0x00, 0x03, // i16 field 2 again: 3
            0x00, // stop
        ],
    );
}

#[test]
fn bool_fields_carry_a_value_byte() {
    golden::<Binary, _>(
        &Fields(vec![(1, true), (2, false)]),
        &[
            0x02, 0x00, 0x01, 0x01, // bool field 1: true
            0x02, 0x00, 0x02, 0x00, // bool field 2: false
            0x00, // stop
        ],
    );
}

#[test]
fn nested_struct_fields() {
    golden::<Binary, _>(
        &Fields(vec![(1, Fields(vec![(2, 3i64)])), (3, Fields(vec![]))]),
        &[
            0x0c, 0x00, 0x01, // struct field 1
            0x0a, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x03, // i64 field 2: 3
            0x00, // inner stop
            0x0c, 0x00, 0x03, // struct field 3
            0x00, // inner stop (empty)
            0x00, // outer stop
        ],
    );
    // list<struct>
    golden::<Binary, _>(
        &vec![Fields(vec![(1, true)])],
        &[
            0x0c, 0x00, 0x00, 0x00, 0x01, // list of 1 struct
            0x02, 0x00, 0x01, 0x01, 0x00, // bool field 1: true; stop
        ],
    );
}

#[test]
fn fields_of_every_type() {
    // Written with StructEncoder as derived code does, read back with StructDecoder.
    let uuid = Uuid(*b"0123456789abcdef");
    let mut buf = Vec::new();
    let mut s = StructEncoder::<Binary, _>::new(&mut buf);
    s.field(1, &true);
    s.field(2, &-1i8);
    s.field(3, &2i16);
    s.field(4, &3i32);
    s.field(5, &4i64);
    s.field(6, &0.5f64);
    s.field(7, "s");
    s.field(8, &[0xbbu8][..]);
    s.field(9, &uuid);
    s.field(10, &vec![9i32]);
    s.field(11, &BTreeSet::from([8i8]));
    s.field(12, &BTreeMap::from([(1i8, false)]));
    s.finish();

    let mut expected = vec![
        0x02, 0x00, 0x01, 0x01, // bool 1: true
        0x03, 0x00, 0x02, 0xff, // byte 2: -1
        0x06, 0x00, 0x03, 0x00, 0x02, // i16 3: 2
        0x08, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, // i32 4: 3
        0x0a, 0x00, 0x05, 0, 0, 0, 0, 0, 0, 0, 0x04, // i64 5: 4
        0x04, 0x00, 0x06, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, // double 6: 0.5
        0x0b, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, b's', // string 7: "s"
        0x0b, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0xbb, // binary 8: bb
        0x10, 0x00, 0x09, // uuid 9
    ];
    expected.extend_from_slice(b"0123456789abcdef");
    expected.extend_from_slice(&[
        0x0f, 0x00, 0x0a, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x09, // list<i32> 10: [9]
        0x0e, 0x00, 0x0b, 0x03, 0x00, 0x00, 0x00, 0x01, 0x08, // set<byte> 11: {8}
        0x0d, 0x00, 0x0c, 0x03, 0x02, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, // map<byte,bool> 12: {1: false}
        0x00, // stop
    ]);
    assert_eq!(common::Hex(&buf), common::Hex(&expected));

    let mut n = StructSizer::<Binary>::new();
    n.field(1, &true);
    n.field(2, &-1i8);
    n.field(3, &2i16);
    n.field(4, &3i32);
    n.field(5, &4i64);
    n.field(6, &0.5f64);
    n.field(7, "s");
    n.field(8, &[0xbbu8][..]);
    n.field(9, &uuid);
    n.field(10, &vec![9i32]);
    n.field(11, &BTreeSet::from([8i8]));
    n.field(12, &BTreeMap::from([(1i8, false)]));
    assert_eq!(n.finish(), expected.len());

    let mut r = Reader::new(&expected);
    let mut d = StructDecoder::<Binary>::begin(&mut r).unwrap();
    let (mut b, mut i8v, mut i16v, mut i32v, mut i64v, mut dv) = (None, None, None, None, None, None);
    let (mut sv, mut bin, mut u, mut list, mut set, mut map) = (None, None, None, None, None, None);
    let mut ids = Vec::new();
    while let Some(f) = d.next_field(&mut r).unwrap() {
        ids.push(f.id);
        match f.id {
            1 => d.read(&mut r, f, &mut b),
            2 => d.read(&mut r, f, &mut i8v),
            3 => d.read(&mut r, f, &mut i16v),
            4 => d.read(&mut r, f, &mut i32v),
            5 => d.read(&mut r, f, &mut i64v),
            6 => d.read(&mut r, f, &mut dv),
            7 => d.read(&mut r, f, &mut sv),
            8 => d.read(&mut r, f, &mut bin),
            9 => d.read(&mut r, f, &mut u),
            10 => d.read(&mut r, f, &mut list),
            11 => d.read(&mut r, f, &mut set),
            12 => d.read(&mut r, f, &mut map),
            _ => d.skip(&mut r, f),
        }
        .unwrap();
    }
    assert!(r.is_empty());
    assert_eq!(ids, (1..=12).collect::<Vec<i16>>());
    assert_eq!(b, Some(true));
    assert_eq!(i8v, Some(-1i8));
    assert_eq!(i16v, Some(2i16));
    assert_eq!(i32v, Some(3i32));
    assert_eq!(i64v, Some(4i64));
    assert_eq!(dv, Some(0.5f64));
    assert_eq!(sv, Some("s"));
    assert_eq!(bin, Some(&[0xbbu8][..]));
    assert_eq!(u, Some(uuid));
    assert_eq!(list, Some(vec![9i32]));
    assert_eq!(set, Some(BTreeSet::from([8i8])));
    assert_eq!(map, Some(BTreeMap::from([(1i8, false)])));
    common::assert_skips::<Binary>(thrift_core::TType::Struct, &expected);
}

#[test]
fn protocol_reports_its_fixed_sizes() {
    assert_eq!(Binary::min_len(thrift_core::TType::List), 5);
    assert_eq!(Binary::field_begin_len(1, 0), 3);
    assert_eq!(Binary::list_begin_len(1 << 20), 5);
    assert_eq!(Binary::map_begin_len(0), 6);
}
