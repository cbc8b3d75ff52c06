//! Property tests of the derives: a struct with every kind of field round-trips through both
//! protocols, at exactly its reported encoded length, borrowed fields pointing into the input.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use bytes::Bytes;
use proptest::collection::{btree_map, btree_set, hash_map, hash_set, vec};
use proptest::prelude::*;
use thrift_core::{Binary, Compact, Encode, Protocol, ThriftEnum, ThriftStruct, ThriftUnion, Uuid};

#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[thrift(closed)]
enum Color {
    #[default]
    Red = 1,
    Green = 2,
    // Negative values are legal enum values and take the long varint path in compact.
    Ultraviolet = -40,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, Default)]
struct Point {
    #[thrift(id = 1)]
    x: i32,
    #[thrift(id = 2)]
    y: i32,
}

#[derive(ThriftUnion, Debug, Clone, PartialEq)]
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
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Tree {
    #[thrift(id = 1)]
    value: i32,
    #[thrift(id = 2)]
    children: Vec<Tree>,
    #[thrift(id = 3)]
    next: Option<Box<Tree>>,
}

/// Every kind of field the derive supports, in one struct.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
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
    /// Compared by bits (see `same`), so NaNs are generated too.
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

/// The owned data a [`Rich`] borrows from; proptest generates this.
#[derive(Debug, Clone)]
struct Parts {
    rich: Rich<'static>,
    text: String,
    raw: Vec<u8>,
    maybe_text: Option<String>,
}

impl Parts {
    /// The `Rich` value whose borrowed fields point into `self`.
    fn rich(&self) -> Rich<'_> {
        Rich { text: &self.text, raw: &self.raw, maybe_text: self.maybe_text.as_deref(), ..self.rich.clone() }
    }
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::Red), Just(Color::Green), Just(Color::Ultraviolet)]
}

fn point() -> impl Strategy<Value = Point> {
    (any::<i32>(), any::<i32>()).prop_map(|(x, y)| Point { x, y })
}

fn uuid() -> impl Strategy<Value = Uuid> {
    any::<[u8; 16]>().prop_map(Uuid)
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        any::<i64>().prop_map(Shape::Radius),
        text().prop_map(Shape::Label),
        point().prop_map(Shape::At),
        any::<bool>().prop_map(Shape::Hollow),
        vec(point(), 0..4).prop_map(Shape::Corners),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = any::<i32>().prop_map(|value| Tree { value, ..Tree::default() });
    leaf.prop_recursive(4, 24, 3, |inner| {
        (any::<i32>(), vec(inner.clone(), 0..3), proptest::option::of(inner)).prop_map(|(value, children, next)| Tree {
            value,
            children,
            next: next.map(Box::new),
        })
    })
}

prop_compose! {
    fn parts()(
        (flag, byte, short, int, long, double, uuid, color, negative) in (
            any::<bool>(), any::<i8>(), any::<i16>(), any::<i32>(), any::<i64>(),
            any::<u64>().prop_map(f64::from_bits), uuid(), color(), any::<i16>(),
        ),
        (name, blob, shared, text, raw, cow, owner) in (
            text(), vec(any::<u8>(), 0..16), vec(any::<u8>(), 0..16), text(), vec(any::<u8>(), 0..16),
            text(), text(),
        ),
        (longs, byte_list, flags, tags, uuids, counts, colors) in (
            vec(any::<i64>(), 0..6), vec(any::<i8>(), 0..6), vec(any::<bool>(), 0..6),
            hash_set(text(), 0..4), btree_set(uuid(), 0..3), hash_map(text(), any::<i64>(), 0..4),
            btree_set(any::<i16>(), 0..4),
        ),
        (points_by_id, points, origin, tree, palette, grid) in (
            btree_map(any::<i32>(), point(), 0..4), vec(point(), 0..4), point(),
            proptest::option::of(tree()), hash_map(color(), vec(text(), 0..3), 0..3),
            vec(vec(any::<i32>(), 0..4), 0..3),
        ),
        (shape, maybe_shape, shapes, maybe_text, maybe_flag, maybe_long, retries, far) in (
            shape(), proptest::option::of(shape()), vec(shape(), 0..4), proptest::option::of(text()),
            proptest::option::of(any::<bool>()), proptest::option::of(any::<i64>()), any::<i32>(),
            proptest::option::of(any::<bool>()),
        ),
    ) -> Parts {
        let rich = Rich {
            flag, byte, short, int, long, double, name, blob, shared: Bytes::from(shared), text: "", raw: &[],
            // Owned on the way in; decoding borrows, and `Cow` compares by content.
            cow: Cow::Owned(cow), uuid, longs, byte_list, flags, tags, uuids, counts, points_by_id, points, origin,
            tree: tree.map(Box::new), color, shape, maybe_shape, maybe_text: None, maybe_flag, maybe_long, retries,
            owner, palette, grid, shapes, colors, negative, far,
        };
        Parts { rich, text, raw, maybe_text }
    }
}

/// Equality with the `double` compared by bits, so NaN payloads must survive too.
fn same(a: &Rich<'_>, b: &Rich<'_>) -> bool {
    a.double.to_bits() == b.double.to_bits() && Rich { double: 0.0, ..a.clone() } == Rich { double: 0.0, ..b.clone() }
}

/// Encodes `value` with `P` and checks the length is the one `encoded_len` reported.
fn encode_exact<P: Protocol, T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>, TestCaseError> {
    let mut buf = Vec::new();
    value.encode::<P, _>(&mut buf);
    prop_assert_eq!(buf.len(), value.encoded_len::<P>(), "encoded_len for {}", P::NAME);
    Ok(buf)
}

/// A decoding error as a proptest failure.
fn fail(e: thrift_core::Error) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// Whether `inner` lies inside `outer`'s memory (a zero-copy slice of it).
fn points_into(outer: &[u8], inner: &[u8]) -> bool {
    let range = outer.as_ptr_range();
    range.start <= inner.as_ptr() && inner.as_ptr_range().end <= range.end
}

fn roundtrip<P: Protocol>(x: &Rich<'_>) -> Result<(), TestCaseError> {
    let buf = encode_exact::<P, _>(x)?;

    // From a slice: borrowed fields point into it.
    let back: Rich<'_> = thrift_core::from_slice::<P, _>(&buf).map_err(fail)?;
    prop_assert!(same(&back, x), "{}: {:?} != {:?}", P::NAME, back, x);
    prop_assert!(points_into(&buf, back.text.as_bytes()) && points_into(&buf, back.raw));
    prop_assert!(matches!(back.cow, Cow::Borrowed(s) if points_into(&buf, s.as_bytes())));

    // From `Bytes`: `Bytes` fields share the input too, when not empty.
    let shared = Bytes::from(buf);
    let back: Rich<'_> = thrift_core::from_bytes::<P, _>(&shared).map_err(fail)?;
    prop_assert!(same(&back, x), "{}: {:?} != {:?}", P::NAME, back, x);
    prop_assert!(back.shared.is_empty() || points_into(&shared, &back.shared));
    prop_assert!(points_into(&shared, back.text.as_bytes()));
    Ok(())
}

/// Every nested value also reports its exact length on its own.
fn nested_lengths<P: Protocol>(x: &Rich<'_>) -> Result<(), TestCaseError> {
    encode_exact::<P, _>(&x.shape)?;
    encode_exact::<P, _>(&x.color)?;
    encode_exact::<P, _>(&x.origin)?;
    encode_exact::<P, _>(&x.palette)?;
    for shape in &x.shapes {
        encode_exact::<P, _>(shape)?;
    }
    if let Some(tree) = &x.tree {
        encode_exact::<P, _>(tree)?;
        for child in &tree.children {
            encode_exact::<P, _>(child)?;
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn rich_struct_roundtrips_in_binary(parts in parts()) {
        let x = parts.rich();
        roundtrip::<Binary>(&x)?;
        nested_lengths::<Binary>(&x)?;
    }

    #[test]
    fn rich_struct_roundtrips_in_compact(parts in parts()) {
        let x = parts.rich();
        roundtrip::<Compact>(&x)?;
        nested_lengths::<Compact>(&x)?;
    }

    #[test]
    fn deep_trees_roundtrip(tree in tree()) {
        let binary = encode_exact::<Binary, _>(&tree)?;
        prop_assert_eq!(thrift_core::from_slice::<Binary, Tree>(&binary).map_err(fail)?, tree.clone());
        let compact = encode_exact::<Compact, _>(&tree)?;
        prop_assert_eq!(thrift_core::from_slice::<Compact, Tree>(&compact).map_err(fail)?, tree);
    }
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
        double: f64::NAN,
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
    roundtrip::<Binary>(&x).unwrap();
    roundtrip::<Compact>(&x).unwrap();
    nested_lengths::<Binary>(&x).unwrap();
    nested_lengths::<Compact>(&x).unwrap();
}
