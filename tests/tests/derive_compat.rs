//! Schema evolution and bad input through the derives: an old reader skips what a newer
//! writer added, and missing, unknown, mistyped and duplicated fields behave as Apache
//! Thrift's libraries do.

use std::collections::{BTreeMap, BTreeSet};

use thrift_core::testing::{check_new_reads_as_old, new_reads_as_old};
use thrift_core::{
    Binary, Compact, Encode, ErrorKind, Protocol, StructEncoder, ThriftArbitrary, ThriftEnum, ThriftStruct,
    ThriftUnion, Uuid,
};

// ---- The old reader (V1) and the newer writer (V2) ----

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct InnerV1 {
    #[thrift(id = 1)]
    label: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Record")]
struct V1 {
    #[thrift(id = 1, required)]
    id: i64,
    #[thrift(id = 3)]
    name: String,
    #[thrift(id = 5)]
    tags: Vec<String>,
    #[thrift(id = 8)]
    inner: InnerV1,
    #[thrift(id = 20)]
    flag: bool,
    #[thrift(id = 21)]
    note: Option<String>,
}

/// `InnerV1` grown: new fields before, between and after the old one.
#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq, Default)]
struct InnerV2 {
    #[thrift(id = 1)]
    label: String,
    #[thrift(id = 2)]
    weight: f64,
    #[thrift(id = 3)]
    children: Vec<Point>,
    #[thrift(id = 4)]
    on: bool,
}

#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Point {
    #[thrift(id = 1)]
    x: i32,
    #[thrift(id = 2)]
    y: i32,
    #[thrift(id = 3)]
    visible: bool,
}

#[derive(ThriftArbitrary, ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[thrift(closed)]
enum Mode {
    #[default]
    Off = 0,
    On = 1,
}

#[derive(ThriftArbitrary, ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum Extra {
    #[thrift(id = 1)]
    Number(i64),
    #[thrift(id = 2)]
    At(Point),
    #[thrift(id = 3)]
    Flag(bool),
}

/// `V1` with new fields of every type around the old ones; bools among them so compact's
/// folded bool headers must be skipped too.
#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Record")]
struct V2 {
    #[thrift(id = 1, required)]
    id: i64,
    #[thrift(id = 2)]
    new_bool: bool,
    #[thrift(id = 3)]
    name: String,
    #[thrift(id = 4)]
    new_byte: i8,
    #[thrift(id = 5)]
    tags: Vec<String>,
    #[thrift(id = 6)]
    new_short: i16,
    #[thrift(id = 7)]
    new_int: i32,
    #[thrift(id = 8)]
    inner: InnerV2,
    #[thrift(id = 9)]
    new_double: f64,
    #[thrift(id = 10)]
    new_binary: Vec<u8>,
    #[thrift(id = 11)]
    new_uuid: Uuid,
    #[thrift(id = 12)]
    new_points: Vec<Point>,
    #[thrift(id = 13)]
    new_set: BTreeSet<String>,
    #[thrift(id = 14)]
    new_map: BTreeMap<String, Point>,
    #[thrift(id = 15)]
    new_nested_map: BTreeMap<i32, Vec<BTreeMap<String, bool>>>,
    #[thrift(id = 16)]
    new_enum: Mode,
    #[thrift(id = 17, required)]
    new_union: Extra,
    #[thrift(id = 18)]
    new_bools: Vec<bool>,
    #[thrift(id = 19)]
    new_long: i64,
    #[thrift(id = 20)]
    flag: bool,
    #[thrift(id = 21)]
    note: Option<String>,
    #[thrift(id = 22)]
    new_last_bool: bool,
    /// Far beyond the compact delta range, and negative.
    #[thrift(id = 300)]
    new_far: Option<Point>,
    #[thrift(id = -7)]
    new_negative: Option<bool>,
}

/// What a V1 reader must see of a V2 value.
fn as_v1(v2: &V2) -> V1 {
    V1 {
        id: v2.id,
        name: v2.name.clone(),
        tags: v2.tags.clone(),
        inner: InnerV1 { label: v2.inner.label.clone() },
        flag: v2.flag,
        note: v2.note.clone(),
    }
}

#[test]
fn v1_reads_v2() {
    check_new_reads_as_old::<V1, V2>(as_v1);
}

// ---- Hand-written encodings ----

/// Encodes a struct whose fields `write` writes through a `StructEncoder`.
fn encode_struct<P: Protocol>(write: impl FnOnce(&mut StructEncoder<'_, P, Vec<u8>>)) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut s = StructEncoder::<P, _>::new(&mut buf);
    write(&mut s);
    s.finish();
    buf
}

fn missing_required_field<P: Protocol>() {
    // Every field but the required `id`.
    let bytes = encode_struct::<P>(|s| {
        s.field(3, "name");
        s.field(20, &true);
    });
    let err = thrift_core::from_slice::<P, V1>(&bytes).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::MissingField { name: "id", id: 1 }, "{}", P::NAME);
    let shown = err.to_string();
    assert!(shown.starts_with("Record") && shown.contains("missing required field id (id 1)"), "{shown}");
}

#[test]
fn a_missing_required_field_is_an_error_naming_struct_and_field() {
    missing_required_field::<Binary>();
    missing_required_field::<Compact>();
}

#[test]
fn a_missing_required_field_deep_inside_names_the_path() {
    #[derive(ThriftStruct, Debug, PartialEq)]
    struct Outer {
        #[thrift(id = 4)]
        records: Vec<V1>,
    }
    /// A record as written by someone who forgot its `id`.
    #[derive(ThriftStruct)]
    struct WithoutId {
        #[thrift(id = 3)]
        name: String,
    }
    let bytes = encode_struct::<Binary>(|s| s.field(4, &vec![WithoutId { name: "x".into() }]));
    let err = thrift_core::from_slice::<Binary, Outer>(&bytes).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::MissingField { name: "id", id: 1 });
    let shown = err.to_string();
    assert!(shown.starts_with("Outer.records (id 4) > Record: missing required field id (id 1)"), "{shown}");
}

#[test]
fn absent_fields_take_their_defaults() {
    #[derive(ThriftStruct, Debug, PartialEq)]
    struct Defaults {
        #[thrift(id = 1, default = 7)]
        retries: i32,
        #[thrift(id = 2, default = String::from("anonymous"))]
        owner: String,
        #[thrift(id = 3)]
        plain: i64,
        #[thrift(id = 4)]
        maybe: Option<i64>,
        #[thrift(id = 5, default = Mode::On)]
        mode: Mode,
    }
    let expected = Defaults { retries: 7, owner: "anonymous".into(), plain: 0, maybe: None, mode: Mode::On };
    assert_eq!(thrift_core::from_slice::<Binary, Defaults>(&encode_struct::<Binary>(|_| {})).unwrap(), expected);
    assert_eq!(thrift_core::from_slice::<Compact, Defaults>(&encode_struct::<Compact>(|_| {})).unwrap(), expected);
    // A value on the wire wins over the default, even when it equals `Default::default()`.
    let bytes = encode_struct::<Compact>(|s| {
        s.field(1, &0i32);
        s.field(5, &Mode::Off);
    });
    let decoded: Defaults = thrift_core::from_slice::<Compact, _>(&bytes).unwrap();
    assert_eq!((decoded.retries, decoded.mode), (0, Mode::Off));
}

// ---- Enums ----

#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[thrift(closed)]
enum Closed {
    #[default]
    A = 1,
    B = 2,
}

#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(i32)]
enum Open {
    #[default]
    A = 1,
    B = 2,
    #[thrift(unknown)]
    Other(i32),
}

#[derive(ThriftStruct, Debug, PartialEq)]
struct HoldsClosed {
    #[thrift(id = 1)]
    value: Closed,
}

#[derive(ThriftStruct, Debug, PartialEq)]
struct HoldsOpen {
    #[thrift(id = 1)]
    value: Open,
    #[thrift(id = 2)]
    values: Vec<Open>,
}

fn unknown_enum_values<P: Protocol>() {
    let bytes = encode_struct::<P>(|s| s.field(1, &3i32));
    let err = thrift_core::from_slice::<P, HoldsClosed>(&bytes).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::UnknownEnumValue { name: "Closed", value: 3 }, "{}", P::NAME);
    assert!(err.to_string().contains("HoldsClosed.value (id 1)"), "{err}");

    // A known value still decodes.
    let bytes = encode_struct::<P>(|s| s.field(1, &2i32));
    assert_eq!(thrift_core::from_slice::<P, HoldsClosed>(&bytes).unwrap().value, Closed::B);

    // An open enum captures unknown values and writes them back unchanged.
    let bytes = encode_struct::<P>(|s| {
        s.field(1, &-5i32);
        s.field(2, &vec![1i32, 99, i32::MIN]);
    });
    let open: HoldsOpen = thrift_core::from_slice::<P, _>(&bytes).unwrap();
    assert_eq!(
        open,
        HoldsOpen { value: Open::Other(-5), values: vec![Open::A, Open::Other(99), Open::Other(i32::MIN)] }
    );
    assert_eq!(thrift_core::to_vec::<P, _>(&open), bytes, "{}", P::NAME);
    assert_eq!(open.encoded_len::<P>(), bytes.len());
}

#[test]
fn unknown_enum_values_error_unless_the_enum_captures_them() {
    unknown_enum_values::<Binary>();
    unknown_enum_values::<Compact>();
}

// ---- Unions ----

#[derive(ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
#[thrift(name = "Choice")]
enum Choice {
    #[thrift(id = 1)]
    Number(i32),
    #[thrift(id = 2)]
    Text(String),
}

fn invalid_unions<P: Protocol>() {
    let cases: [(Vec<u8>, usize); 4] = [
        (encode_struct::<P>(|_| {}), 0),
        (
            encode_struct::<P>(|s| {
                s.field(1, &1i32);
                s.field(2, "two");
            }),
            2,
        ),
        // A field this union does not know is skipped, leaving none set.
        (encode_struct::<P>(|s| s.field(9, &1i32)), 0),
        // A known field with the wrong wire type is skipped too.
        (encode_struct::<P>(|s| s.field(1, "not a number")), 0),
    ];
    for (bytes, count) in cases {
        let err = thrift_core::from_slice::<P, Choice>(&bytes).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::InvalidUnion { name: "Choice", count }, "{}", P::NAME);
        assert!(err.to_string().contains("Choice"), "{err}");
    }
    // Exactly one known field, beside an unknown one, is fine.
    let bytes = encode_struct::<P>(|s| {
        s.field(2, "two");
        s.field(7, &vec![1i64]);
    });
    assert_eq!(thrift_core::from_slice::<P, Choice>(&bytes).unwrap(), Choice::Text("two".into()));
}

#[test]
fn unions_without_exactly_one_field_are_errors() {
    invalid_unions::<Binary>();
    invalid_unions::<Compact>();
}

// ---- Mistyped and duplicated fields ----

fn mistyped_fields<P: Protocol>() {
    // `name` (a string in V1) arrives as an i32, `tags` (a list) as a map: both skipped.
    let bytes = encode_struct::<P>(|s| {
        s.field(1, &9i64);
        s.field(3, &12345i32);
        s.field(5, &BTreeMap::from([(1i32, "x".to_string())]));
        s.field(20, &true);
    });
    let v1: V1 = thrift_core::from_slice::<P, _>(&bytes).unwrap();
    assert_eq!(v1, V1 { id: 9, name: String::new(), tags: vec![], inner: InnerV1::default(), flag: true, note: None });

    // The required `id` arriving as a string is reported as what it is, not as missing.
    let bytes = encode_struct::<P>(|s| {
        s.field(1, "nine");
        s.field(3, "name");
    });
    let err = thrift_core::from_slice::<P, V1>(&bytes).unwrap_err();
    let expected = ErrorKind::WrongFieldType { expected: thrift_core::TType::I64, found: thrift_core::TType::String };
    assert_eq!(err.kind(), &expected, "{}", P::NAME);
    assert!(err.to_string().starts_with("Record.id (id 1): wire type string, expected i64"), "{err}");
}

#[test]
fn a_known_field_with_another_wire_type_is_skipped() {
    mistyped_fields::<Binary>();
    mistyped_fields::<Compact>();
}

fn duplicated_fields<P: Protocol>() {
    let bytes = encode_struct::<P>(|s| {
        s.field(1, &1i64);
        s.field(3, "first");
        s.field(8, &InnerV1 { label: "first inner".into() });
        s.field(20, &true);
        s.field(3, "second");
        s.field(1, &2i64);
        s.field(8, &InnerV2 { weight: 1.0, ..InnerV2::default() });
        s.field(20, &false);
    });
    let v1: V1 = thrift_core::from_slice::<P, _>(&bytes).unwrap();
    // The last value wins; a repeated struct replaces the earlier one, it does not merge.
    assert_eq!(
        v1,
        V1 { id: 2, name: "second".into(), tags: vec![], inner: InnerV1::default(), flag: false, note: None }
    );
}

#[test]
fn a_duplicated_field_keeps_the_last_value() {
    duplicated_fields::<Binary>();
    duplicated_fields::<Compact>();
}

#[test]
fn a_fixed_v2_value_reads_as_v1() {
    let v2 = V2 {
        id: -1,
        new_bool: true,
        name: "name".into(),
        new_byte: -1,
        tags: vec!["a".into(), "b".into()],
        new_short: 300,
        new_int: -70000,
        inner: InnerV2 {
            label: "in".into(),
            weight: 2.5,
            children: vec![Point { x: 1, y: 2, visible: true }],
            on: true,
        },
        new_double: -0.0,
        new_binary: vec![0, 1, 2],
        new_uuid: Uuid([9; 16]),
        new_points: vec![Point::default(), Point { x: -1, y: -2, visible: false }],
        new_set: ["s".to_string()].into(),
        new_map: [("p".to_string(), Point { x: 5, y: 6, visible: true })].into(),
        new_nested_map: [(1, vec![BTreeMap::new(), [("t".into(), true)].into()])].into(),
        new_enum: Mode::On,
        new_union: Extra::At(Point { x: 7, y: 8, visible: true }),
        new_bools: vec![true, false],
        new_long: i64::MAX,
        flag: true,
        note: Some("note".into()),
        new_last_bool: false,
        new_far: Some(Point { x: 1, y: 1, visible: true }),
        new_negative: Some(true),
    };
    new_reads_as_old(&v2, &as_v1(&v2)).unwrap();
}

/// Apache's generators write fields by ascending id whatever the declaration order; so
/// does the derive, which keeps the bytes identical (and compact's deltas short).
#[test]
fn fields_are_written_in_ascending_id_order() {
    #[derive(ThriftStruct, Debug, PartialEq)]
    struct OutOfOrder {
        #[thrift(id = 3)]
        c: i8,
        #[thrift(id = 1)]
        a: i8,
        #[thrift(id = 2)]
        b: Option<i8>,
    }
    let value = OutOfOrder { c: 3, a: 1, b: Some(2) };
    let bytes = thrift_core::to_vec::<Binary, _>(&value);
    // byte field 1 = 1, byte field 2 = 2, byte field 3 = 3, stop
    assert_eq!(bytes, [3, 0, 1, 1, 3, 0, 2, 2, 3, 0, 3, 3, 0]);
    assert_eq!(thrift_core::from_slice::<Binary, OutOfOrder>(&bytes).unwrap(), value);
    // compact: deltas of 1 each
    let bytes = thrift_core::to_vec::<Compact, _>(&value);
    assert_eq!(bytes, [0x13, 1, 0x13, 2, 0x13, 3, 0]);
    assert_eq!(bytes.len(), value.encoded_len::<Compact>());
}
