//! Error quality: malformed input gives the right `ErrorKind`, at a sensible byte offset,
//! with a readable message and the field path; and what Apache accepts is accepted.

mod common;

use std::borrow::Cow;
use std::collections::BTreeMap;

use common::{decode_err, skip_err};
use thrift_core::{
    ApplicationException, ApplicationExceptionKind, Binary, Compact, Error, ErrorKind, PathSegment, TType,
};

#[test]
fn invalid_utf8_points_at_the_first_bad_byte() {
    // length 3: 'a', 0xff, 'b'
    let e = decode_err::<Binary, String>(&[0x00, 0x00, 0x00, 0x03, b'a', 0xff, b'b']);
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), Some(5));
    assert_eq!(e.to_string(), "invalid UTF-8 in string at offset 5");
    let e = decode_err::<Compact, String>(&[0x03, b'a', 0xff, b'b']);
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidUtf8, Some(2)));
    // Borrowed forms check too; an incomplete sequence at the end is invalid.
    let e = thrift_core::from_slice::<Compact, &str>(&[0x02, b'a', 0xc3]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidUtf8, Some(2)));
    let e = thrift_core::from_slice::<Binary, Cow<'_, str>>(&[0, 0, 0, 2, 0xed, 0xa0]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidUtf8, Some(4)));
    // The same bytes as binary are fine.
    assert_eq!(thrift_core::from_slice::<Compact, Vec<u8>>(&[0x02, b'a', 0xc3]).unwrap(), [b'a', 0xc3]);
}

#[test]
fn errors_in_fields_carry_the_path() {
    // TApplicationException: field 1 (message) with invalid UTF-8.
    let input = [0x0b, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, b'o', 0xff, 0x00];
    let e = decode_err::<Binary, ApplicationException>(&input);
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), Some(8));
    assert_eq!(
        e.path().collect::<Vec<_>>(),
        [&PathSegment { container: "TApplicationException", field: "message", id: 1 }]
    );
    assert_eq!(e.to_string(), "TApplicationException.message (id 1): invalid UTF-8 in string at offset 8");
    // Inside a list of them, the offset is still absolute.
    let mut list = vec![0x0c, 0x00, 0x00, 0x00, 0x01];
    list.extend(input);
    let e = decode_err::<Binary, Vec<ApplicationException>>(&list);
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidUtf8, Some(13)));
}

#[test]
fn error_display_composes_path_kind_and_offset() {
    let e = Error::at(ErrorKind::InvalidUtf8, 12).in_field("Inner", "name", 2).in_field("Outer", "inner", 1);
    assert_eq!(e.to_string(), "Outer.inner (id 1) > Inner.name (id 2): invalid UTF-8 in string at offset 12");
    assert_eq!(format!("{e:?}"), format!("Error({e})"));
    // An offset set first is kept.
    assert_eq!(e.clone().with_offset(99).offset(), Some(12));
    assert_eq!(Error::new(ErrorKind::InvalidUtf8).with_offset(7).offset(), Some(7));
    let e = thrift_core::__private::missing_field("User", "name", 3);
    assert_eq!(e.to_string(), "User: missing required field name (id 3)");
    assert_eq!(e.offset(), None);
    let e: Error = ErrorKind::UnknownEnumValue { name: "Color", value: 9 }.into();
    assert_eq!(e.to_string(), "unknown value 9 for enum Color");
    let e = Error::new(ErrorKind::InvalidUnion { name: "Shape", count: 2 });
    assert_eq!(e.to_string(), "union Shape has 2 fields set, expected exactly one");
}

#[test]
fn truncated_says_how_much_was_needed() {
    let e = decode_err::<Binary, String>(&[0x00, 0x00, 0x00, 0x09, b'h']);
    assert_eq!(e.kind(), &ErrorKind::Truncated { needed: 9, remaining: 1 });
    assert_eq!(e.to_string(), "truncated: needed 9 more bytes, 1 remaining at offset 4");
    let e = decode_err::<Binary, i32>(&[0x00, 0x00]);
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::Truncated { needed: 4, remaining: 2 }, Some(0)));
    let e = decode_err::<Compact, i64>(&[0x80, 0x80]);
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::Truncated { needed: 1, remaining: 0 }, Some(2)));
}

#[test]
fn wrong_element_type_in_a_non_empty_container() {
    // list declares i64, the value is list<i32>.
    let e = decode_err::<Binary, Vec<i32>>(&[0x0a, 0x00, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x01]);
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::I32, found: TType::I64 });
    assert!(e.offset().is_some_and(|o| o <= 5), "{e}");
    assert!(e.to_string().starts_with("container declares i64 elements, expected i32 at offset"), "{e}");
    let e = decode_err::<Compact, Vec<i64>>(&[0x15, 0x02]);
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::I64, found: TType::I32 });
    // string vs struct elements
    let e = decode_err::<Compact, Vec<String>>(&[0x1c, 0x00]);
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::String, found: TType::Struct });
    // map key and map value
    let e = decode_err::<Binary, BTreeMap<i32, i32>>(&[0x06, 0x08, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1]);
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::I32, found: TType::I16 });
    let e = decode_err::<Compact, BTreeMap<i32, String>>(&[0x01, 0x55, 0x02, 0x02]);
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::String, found: TType::I32 });
    // set<i32> elements declared as double
    let e = decode_err::<Binary, std::collections::BTreeSet<i32>>(&[0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::I32, found: TType::Double });
}

#[test]
fn declared_type_is_checked_before_the_count() {
    // Regression: the count used to be checked first against the sizes of the *expected*
    // type, so these inputs, which hold exactly what they declare, reported "declared length
    // exceeds bytes remaining" instead of the type mismatch.
    let e = decode_err::<Binary, Vec<i64>>(&[0x06, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]); // list<i16> [1]
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::I64, found: TType::I16 });
    let e = decode_err::<Compact, Vec<f64>>(&[0x13, 0x01]); // list<byte> [1]
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::Double, found: TType::I8 });
    let e = decode_err::<Binary, BTreeMap<i64, i64>>(&[0x03, 0x03, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02]);
    assert_eq!(e.kind(), &ErrorKind::UnexpectedElementType { expected: TType::I64, found: TType::I8 });
    // A negative count is still reported as such whatever the declared type.
    let e = decode_err::<Binary, Vec<i64>>(&[0x06, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(e.kind(), &ErrorKind::NegativeLength(-1));
}

#[test]
fn compact_list_of_bool_may_declare_either_bool_type() {
    // Type nibble 1 is what Apache writes; 2 (the "false" id) names bool as well.
    assert_eq!(thrift_core::from_slice::<Compact, Vec<bool>>(&[0x21, 0x01, 0x02]).unwrap(), [true, false]);
    assert_eq!(thrift_core::from_slice::<Compact, Vec<bool>>(&[0x22, 0x01, 0x02]).unwrap(), [true, false]);
    common::assert_skips::<Compact>(TType::List, &[0x22, 0x01, 0x02]);
}

#[test]
fn empty_containers_accept_any_declared_type() {
    // Binary: invalid (0xff), STOP (0) and mismatched (i64) element types with count 0.
    for elem in [0xffu8, 0x00, 0x0a, 0x01] {
        let list = [elem, 0x00, 0x00, 0x00, 0x00];
        assert_eq!(thrift_core::from_slice::<Binary, Vec<i32>>(&list).unwrap(), Vec::<i32>::new());
        common::assert_skips::<Binary>(TType::List, &list);
        let map = [elem, 0xee, 0x00, 0x00, 0x00, 0x00];
        assert_eq!(thrift_core::from_slice::<Binary, BTreeMap<i8, String>>(&map).unwrap(), BTreeMap::new());
        common::assert_skips::<Binary>(TType::Map, &map);
    }
    // Compact: size 0 with type nibbles 0, 6 (i64), 14 and 15 (no such types).
    for b in [0x00u8, 0x06, 0x0e, 0x0f] {
        assert_eq!(thrift_core::from_slice::<Compact, Vec<String>>(&[b]).unwrap(), Vec::<String>::new());
        common::assert_skips::<Compact>(TType::Set, &[b]);
    }
    // Compact writes no types for an empty map.
    assert_eq!(thrift_core::from_slice::<Compact, BTreeMap<String, i32>>(&[0x00]).unwrap(), BTreeMap::new());
    // A long-form size of 0 is still empty.
    assert_eq!(thrift_core::from_slice::<Compact, Vec<i32>>(&[0xfe, 0x00]).unwrap(), Vec::<i32>::new());
}

#[test]
fn stop_or_void_as_element_type_of_a_non_empty_container() {
    let stop_or_void = |e: &Error| {
        matches!(
            e.kind(),
            ErrorKind::UnexpectedElementType { found: TType::Stop | TType::Void, .. } | ErrorKind::InvalidType(0 | 1)
        )
    };
    for elem in [0x00u8, 0x01] {
        let list = [elem, 0x00, 0x00, 0x00, 0x01, 0x00];
        let e = decode_err::<Binary, Vec<i8>>(&list);
        assert!(stop_or_void(&e), "{e}");
        let e = skip_err::<Binary>(TType::List, &list);
        assert_eq!(e.kind(), &ErrorKind::InvalidType(elem), "{e}");
        let map = [0x03, elem, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00];
        let e = decode_err::<Binary, BTreeMap<i8, i8>>(&map);
        assert!(stop_or_void(&e), "{e}");
        assert_eq!(skip_err::<Binary>(TType::Map, &map).kind(), &ErrorKind::InvalidType(elem));
    }
    let e = decode_err::<Compact, Vec<i8>>(&[0x10, 0x00]);
    assert!(stop_or_void(&e), "{e}");
    assert_eq!(skip_err::<Compact>(TType::List, &[0x10, 0x00]).kind(), &ErrorKind::InvalidType(0));
    let e = decode_err::<Compact, BTreeMap<i8, i8>>(&[0x01, 0x30, 0x00, 0x00]);
    assert!(stop_or_void(&e), "{e}");
    assert_eq!(skip_err::<Compact>(TType::Map, &[0x01, 0x30, 0x00, 0x00]).kind(), &ErrorKind::InvalidType(0));
}

#[test]
fn unknown_element_type_ids() {
    for elem in [0x05u8, 0x07, 0x09, 0x11, 0xff] {
        let list = [elem, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00];
        assert_eq!(decode_err::<Binary, Vec<i32>>(&list).kind(), &ErrorKind::InvalidType(elem));
        assert_eq!(skip_err::<Binary>(TType::List, &list).kind(), &ErrorKind::InvalidType(elem));
    }
    for nibble in [0x0eu8, 0x0f] {
        let list = [0x10 | nibble, 0x00];
        assert_eq!(decode_err::<Compact, Vec<i32>>(&list).kind(), &ErrorKind::InvalidType(nibble));
        assert_eq!(skip_err::<Compact>(TType::List, &list).kind(), &ErrorKind::InvalidType(nibble));
        let map = [0x01, nibble << 4 | 0x05, 0x00, 0x00];
        assert_eq!(decode_err::<Compact, BTreeMap<i32, i32>>(&map).kind(), &ErrorKind::InvalidType(nibble));
        assert_eq!(skip_err::<Compact>(TType::Map, &map).kind(), &ErrorKind::InvalidType(nibble));
    }
}

#[test]
fn bad_type_id_in_a_field_header() {
    // Binary: type 5, 7, 9, 17 and 0xff name no type; the offset is the type byte's.
    for t in [0x05u8, 0x07, 0x09, 0x11, 0xff] {
        let input = [0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, t, 0x00, 0x01, 0x00];
        let e = decode_err::<Binary, ApplicationException>(&input);
        assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidType(t), Some(7)), "{e}");
        assert_eq!(e.to_string(), format!("invalid type id 0x{t:02x} at offset 7"));
        let e = skip_err::<Binary>(TType::Struct, &input);
        assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidType(t), Some(7)));
    }
    // Binary VOID (1) names a type but no value can have it.
    let e = decode_err::<Binary, ApplicationException>(&[0x01, 0x00, 0x01, 0x00]);
    assert_eq!(e.kind(), &ErrorKind::InvalidType(1));
    assert_eq!(skip_err::<Binary>(TType::Struct, &[0x01, 0x00, 0x01, 0x00]).kind(), &ErrorKind::InvalidType(1));
    // Compact: nibbles 14 and 15; short and long forms. (Nibble 0 with a delta is STOP, as
    // in Apache: `regress_hostile.rs`.)
    for b in [0x1eu8, 0x1f, 0x0e, 0x0f] {
        let input = [0x15, 0x02, b, 0x02, 0x00];
        let e = decode_err::<Compact, ApplicationException>(&input);
        assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidType(b & 0x0f), Some(2)), "{e}");
        let e = skip_err::<Compact>(TType::Struct, &input);
        assert_eq!((e.kind(), e.offset()), (&ErrorKind::InvalidType(b & 0x0f), Some(2)));
    }
}

#[test]
fn trailing_bytes_after_a_complete_value() {
    let e = thrift_core::from_slice::<Binary, i32>(&[0x00, 0x00, 0x00, 0x01, 0xaa]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::TrailingBytes(1), Some(4)));
    assert_eq!(e.to_string(), "1 trailing bytes after the value at offset 4");
    let e = thrift_core::from_slice::<Compact, ApplicationException>(&[0x00, 0x00, 0x00]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::TrailingBytes(2), Some(1)));
    let bytes = bytes::Bytes::from_static(&[0x02, b'h', b'i', 0x00]);
    let e = thrift_core::from_bytes::<Compact, String>(&bytes).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::TrailingBytes(1));
}

#[test]
fn malformed_varints_and_scalars() {
    // More than five bytes for an i32 or an i16 (a 32-bit varint, as Apache reads it), ten
    // for an i64.
    let e = decode_err::<Compact, i32>(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::VarintTooLong, Some(0)));
    let e = decode_err::<Compact, i64>(&[0xff; 11]);
    assert_eq!(e.kind(), &ErrorKind::VarintTooLong);
    let e = decode_err::<Compact, i16>(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    assert_eq!(e.kind(), &ErrorKind::VarintTooLong);
    // Varints beyond i16's range, of three and four bytes.
    for input in [&[0xff, 0xff, 0x7f][..], &[0xff, 0xff, 0xff, 0x01]] {
        let e = decode_err::<Compact, i16>(input);
        assert_eq!((e.kind(), e.offset()), (&ErrorKind::VarintOverflow { bits: 16 }, Some(0)), "{e}");
    }
    // ... also as a long-form field id.
    let e = decode_err::<Compact, ApplicationException>(&[0x05, 0x80, 0x80, 0x04, 0x00, 0x00]);
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::VarintOverflow { bits: 16 }, Some(1)), "{e}");
    // Bool bytes other than the protocol's.
    let e = decode_err::<Binary, bool>(&[0x02]);
    assert!(matches!(e.kind(), ErrorKind::InvalidData(_)), "{e}");
    let e = decode_err::<Compact, bool>(&[0x03]);
    assert_eq!(e.offset(), Some(0));
    assert!(matches!(e.kind(), ErrorKind::InvalidData(_)), "{e}");
    assert_eq!(skip_err::<Compact>(TType::List, &[0x21, 0x01, 0x07]).offset(), Some(2));
    assert_eq!(skip_err::<Binary>(TType::Bool, &[0x02]).offset(), Some(1));
}

#[test]
fn known_field_with_another_wire_type_is_skipped() {
    // message (id 1) sent as i32, type (id 2) sent as string: both skipped, as Apache does.
    let input = [
        0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, // i32 field 1
        0x0b, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, b'x', // string field 2
        0x00,
    ];
    let e: ApplicationException = thrift_core::from_slice::<Binary, _>(&input).unwrap();
    assert_eq!(e, ApplicationException::new(ApplicationExceptionKind::Unknown, ""));
}

#[test]
fn unknown_fields_are_skipped_and_duplicates_keep_the_last() {
    let input = [
        0x0f, 0x00, 0x07, 0x0b, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, b'z', // unknown list<string> 7
        0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, // type 1
        0x0b, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, b'a', // message "a"
        0x0d, 0x00, 0x09, 0x03, 0x02, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, // unknown map<byte,bool> 9
        0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06, // type 6 again: wins
        0x00,
    ];
    let e: ApplicationException = thrift_core::from_slice::<Binary, _>(&input).unwrap();
    assert_eq!(e, ApplicationException::new(ApplicationExceptionKind::InternalError, "a"));
    // Compact: an unknown bool field (folded) between known ones.
    // field 1 "m"; unknown field 3 true; field 2 (id decreases: long form) 6; stop
    let input = [0x18, 0x01, b'm', 0x21, 0x05, 0x04, 0x0c, 0x00];
    let e: ApplicationException = thrift_core::from_slice::<Compact, _>(&input).unwrap();
    assert_eq!(e, ApplicationException::new(ApplicationExceptionKind::InternalError, "m"));
}
