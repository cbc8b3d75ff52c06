//! The three cases pilota 0.13.1's compact protocol gets wrong (see BENCHMARKS.md), pinned
//! in this project's compact protocol with golden bytes from the specification
//! (Apache Thrift's `doc/specs/thrift-compact-protocol.md`):
//!
//! 1. pilota's decoder panics on a struct with bool fields ("pending bool field not read");
//! 2. it loses field ids after a nested struct (the delta must resume from the outer
//!    struct's last id once the nested struct's stop byte is read);
//! 3. its encoder writes doubles big-endian (compact doubles are little-endian).

use thrift_core::{Compact, ThriftStruct};

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Flags {
    #[thrift(id = 1)]
    active: bool,
    #[thrift(id = 2)]
    count: i32,
    #[thrift(id = 3)]
    deleted: bool,
    #[thrift(id = 5)]
    bits: Vec<bool>,
    #[thrift(id = 6)]
    maybe: Option<bool>,
}

#[test]
fn a_struct_with_bool_fields_roundtrips() {
    let value = Flags { active: true, count: 7, deleted: false, bits: vec![true, false], maybe: Some(false) };
    let bytes = thrift_core::to_vec::<Compact, _>(&value);
    #[rustfmt::skip]
    let golden = [
        0x11,             // field 1 (delta 1), BOOLEAN_TRUE: the value lives in the header
        0x15, 0x0e,       // field 2, i32, zigzag(7)
        0x12,             // field 3, BOOLEAN_FALSE
        0x29, 0x21, 1, 2, // field 5 (delta 2), list: 2 bools, each a byte (1 true, 2 false)
        0x12,             // field 6, BOOLEAN_FALSE
        0x00,             // stop
    ];
    assert_eq!(bytes, golden);
    assert_eq!(thrift_core::from_slice::<Compact, Flags>(&bytes).unwrap(), value);
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Inner {
    #[thrift(id = 1)]
    x: i32,
    #[thrift(id = 7)]
    y: bool,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Outer {
    #[thrift(id = 1)]
    inner: Inner,
    #[thrift(id = 2)]
    after: i32,
    #[thrift(id = 20)]
    far: i64,
}

#[test]
fn field_ids_resume_from_the_outer_struct_after_a_nested_one() {
    let value = Outer { inner: Inner { x: 5, y: true }, after: 3, far: 1 };
    let bytes = thrift_core::to_vec::<Compact, _>(&value);
    #[rustfmt::skip]
    let golden = [
        0x1c,             // field 1 (delta 1 from 0), struct
        0x15, 0x0a,       //   inner field 1 (delta 1 from 0), i32, zigzag(5)
        0x61,             //   inner field 7 (delta 6 from 1), BOOLEAN_TRUE
        0x00,             //   inner stop
        0x15, 0x06,       // field 2: delta 1 from the outer struct's 1, not from the inner 7
        0x06, 0x28, 0x02, // field 20 (delta 18 > 15): i64 type, zigzag id 40, zigzag(1)
        0x00,             // stop
    ];
    assert_eq!(bytes, golden);
    let back = thrift_core::from_slice::<Compact, Outer>(&bytes).unwrap();
    assert_eq!(back, value);
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Point {
    #[thrift(id = 1)]
    x: f64,
    #[thrift(id = 2)]
    path: Vec<f64>,
}

#[test]
fn doubles_are_little_endian() {
    let value = Point { x: 1.0, path: vec![-2.5] };
    let bytes = thrift_core::to_vec::<Compact, _>(&value);
    #[rustfmt::skip]
    let golden = [
        0x17,                                           // field 1, double
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, // 1.0 (0x3ff0000000000000), low byte first
        0x19, 0x17,                                     // field 2, list: 1 double
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0xc0, // -2.5 (0xc004000000000000)
        0x00,                                           // stop
    ];
    assert_eq!(bytes, golden);
    assert_eq!(thrift_core::from_slice::<Compact, Point>(&bytes).unwrap(), value);
    // Read back big-endian, as pilota writes them, 1.0 would be a denormal: the bytes of a
    // double are not symmetric, so the order is not a matter of taste.
    assert_ne!(f64::from_be_bytes(bytes[1..9].try_into().unwrap()), 1.0);
}
