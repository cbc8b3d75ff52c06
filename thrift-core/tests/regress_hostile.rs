//! Regressions found by a hostile-input run: inputs that were decoded into a wrong value or
//! rejected where Apache accepts them.
//!
//! Compact varints whose value does not fit their type were truncated silently (an `i32`
//! of `ff ff ff ff 7f` read as `i32::MIN`, a string length of `80 80 80 80 10` as an empty
//! string, one bit of an `i64`'s tenth byte kept). They are errors now, pointing at the
//! varint's first byte, wherever a varint is read.
//!
//! A compact field byte whose type nibble is STOP (0) but whose delta nibble is not, such as
//! `0x10`, was refused as `invalid type id 0x00`; Apache's C++ `readFieldBegin` (and pilota)
//! end the struct at any byte whose type nibble is STOP, before looking at the delta. We do too.

use thrift_core::{skip, ApplicationException, Compact, Decode, ErrorKind, Protocol, Reader, TType, ThriftStruct};

/// `VarintOverflow` for a type of `bits` bits at `offset`.
#[track_caller]
fn overflows(e: thrift_core::Error, bits: u8, offset: usize) {
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::VarintOverflow { bits }, Some(offset)), "{e}");
}

/// Decodes `T` from `input` (which must be consumed whole) and skips it as `ttype`.
fn decode_and_skip<T: for<'de> Decode<'de>>(
    input: &[u8],
    ttype: TType,
) -> (thrift_core::Result<T>, thrift_core::Result<()>) {
    let decoded = thrift_core::from_slice::<Compact, T>(input);
    let skipped = skip::<Compact>(&mut Reader::new(input), ttype);
    (decoded, skipped)
}

#[test]
fn an_i32_varint_beyond_32_bits_is_an_error() {
    // The fifth byte has 4 bits left: 0x7f and 0x10 both set bits beyond them.
    for input in [[0xff, 0xff, 0xff, 0xff, 0x7f], [0x80, 0x80, 0x80, 0x80, 0x10]] {
        let (decoded, skipped) = decode_and_skip::<i32>(&input, TType::I32);
        overflows(decoded.unwrap_err(), 32, 0);
        overflows(skipped.unwrap_err(), 32, 0);
    }
    // The largest values that fit still read: zigzag 0xffff_fffe and 0xffff_ffff.
    assert_eq!(thrift_core::from_slice::<Compact, i32>(&[0xfe, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MAX));
    assert_eq!(thrift_core::from_slice::<Compact, i32>(&[0xff, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MIN));
}

#[test]
fn an_i64_varint_beyond_64_bits_is_an_error() {
    // The tenth byte has 1 bit left.
    for last in [0x02u8, 0x7f] {
        let mut input = vec![0x80; 9];
        input.push(last);
        let (decoded, skipped) = decode_and_skip::<i64>(&input, TType::I64);
        overflows(decoded.unwrap_err(), 64, 0);
        overflows(skipped.unwrap_err(), 64, 0);
    }
    let mut max = vec![0xff; 9];
    max.push(0x01);
    assert_eq!(thrift_core::from_slice::<Compact, i64>(&max), Ok(i64::MIN));
    max[0] = 0xfe;
    assert_eq!(thrift_core::from_slice::<Compact, i64>(&max), Ok(i64::MAX));
}

#[test]
fn an_i16_is_read_as_a_32_bit_varint_and_must_fit_16_bits() {
    // Apache's C++ readI16 reads a 32-bit varint and narrows it; we read the same varint
    // and refuse what does not fit, at the varint's first byte, instead of narrowing.
    for input in [&[0x80, 0x80, 0x04][..], &[0xff, 0xff, 0x7f], &[0xff, 0xff, 0xff, 0xff, 0x0f]] {
        let (decoded, skipped) = decode_and_skip::<i16>(input, TType::I16);
        overflows(decoded.unwrap_err(), 16, 0);
        overflows(skipped.unwrap_err(), 16, 0);
    }
    // Overflow past 32 bits is reported as such.
    overflows(thrift_core::from_slice::<Compact, i16>(&[0x80, 0x80, 0x80, 0x80, 0x10]).unwrap_err(), 32, 0);
    // The ends of the range, and an overlong (padded) encoding, which Apache reads too.
    assert_eq!(thrift_core::from_slice::<Compact, i16>(&[0xfe, 0xff, 0x03]), Ok(i16::MAX));
    assert_eq!(thrift_core::from_slice::<Compact, i16>(&[0xff, 0xff, 0x03]), Ok(i16::MIN));
    assert_eq!(thrift_core::from_slice::<Compact, i16>(&[0x82, 0x80, 0x80, 0x80, 0x00]), Ok(1));
    // Six bytes are too long, as for any 32-bit varint.
    let e = thrift_core::from_slice::<Compact, i16>(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::VarintTooLong, Some(0)));
}

#[test]
fn a_string_length_beyond_32_bits_is_an_error() {
    // Was read as length 0: an empty string, and one trailing byte.
    let input = [0x80, 0x80, 0x80, 0x80, 0x10];
    let (decoded, skipped) = decode_and_skip::<String>(&input, TType::String);
    overflows(decoded.unwrap_err(), 32, 0);
    overflows(skipped.unwrap_err(), 32, 0);
}

#[test]
fn container_sizes_beyond_32_bits_are_errors() {
    // A list header with the long form size (0xf_ then a varint) of 2^32: was an empty list.
    let list = [0xf5, 0x80, 0x80, 0x80, 0x80, 0x10];
    let (decoded, skipped) = decode_and_skip::<Vec<i32>>(&list, TType::List);
    overflows(decoded.unwrap_err(), 32, 1);
    overflows(skipped.unwrap_err(), 32, 1);
    // A map size of 2^32 + 1, then a key/value type byte and one entry.
    let map = [0x81, 0x80, 0x80, 0x80, 0x10, 0x55, 0x02, 0x02];
    let (decoded, skipped) = decode_and_skip::<std::collections::BTreeMap<i32, i32>>(&map, TType::Map);
    overflows(decoded.unwrap_err(), 32, 0);
    overflows(skipped.unwrap_err(), 32, 0);
}

#[test]
fn a_long_form_field_id_beyond_i16_is_an_error() {
    // Field header 0x05 (i32, long form), id varint zigzag 65536, then the value.
    let input = [0x05, 0x80, 0x80, 0x04, 0x02, 0x00];
    let (decoded, skipped) = decode_and_skip::<ApplicationException>(&input, TType::Struct);
    overflows(decoded.unwrap_err(), 16, 1);
    overflows(skipped.unwrap_err(), 16, 1);
    // Beyond 32 bits.
    let input = [0x05, 0x80, 0x80, 0x80, 0x80, 0x10, 0x02, 0x00];
    overflows(thrift_core::from_slice::<Compact, ApplicationException>(&input).unwrap_err(), 32, 1);
}

#[test]
fn a_message_seqid_beyond_32_bits_is_an_error() {
    // Was read as seqid 0.
    let input = [0x82, 0x21, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00];
    overflows(Compact::read_message_begin(&mut Reader::new(&input)).unwrap_err(), 32, 2);
}

#[test]
fn list_elements_beyond_their_type_are_errors() {
    // list<i32> of 3: 1, then an overflowing element at offset 2, then 1.
    let list = [0x35, 0x02, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x02];
    let (decoded, skipped) = decode_and_skip::<Vec<i32>>(&list, TType::List);
    overflows(decoded.unwrap_err(), 32, 2);
    overflows(skipped.unwrap_err(), 32, 2);
    let (decoded, _) = decode_and_skip::<std::collections::BTreeSet<i32>>(&list, TType::Set);
    overflows(decoded.unwrap_err(), 32, 2);
}

/// Two optional i32 fields, 1 and 2.
#[derive(ThriftStruct, Debug, Default, PartialEq)]
struct Pair {
    #[thrift(id = 1)]
    a: Option<i32>,
    #[thrift(id = 2)]
    b: Option<i32>,
}

#[test]
fn a_compact_field_byte_with_a_stop_type_nibble_ends_the_struct() {
    for delta in 0u8..16 {
        let stop = delta << 4;
        // field 1 (delta 1, i32) = 1, then the stop byte.
        let input = [0x15, 0x02, stop];
        let decoded = thrift_core::from_slice::<Compact, Pair>(&input);
        assert_eq!(decoded, Ok(Pair { a: Some(1), b: None }), "stop byte {stop:#04x}");
        let mut r = Reader::new(&input);
        skip::<Compact>(&mut r, TType::Struct).unwrap();
        assert_eq!(r.position(), input.len(), "skip of stop byte {stop:#04x}");
        // Nested: a list of two structs (the second empty), then bytes the list does not take.
        let list = [0x2c, 0x15, 0x02, stop, stop, 0x15, 0x04, stop];
        let mut r = Reader::new(&list);
        let pairs = Vec::<Pair>::decode::<Compact>(&mut r).unwrap();
        assert_eq!(pairs, [Pair { a: Some(1), b: None }, Pair::default()], "stop byte {stop:#04x}");
        assert_eq!(r.position(), 5, "stop byte {stop:#04x}");
        let mut r = Reader::new(&list);
        skip::<Compact>(&mut r, TType::List).unwrap();
        assert_eq!(r.position(), 5, "skip of stop byte {stop:#04x}");
    }
}
