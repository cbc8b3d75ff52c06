//! Golden bytes for the compact protocol, written by hand from Apache Thrift's specification
//! (`doc/specs/thrift-compact-protocol.md`): zigzag varints for i16/i32/i64, unsigned varint
//! lengths, little-endian doubles, field ids as 4-bit deltas, bools folded into field headers.
//!
//! Compact type ids: true 1, false 2, byte 3, i16 4, i32 5, i64 6, double 7, binary 8,
//! list 9, set 10, map 11, struct 12, uuid 13.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use common::{golden, golden_encode, Fields, Hex};
use thrift_core::{Compact, Protocol, Reader, StructDecoder, StructEncoder, StructSizer, TType, Uuid};

#[test]
fn bool_outside_a_field_is_one_or_two() {
    golden::<Compact, _>(&true, &[0x01]);
    golden::<Compact, _>(&false, &[0x02]);
    // The specification's original false byte 0 is read too (Apache's readers accept it).
    assert!(!thrift_core::from_slice::<Compact, bool>(&[0x00]).unwrap());
}

#[test]
fn i8_is_one_raw_byte() {
    golden::<Compact, _>(&-2i8, &[0xfe]);
    golden::<Compact, _>(&i8::MIN, &[0x80]);
    golden::<Compact, _>(&0i8, &[0x00]);
}

#[test]
fn i16_is_a_zigzag_varint() {
    golden::<Compact, _>(&0i16, &[0x00]);
    golden::<Compact, _>(&-1i16, &[0x01]); // zigzag 1
    golden::<Compact, _>(&1i16, &[0x02]); // zigzag 2
    golden::<Compact, _>(&63i16, &[0x7e]); // zigzag 126: largest one-byte positive
    golden::<Compact, _>(&-64i16, &[0x7f]); // zigzag 127
    golden::<Compact, _>(&64i16, &[0x80, 0x01]); // zigzag 128
    golden::<Compact, _>(&300i16, &[0xd8, 0x04]); // zigzag 600 = 0x258
    golden::<Compact, _>(&i16::MAX, &[0xfe, 0xff, 0x03]); // zigzag 65534
    golden::<Compact, _>(&i16::MIN, &[0xff, 0xff, 0x03]); // zigzag 65535
}

#[test]
fn i32_is_a_zigzag_varint() {
    golden::<Compact, _>(&-2i32, &[0x03]);
    golden::<Compact, _>(&150i32, &[0xac, 0x02]); // zigzag 300
    golden::<Compact, _>(&i32::MAX, &[0xfe, 0xff, 0xff, 0xff, 0x0f]);
    golden::<Compact, _>(&i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]);
}

#[test]
fn i64_is_a_zigzag_varint() {
    golden::<Compact, _>(&0i64, &[0x00]);
    // 2^35: zigzag 2^36, six 7-bit groups, only bit 1 of the sixth set.
    golden::<Compact, _>(&(1i64 << 35), &[0x80, 0x80, 0x80, 0x80, 0x80, 0x02]);
    golden::<Compact, _>(&i64::MAX, &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    golden::<Compact, _>(&i64::MIN, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
}

#[test]
fn double_is_ieee754_bits_little_endian() {
    golden::<Compact, _>(&1.0f64, &[0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
    golden::<Compact, _>(&-2.5f64, &[0, 0, 0, 0, 0, 0, 0x04, 0xc0]);
    let nan = f64::from_bits(0x7ff8_0000_0000_0001);
    golden_encode::<Compact, _>(&nan, &[0x01, 0, 0, 0, 0, 0, 0xf8, 0x7f]);
    let back: f64 = thrift_core::from_slice::<Compact, _>(&[0x01, 0, 0, 0, 0, 0, 0xf8, 0x7f]).unwrap();
    assert_eq!(back.to_bits(), nan.to_bits());
}

#[test]
fn string_is_varint_length_then_utf8() {
    golden::<Compact, _>(&String::new(), &[0x00]);
    golden::<Compact, _>(&"hi".to_string(), &[0x02, b'h', b'i']);
    golden::<Compact, _>(&"é€".to_string(), &[0x05, 0xc3, 0xa9, 0xe2, 0x82, 0xac]);
    // 128 bytes: the length takes a two-byte varint.
    let long = "a".repeat(128);
    let mut expected = vec![0x80, 0x01];
    expected.extend_from_slice(long.as_bytes());
    golden::<Compact, _>(&long, &expected);
    let s: &str = thrift_core::from_slice::<Compact, _>(&[0x02, b'h', b'i']).unwrap();
    assert_eq!(s, "hi");
}

#[test]
fn binary_is_varint_length_then_bytes() {
    golden::<Compact, _>(&vec![0xcau8, 0xfe], &[0x02, 0xca, 0xfe]);
    golden::<Compact, _>(&bytes::Bytes::from_static(&[0xff]), &[0x01, 0xff]);
}

#[test]
fn uuid_is_sixteen_bytes_in_order() {
    let bytes: [u8; 16] = *b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff";
    golden::<Compact, _>(&Uuid(bytes), &bytes);
}

#[test]
fn short_list_header_packs_size_and_type() {
    golden::<Compact, _>(&Vec::<i32>::new(), &[0x05]); // size 0, i32
    golden::<Compact, _>(&vec![1i32, 2, 3], &[0x35, 0x02, 0x04, 0x06]); // size 3, i32; zigzag values
                                                                        // 14 elements: the largest short form.
    let v: Vec<i8> = (0..14).collect();
    let mut expected = vec![0xe3]; // size 14, byte
    expected.extend(0u8..14);
    golden::<Compact, _>(&v, &expected);
}

#[test]
fn long_list_header_from_fifteen_elements() {
    let v: Vec<i8> = (0..15).collect();
    let mut expected = vec![0xf3, 0x0f]; // 0xf: long form, byte; varint size 15
    expected.extend(0u8..15);
    golden::<Compact, _>(&v, &expected);
    let v = vec![1i8; 200];
    let mut expected = vec![0xf3, 0xc8, 0x01]; // long form, byte; varint size 200
    expected.extend([1u8; 200]);
    golden::<Compact, _>(&v, &expected);
}

/// Lists of integers are written through a stack chunk, each varint stored whole: the bytes
/// are each element's own varint, in order, across the chunk's refills and at every length.
#[test]
fn long_integer_lists_are_their_elements_varints_in_order() {
    fn check<T: Copy + thrift_core::Encode + thrift_core::DecodeOwned + PartialEq + std::fmt::Debug>(
        values: Vec<T>,
        ttype: u8,
        write: fn(&mut Vec<u8>, T),
    ) {
        // The long list header: 0xf and the type, then the size as a varint.
        let mut expected = vec![0xf0 | ttype];
        let mut size = values.len() as u64;
        while size >= 0x80 {
            expected.push(size as u8 | 0x80);
            size >>= 7;
        }
        expected.push(size as u8);
        values.iter().for_each(|&v| write(&mut expected, v));
        golden::<Compact, _>(&values, &expected);
    }
    // Every bit length, both signs, enough to refill the 256-byte chunk many times.
    let i64s: Vec<i64> = (0..64)
        .flat_map(|k| [1i64 << k, (1i64 << k).wrapping_neg(), (1i64 << k).wrapping_sub(1), i64::MIN >> k])
        .collect();
    check(i64s.repeat(8), 6, Compact::write_i64);
    let i32s: Vec<i32> =
        (0..32).flat_map(|k| [1i32 << k, (1i32 << k).wrapping_neg(), i32::MIN >> k, i32::MAX >> k]).collect();
    check(i32s.repeat(8), 5, Compact::write_i32);
    let i16s: Vec<i16> =
        (0..16).flat_map(|k| [1i16 << k, (1i16 << k).wrapping_neg(), i16::MIN >> k, i16::MAX >> k]).collect();
    check(i16s.repeat(16), 4, Compact::write_i16);
}

#[test]
fn list_element_types() {
    // list<bool>: elements are 1 (true) and 2 (false); the header declares type 1.
    golden::<Compact, _>(&vec![true, false, true], &[0x31, 0x01, 0x02, 0x01]);
    golden::<Compact, _>(&vec![vec![0xabu8]], &[0x18, 0x01, 0xab]); // list<binary>
    golden::<Compact, _>(&vec!["é".to_string()], &[0x18, 0x02, 0xc3, 0xa9]); // list<string>
    golden::<Compact, _>(&vec![1.0f64], &[0x17, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f]); // list<double>
    golden::<Compact, _>(&vec![-1i64], &[0x16, 0x01]); // list<i64>
    golden::<Compact, _>(&vec![-1i16], &[0x14, 0x01]); // list<i16>
    let mut uuids = vec![0x1d]; // 1 uuid
    uuids.extend([9u8; 16]);
    golden::<Compact, _>(&vec![Uuid([9; 16])], &uuids);
    golden::<Compact, _>(
        &vec![vec![1i16], vec![]],
        &[
            0x29, // 2 lists
            0x14, 0x02, // list<i16> [1]
            0x04, // list<i16> []
        ],
    );
    golden::<Compact, _>(&vec![Fields(vec![(1, 1i32)])], &[0x1c, 0x15, 0x02, 0x00]); // list<struct>
    golden::<Compact, _>(&vec![BTreeMap::<i8, i8>::new()], &[0x1b, 0x00]); // list<map> [{}]
    golden::<Compact, _>(&vec![BTreeSet::<i8>::new()], &[0x1a, 0x03]); // list<set> [{}]
}

#[test]
fn set_header_is_like_a_list() {
    golden::<Compact, _>(&BTreeSet::from([2i16, 1]), &[0x24, 0x02, 0x04]);
    golden::<Compact, _>(&HashSet::from([-1i64]), &[0x16, 0x01]);
    let v: BTreeSet<i32> = (0..15).collect();
    let mut expected = vec![0xf5, 0x0f]; // long form, i32; size 15
    expected.extend((0u8..15).map(|i| i * 2)); // zigzag of 0..15
    golden::<Compact, _>(&v, &expected);
}

#[test]
fn empty_map_is_one_zero_byte() {
    golden::<Compact, _>(&BTreeMap::<String, i32>::new(), &[0x00]);
    golden::<Compact, _>(&HashMap::<i8, Vec<bool>>::new(), &[0x00]);
}

#[test]
fn map_header_is_varint_size_then_key_value_types() {
    golden::<Compact, _>(
        &BTreeMap::from([("a".to_string(), 1i32)]),
        &[
            0x01, // 1 entry
            0x85, // key binary (8), value i32 (5)
            0x01, b'a', // "a"
            0x02, // 1
        ],
    );
    golden::<Compact, _>(
        &BTreeMap::from([(1i16, true), (2, false)]),
        &[
            0x02, 0x41, // 2 entries, i16 -> bool
            0x02, 0x01, // 1: true
            0x04, 0x02, // 2: false
        ],
    );
    golden::<Compact, _>(&HashMap::from([(-1i32, "x".to_string())]), &[0x01, 0x58, 0x01, 0x01, b'x']);
    let big: BTreeMap<i16, i8> = (0..200).map(|k| (k, 0)).collect();
    let mut expected = vec![0xc8, 0x01, 0x43]; // 200 entries (varint), i16 -> byte
    for k in 0..200i16 {
        thrift_core::Compact::write_i16(&mut expected, k);
        expected.push(0);
    }
    golden::<Compact, _>(&big, &expected);
}

#[test]
fn empty_struct_is_the_stop_byte() {
    golden::<Compact, _>(&Fields::<i32>(vec![]), &[0x00]);
}

#[test]
fn field_header_short_form_is_delta_and_type() {
    golden::<Compact, _>(
        &Fields(vec![(1, 1i32), (15, 2), (30, 3)]),
        &[
            0x15, 0x02, // delta 1, i32: 1
            0xe5, 0x04, // delta 14, i32: 2
            0xf5, 0x06, // delta 15 (largest short), i32: 3
            0x00, // stop
        ],
    );
    golden::<Compact, _>(&Fields(vec![(15, 0i8)]), &[0xf3, 0x00, 0x00]);
}

#[test]
fn field_header_long_form_is_type_then_zigzag_id() {
    golden::<Compact, _>(
        &Fields(vec![(16, 1i32), (17, 2), (16, 3), (16, 4), (0, 5), (-1, 6), (-100, 7)]),
        &[
            0x05, 0x20, 0x02, // delta 16 > 15: i32, id zigzag 32; 1
            0x15, 0x04, // back to short form after a long one: delta 1; 2
            0x05, 0x20, 0x06, // id decreases: long form, id 16; 3
            0x05, 0x20, 0x08, // same id again: long form; 4
            0x05, 0x00, 0x0a, // id 0: long form, zigzag 0; 5
            0x05, 0x01, 0x0c, // id -1: zigzag 1; 6
            0x05, 0xc7, 0x01, 0x0e, // id -100: zigzag 199 as varint; 7
            0x00, // stop
        ],
    );
    golden::<Compact, _>(
        &Fields(vec![(i16::MAX, 0i8), (i16::MIN, 0)]),
        &[
            0x03, 0xfe, 0xff, 0x03, 0x00, // id 32767: zigzag 65534; 0
            0x03, 0xff, 0xff, 0x03, 0x00, // id -32768: zigzag 65535; 0
            0x00, // stop
        ],
    );
}

#[test]
fn bool_fields_fold_the_value_into_the_type() {
    golden::<Compact, _>(
        &Fields(vec![(1, true), (2, false), (20, true), (-1, false)]),
        &[
            0x11, // delta 1, true
            0x12, // delta 1, false
            0x01, 0x28, // long form true, id 20 (zigzag 40)
            0x02, 0x01, // long form false, id -1 (zigzag 1)
            0x00, // stop
        ],
    );
}

#[test]
fn nested_struct_restarts_and_restores_field_deltas() {
    golden::<Compact, _>(
        &Fields(vec![(1, Fields(vec![(5, 5i32)])), (3, Fields(vec![(1, 6)]))]),
        &[
            0x1c, // delta 1, struct
            0x55, 0x0a, 0x00, // inner: delta 5 from 0, i32 5; stop
            0x2c, // delta 2 from the outer 1 (not from the inner 5, which would need the long form), struct
            0x15, 0x0c, 0x00, // inner: delta 1 from 0 again, i32 6; stop
            0x00, // outer stop
        ],
    );
}

#[test]
fn fields_of_every_type() {
    let uuid = Uuid(*b"0123456789abcdef");
    let mut buf = Vec::new();
    let mut s = StructEncoder::<Compact, _>::new(&mut buf);
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
    s.field(13, &false);
    s.field(40, &Fields(vec![(2, true)]));
    s.finish();

    let mut expected = vec![
        0x11, // field 1: true folded in
        0x13, 0xff, // field 2 byte: -1
        0x14, 0x04, // field 3 i16: 2
        0x15, 0x06, // field 4 i32: 3
        0x16, 0x08, // field 5 i64: 4
        0x17, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, // field 6 double: 0.5
        0x18, 0x01, b's', // field 7 binary: "s"
        0x18, 0x01, 0xbb, // field 8 binary: bb
        0x1d, // field 9 uuid
    ];
    expected.extend_from_slice(b"0123456789abcdef");
    expected.extend_from_slice(&[
        0x19, 0x15, 0x12, // field 10 list: 1 i32, 9
        0x1a, 0x13, 0x08, // field 11 set: 1 byte, 8
        0x1b, 0x01, 0x31, 0x01, 0x02, // field 12 map: 1 entry, byte -> bool; 1: false
        0x12, // field 13: false folded in
        0x0c, 0x50, // field 40: delta 27, long form struct, zigzag 80
        0x21, 0x00, // inner field 2: true; inner stop
        0x00, // stop
    ]);
    assert_eq!(Hex(&buf), Hex(&expected));

    let mut n = StructSizer::<Compact>::new();
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
    n.field(13, &false);
    n.field(40, &Fields(vec![(2, true)]));
    assert_eq!(n.finish(), expected.len());

    let mut r = Reader::new(&expected);
    let mut d = StructDecoder::<Compact>::begin(&mut r).unwrap();
    let (mut b, mut i8v, mut i16v, mut i32v, mut i64v, mut dv) = (None, None, None, None, None, None);
    let (mut sv, mut bin, mut u, mut list, mut set, mut map) = (None, None, None, None, None, None);
    let (mut b2, mut inner) = (None, None);
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
            13 => d.read(&mut r, f, &mut b2),
            40 => d.read(&mut r, f, &mut inner),
            _ => d.skip(&mut r, f),
        }
        .unwrap();
    }
    assert!(r.is_empty());
    assert_eq!(ids, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 40]);
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
    assert_eq!(b2, Some(false));
    assert_eq!(inner, Some(Fields(vec![(2, true)])));
    common::assert_skips::<Compact>(TType::Struct, &expected);
}

#[test]
fn skipping_unknown_bool_fields_keeps_the_folded_value_out_of_later_reads() {
    // field 1: true (folded), field 2: list<bool> [false]; field 1 is skipped as unknown.
    let input = [0x11, 0x19, 0x12, 0x02, 0x00];
    let mut r = Reader::new(&input);
    let mut d = StructDecoder::<Compact>::begin(&mut r).unwrap();
    let mut list: Option<Vec<bool>> = None;
    while let Some(f) = d.next_field(&mut r).unwrap() {
        match f.id {
            2 => d.read(&mut r, f, &mut list).unwrap(),
            _ => d.skip(&mut r, f).unwrap(),
        }
    }
    assert!(r.is_empty());
    assert_eq!(list, Some(vec![false]));
}

#[test]
fn varint_sizes_match_what_is_written() {
    for v in [0i64, 1, -1, 63, -64, 64, 8191, 8192, i32::MAX as i64, i32::MIN as i64, i64::MAX, i64::MIN] {
        let mut buf = Vec::new();
        Compact::write_i64(&mut buf, v);
        assert_eq!(buf.len(), Compact::i64_len(v), "{v}");
    }
    for n in [0usize, 14, 15, 127, 128, 16383, 16384] {
        let mut buf = Vec::new();
        Compact::write_list_begin(&mut buf, TType::I8, n);
        assert_eq!(buf.len(), Compact::list_begin_len(n), "list {n}");
        buf.clear();
        Compact::write_map_begin(&mut buf, TType::I8, TType::I8, n);
        assert_eq!(buf.len(), Compact::map_begin_len(n), "map {n}");
        buf.clear();
        Compact::write_binary(&mut buf, &vec![0; n]);
        assert_eq!(buf.len(), Compact::binary_len(n), "binary {n}");
    }
}
