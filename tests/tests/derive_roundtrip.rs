//! Property tests of the derives: a struct with every kind of field round-trips through both
//! protocols (`thrift_core::testing`'s checks on `#[derive(ThriftArbitrary)]` values),
//! borrowed fields pointing into the input.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use bytes::Bytes;
use proptest::prelude::*;
use thrift_core::testing::{assert_roundtrip_borrowed, check_roundtrips_with, roundtrip, roundtrip_borrowed, Sizes};
use thrift_core::{Binary, Compact, Protocol, ThriftArbitrary, ThriftEnum, ThriftStruct, ThriftUnion, Uuid};

#[derive(ThriftArbitrary, ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[thrift(closed)]
enum Color {
    #[default]
    Red = 1,
    Green = 2,
    // Negative values are legal enum values and take the long varint path in compact.
    Ultraviolet = -40,
}

#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, Default)]
struct Point {
    #[thrift(id = 1)]
    x: i32,
    #[thrift(id = 2)]
    y: i32,
}

#[derive(ThriftArbitrary, ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum Shape {
    #[thrift(id = 1)]
    Radius(i64),
    #[thrift(id = 2)]
    Label(String),
    #[thrift(id = 3)]
    At(Point),
    /// A bool variant: compact folds it into the field header.
    #[thrift(id = 4)]
    Hollow(bool),
    #[thrift(id = 5)]
    Corners(Vec<Point>),
}

/// A recursive type: children in a list, and a boxed optional link.
#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Tree {
    #[thrift(id = 1)]
    value: i32,
    #[thrift(id = 2)]
    children: Vec<Tree>,
    #[thrift(id = 3)]
    next: Option<Box<Tree>>,
}

/// Every kind of field the derive supports, in one struct.
#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq)]
struct Rich<'a> {
    #[thrift(id = 1)]
    flag: bool,
    // IDL keywords as Rust names: renamed for the IDL.
    #[thrift(id = 2, name = "byte_value")]
    byte: i8,
    #[thrift(id = 3)]
    short: i16,
    #[thrift(id = 4)]
    int: i32,
    #[thrift(id = 5)]
    long: i64,
    #[thrift(id = 6, name = "double_value")]
    double: f64,
    #[thrift(id = 7, required)]
    name: String,
    #[thrift(id = 8)]
    blob: Vec<u8>,
    #[thrift(id = 9)]
    shared: Bytes,
    #[thrift(id = 10)]
    text: &'a str,
    #[thrift(id = 11, required)]
    raw: &'a [u8],
    #[thrift(id = 12)]
    cow: Cow<'a, str>,
    #[thrift(id = 13, name = "uuid_value")]
    uuid: Uuid,
    #[thrift(id = 14)]
    longs: Vec<i64>,
    #[thrift(id = 15)]
    byte_list: Vec<i8>,
    #[thrift(id = 16)]
    flags: Vec<bool>,
    #[thrift(id = 17)]
    tags: HashSet<String>,
    #[thrift(id = 18)]
    uuids: BTreeSet<Uuid>,
    #[thrift(id = 19)]
    counts: HashMap<String, i64>,
    #[thrift(id = 20)]
    points_by_id: BTreeMap<i32, Point>,
    #[thrift(id = 21)]
    points: Vec<Point>,
    #[thrift(id = 22)]
    origin: Point,
    #[thrift(id = 23)]
    tree: Option<Box<Tree>>,
    #[thrift(id = 24)]
    color: Color,
    #[thrift(id = 25, required)]
    shape: Shape,
    #[thrift(id = 26)]
    maybe_shape: Option<Shape>,
    #[thrift(id = 27)]
    maybe_text: Option<&'a str>,
    #[thrift(id = 28)]
    maybe_flag: Option<bool>,
    #[thrift(id = 29)]
    maybe_long: Option<i64>,
    #[thrift(id = 30, default = 7)]
    retries: i32,
    #[thrift(id = 31, default = String::from("anonymous"))]
    owner: String,
    #[thrift(id = 32)]
    palette: HashMap<Color, Vec<String>>,
    #[thrift(id = 33)]
    grid: Vec<Vec<i32>>,
    #[thrift(id = 34)]
    shapes: Vec<Shape>,
    #[thrift(id = 35)]
    colors: BTreeSet<i16>,
    /// Out of order and negative: compact must fall back to long-form field headers.
    #[thrift(id = -3)]
    negative: i16,
    /// A jump beyond the compact delta range.
    #[thrift(id = 1000)]
    far: Option<bool>,
}

/// Whether `inner` lies inside `outer`'s memory (a zero-copy slice of it).
fn points_into(outer: &[u8], inner: &[u8]) -> bool {
    let range = outer.as_ptr_range();
    range.start <= inner.as_ptr() && inner.as_ptr_range().end <= range.end
}

/// Decoding borrows: from a slice, the borrowed fields point into it; from `Bytes`, `Bytes`
/// fields share it too, when not empty.
fn borrows_from_input<P: Protocol>(x: &Rich<'_>) -> Result<(), TestCaseError> {
    let buf = thrift_core::to_vec::<P, _>(x);
    let back: Rich<'_> = thrift_core::from_slice::<P, _>(&buf)?;
    prop_assert!(points_into(&buf, back.text.as_bytes()) && points_into(&buf, back.raw));
    prop_assert!(matches!(back.cow, Cow::Borrowed(s) if points_into(&buf, s.as_bytes())));

    let shared = Bytes::from(buf);
    let back: Rich<'_> = thrift_core::from_bytes::<P, _>(&shared)?;
    prop_assert!(back.shared.is_empty() || points_into(&shared, &back.shared));
    prop_assert!(points_into(&shared, back.text.as_bytes()));
    Ok(())
}

/// Every nested value also roundtrips on its own.
fn nested_roundtrip(x: &Rich<'_>) -> Result<(), TestCaseError> {
    roundtrip(&x.shape)?;
    roundtrip(&x.color)?;
    roundtrip(&x.origin)?;
    roundtrip(&x.palette)?;
    for shape in &x.shapes {
        roundtrip(shape)?;
    }
    if let Some(tree) = &x.tree {
        roundtrip(&**tree)?;
    }
    Ok(())
}

proptest! {
    #[test]
    fn rich_struct_roundtrips(x in any::<Rich<'static>>()) {
        roundtrip_borrowed(&x)?;
        borrows_from_input::<Binary>(&x)?;
        borrows_from_input::<Compact>(&x)?;
        nested_roundtrip(&x)?;
    }
}

#[test]
fn deep_trees_roundtrip() {
    check_roundtrips_with::<Tree>(Sizes { max_depth: 8, max_collection: 3, ..Sizes::default() }, 128);
}

/// A fixed value, so a failure here is reproducible without proptest's shrinking.
#[test]
fn a_known_value_roundtrips_and_sizes_exactly() {
    let text = String::from("héllo");
    let x = Rich {
        flag: true,
        byte: -1,
        short: i16::MIN,
        int: i32::MAX,
        long: i64::MIN,
        double: -0.0,
        name: "name".into(),
        blob: vec![0, 255],
        shared: Bytes::from_static(b"shared"),
        text: &text,
        raw: b"\x00raw",
        cow: Cow::Borrowed("cow"),
        uuid: Uuid([7; 16]),
        longs: vec![-1, 0, 1],
        byte_list: vec![-128, 127],
        flags: vec![true, false, true],
        tags: ["a".to_string(), "b".to_string()].into(),
        uuids: [Uuid([1; 16])].into(),
        counts: [("k".to_string(), -5)].into(),
        points_by_id: [(3, Point { x: 1, y: -1 })].into(),
        points: vec![Point::default(), Point { x: 9, y: 9 }],
        origin: Point { x: -7, y: 7 },
        tree: Some(Box::new(Tree {
            value: 1,
            children: vec![Tree { value: 2, ..Tree::default() }],
            next: Some(Box::new(Tree { value: 3, ..Tree::default() })),
        })),
        color: Color::Ultraviolet,
        shape: Shape::Hollow(false),
        maybe_shape: Some(Shape::Corners(vec![Point { x: 1, y: 2 }])),
        maybe_text: Some("maybe"),
        maybe_flag: Some(false),
        maybe_long: None,
        retries: 0,
        owner: String::new(),
        palette: [(Color::Green, vec!["leaf".to_string()]), (Color::Red, vec![])].into(),
        grid: vec![vec![], vec![1, 2, 3]],
        shapes: vec![Shape::Radius(-1), Shape::Label("l".into()), Shape::At(Point { x: 0, y: 0 })],
        colors: [-1, 1].into(),
        negative: -3,
        far: Some(true),
    };
    assert_roundtrip_borrowed(&Rich { text: "text", ..x.clone() });
    borrows_from_input::<Binary>(&x).unwrap();
    borrows_from_input::<Compact>(&x).unwrap();
    nested_roundtrip(&x).unwrap();
}

/// Strategies make finite doubles (a NaN is not equal to itself); NaN payloads survive too.
#[test]
fn nan_payloads_survive() {
    let nan = f64::from_bits(0x7ff8_dead_beef_0001);
    let binary = thrift_core::to_vec::<Binary, _>(&nan);
    assert_eq!(thrift_core::from_slice::<Binary, f64>(&binary).unwrap().to_bits(), nan.to_bits());
    let compact = thrift_core::to_vec::<Compact, _>(&nan);
    assert_eq!(thrift_core::from_slice::<Compact, f64>(&compact).unwrap().to_bits(), nan.to_bits());
}
