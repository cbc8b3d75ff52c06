//! The derived types the targets decode: every kind of field the derives support, nested
//! structs, containers of structs, an enum (closed and open), a union, optional, required
//! and defaulted fields, borrowed `&str`/`&[u8]`/`Cow` and shared `Bytes`, lists kept as
//! their bytes (`LazyList`), and a recursive type.
//!
//! Doubles are held in [`Bits`], a `double` on the wire compared by its bits, so that a NaN
//! read from hostile input still compares equal to itself after a round trip.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use bytes::{BufMut, Bytes};
use thrift_core::{
    Compact, Decode, Encode, Idl, IdlType, LazyList, MessageHeader, MessageType, Protocol, Reader, Result, TType,
    ThriftEnum, ThriftStruct, ThriftType, ThriftUnion, Uuid,
};

/// A `double` compared by its bits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bits(pub f64);

impl PartialEq for Bits {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl ThriftType for Bits {
    const TTYPE: TType = TType::Double;
}

impl IdlType for Bits {
    fn idl_type(idl: &mut Idl) -> String {
        f64::idl_type(idl)
    }
}

impl Encode for Bits {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        self.0.encode::<P, B>(buf)
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.encoded_len::<P>()
    }
    fn fixed_len<P: Protocol>() -> Option<usize> {
        f64::fixed_len::<P>()
    }
}

impl<'de> Decode<'de> for Bits {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        f64::decode::<P>(r).map(Bits)
    }
}

/// A closed enum: an unknown value is an error.
#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[thrift(closed)]
pub enum Color {
    /// 1
    #[default]
    Red = 1,
    /// 2
    Green = 2,
    /// Negative: the long varint path in compact.
    Ultraviolet = -40,
}

/// An open enum: unknown values are kept.
#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(i32)]
pub enum Level {
    /// 0
    #[default]
    Low = 0,
    /// 9
    High = 9,
    /// Any other value.
    #[thrift(unknown)]
    Other(i32),
}

/// A small struct, used as a container element and a map key.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Point {
    /// Default requiredness.
    #[thrift(id = 1)]
    pub x: i32,
    /// Default requiredness.
    #[thrift(id = 2)]
    pub y: i32,
    /// Optional.
    #[thrift(id = 3)]
    pub label: Option<String>,
}

/// A union of every kind of variant.
#[derive(ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
pub enum Shape {
    /// An integer.
    #[thrift(id = 1)]
    Radius(i64),
    /// A string.
    #[thrift(id = 2)]
    Label(String),
    /// A struct.
    #[thrift(id = 3)]
    At(Point),
    /// A bool: compact folds it into the field header.
    #[thrift(id = 4)]
    Hollow(bool),
    /// A list of structs.
    #[thrift(id = 5)]
    Corners(Vec<Point>),
    /// A double.
    #[thrift(id = 6)]
    Scale(Bits),
}

impl Default for Shape {
    fn default() -> Self {
        Shape::Radius(0)
    }
}

/// A recursive struct: children in a list, and a boxed optional link.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct Tree {
    /// The node's value.
    #[thrift(id = 1)]
    pub value: i32,
    /// Nested through a list.
    #[thrift(id = 2)]
    pub children: Vec<Tree>,
    /// Nested through an optional box.
    #[thrift(id = 3)]
    pub next: Option<Box<Tree>>,
}

/// Every kind of field the derive supports, in one struct.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct Rich<'a> {
    /// bool
    #[thrift(id = 1)]
    pub flag: bool,
    /// byte
    #[thrift(id = 2, name = "a_byte")]
    pub byte: i8,
    /// i16
    #[thrift(id = 3)]
    pub short: i16,
    /// i32
    #[thrift(id = 4)]
    pub int: i32,
    /// i64
    #[thrift(id = 5)]
    pub long: i64,
    /// double
    #[thrift(id = 6, name = "a_double")]
    pub double: Bits,
    /// Required string.
    #[thrift(id = 7, required)]
    pub name: String,
    /// binary, owned
    #[thrift(id = 8)]
    pub blob: Vec<u8>,
    /// binary, shared with the input
    #[thrift(id = 9)]
    pub shared: Bytes,
    /// string, borrowed
    #[thrift(id = 10)]
    pub text: &'a str,
    /// Required binary, borrowed.
    #[thrift(id = 11, required)]
    pub raw: &'a [u8],
    /// string, borrowed through a Cow
    #[thrift(id = 12)]
    pub cow: Cow<'a, str>,
    /// uuid
    #[thrift(id = 13, name = "a_uuid")]
    pub uuid: Uuid,
    /// list<i64>
    #[thrift(id = 14)]
    pub longs: Vec<i64>,
    /// list<byte>
    #[thrift(id = 15)]
    pub byte_list: Vec<i8>,
    /// list<bool>
    #[thrift(id = 16)]
    pub flags: Vec<bool>,
    /// set<string>
    #[thrift(id = 17)]
    pub tags: HashSet<String>,
    /// set<uuid>
    #[thrift(id = 18)]
    pub uuids: BTreeSet<Uuid>,
    /// map<string, i64>
    #[thrift(id = 19)]
    pub counts: HashMap<String, i64>,
    /// map<i32, Point>
    #[thrift(id = 20)]
    pub points_by_id: BTreeMap<i32, Point>,
    /// list<Point>
    #[thrift(id = 21)]
    pub points: Vec<Point>,
    /// A nested struct.
    #[thrift(id = 22)]
    pub origin: Point,
    /// A recursive optional struct.
    #[thrift(id = 23)]
    pub tree: Option<Box<Tree>>,
    /// list<Tree>: recursion through a list.
    #[thrift(id = 24)]
    pub forest: Vec<Tree>,
    /// A closed enum.
    #[thrift(id = 25)]
    pub color: Color,
    /// An open enum.
    #[thrift(id = 26)]
    pub level: Level,
    /// A required union.
    #[thrift(id = 27, required)]
    pub shape: Shape,
    /// An optional union.
    #[thrift(id = 28)]
    pub maybe_shape: Option<Shape>,
    /// Optional borrowed string.
    #[thrift(id = 29)]
    pub maybe_text: Option<&'a str>,
    /// Optional bool.
    #[thrift(id = 30)]
    pub maybe_flag: Option<bool>,
    /// A default value.
    #[thrift(id = 31, default = 7)]
    pub retries: i32,
    /// A default string.
    #[thrift(id = 32, default = String::from("anonymous"))]
    pub owner: String,
    /// map<Color, list<string>>
    #[thrift(id = 33)]
    pub palette: HashMap<Color, Vec<String>>,
    /// list<list<i32>>
    #[thrift(id = 34)]
    pub grid: Vec<Vec<i32>>,
    /// list<Shape>
    #[thrift(id = 35)]
    pub shapes: Vec<Shape>,
    /// set<i16>
    #[thrift(id = 36)]
    pub shorts: BTreeSet<i16>,
    /// list<double>
    #[thrift(id = 37)]
    pub doubles: Vec<Bits>,
    /// set<Point>: structs as set elements.
    #[thrift(id = 38)]
    pub point_set: BTreeSet<Point>,
    /// map<Point, set<string>>: structs as map keys, sets as values.
    #[thrift(id = 39)]
    pub regions: BTreeMap<Point, BTreeSet<String>>,
    /// Out of order and negative: compact must use long-form field headers.
    #[thrift(id = -3)]
    pub negative: i16,
    /// A jump beyond the compact delta range.
    #[thrift(id = 1000)]
    pub far: Option<bool>,
    /// list<string>, kept as its bytes.
    #[thrift(id = 40)]
    pub lazy_names: LazyList<'a, &'a str>,
    /// list<Point>, kept as its bytes.
    #[thrift(id = 41)]
    pub lazy_points: LazyList<'a, Point>,
}

/// The arguments struct of the messages the transport targets carry.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct Args<'a> {
    /// The payload.
    #[thrift(id = 1)]
    pub rich: Option<Rich<'a>>,
    /// A second, cheaper payload.
    #[thrift(id = 2)]
    pub tree: Option<Tree>,
}

/// The largest in-memory size of a value that can be a container element (or a boxed
/// struct) in these shapes: each such value costs at least one input byte (its stop byte,
/// length byte or header byte), so this bounds the bytes of Rust values per input byte.
pub fn max_element_size() -> usize {
    use std::mem::size_of;
    [
        size_of::<Point>(),
        size_of::<Tree>(),
        size_of::<Shape>(),
        size_of::<String>(),
        size_of::<Vec<i32>>(),
        size_of::<BTreeSet<String>>(),
        size_of::<(Point, BTreeSet<String>)>(),
        size_of::<(i32, Point)>(),
        size_of::<(String, i64)>(),
        size_of::<(Color, Vec<String>)>(),
        size_of::<Uuid>(),
        size_of::<i64>(),
    ]
    .into_iter()
    .max()
    .unwrap_or(0)
}

/// A tree `depth` levels deep with `width` children at the top.
fn tree(depth: u32, width: i32) -> Tree {
    Tree {
        value: depth as i32 * 10 + width,
        children: (0..width).map(|i| tree(depth.saturating_sub(1).min(1), i % 2)).collect(),
        next: (depth > 0).then(|| Box::new(tree(depth - 1, 0))),
    }
}

/// Sample values for the seed corpora: a full one, a minimal one, and ones in between.
/// A `LazyList` of `items` as decoding their compact encoding gives it; the bytes are leaked,
/// a few per sample, for the `'static` samples.
fn lazy<T: Encode + Decode<'static>>(items: Vec<T>) -> LazyList<'static, T> {
    let bytes: &'static [u8] = Vec::leak(thrift_core::to_vec::<Compact, _>(&items));
    thrift_core::from_slice::<Compact, _>(bytes).expect("a list of samples decodes")
}

pub fn samples() -> Vec<Rich<'static>> {
    let full = Rich {
        flag: true,
        byte: -7,
        short: -300,
        int: 70_000,
        long: -(1 << 40),
        double: Bits(-2.5),
        name: "ada lovelace".into(),
        blob: vec![0, 1, 2, 0xff],
        shared: Bytes::from_static(b"shared"),
        text: "borrowed é",
        raw: b"\x00raw\xff",
        cow: Cow::Borrowed("cow"),
        uuid: Uuid(*b"0123456789abcdef"),
        longs: vec![0, -1, i64::MAX, i64::MIN],
        byte_list: vec![-128, 0, 127],
        flags: vec![true, false, true],
        tags: ["a".to_string(), "bb".to_string()].into(),
        uuids: [Uuid([1; 16]), Uuid([2; 16])].into(),
        counts: [("x".to_string(), 1), ("y".to_string(), -1)].into(),
        points_by_id: [(1, Point { x: 1, y: 2, label: None }), (-5, Point::default())].into(),
        points: vec![Point { x: 3, y: 4, label: Some("p".into()) }, Point::default()],
        origin: Point { x: -1, y: -1, label: Some("origin".into()) },
        tree: Some(Box::new(tree(3, 2))),
        forest: vec![tree(2, 1), Tree::default()],
        color: Color::Ultraviolet,
        level: Level::Other(1234),
        shape: Shape::Corners(vec![Point { x: 9, y: 9, label: None }]),
        maybe_shape: Some(Shape::Hollow(true)),
        maybe_text: Some("maybe"),
        maybe_flag: Some(false),
        retries: 3,
        owner: "owner".into(),
        palette: [(Color::Green, vec!["g".to_string()]), (Color::Red, vec![])].into(),
        grid: vec![vec![1, 2], vec![], vec![-3]],
        shapes: vec![Shape::Radius(5), Shape::Label("l".into()), Shape::Scale(Bits(1.0)), Shape::At(Point::default())],
        shorts: [-1, 0, 1].into(),
        doubles: vec![Bits(0.5), Bits(f64::INFINITY)],
        point_set: [Point { x: 1, y: 1, label: None }, Point { x: 2, y: 2, label: Some("s".into()) }].into(),
        regions: [(Point::default(), ["r".to_string()].into())].into(),
        negative: -2,
        far: Some(true),
        lazy_names: lazy(vec!["north", "", "é"]),
        lazy_points: lazy(vec![Point::default(), Point { x: -1, y: 1 << 30, label: Some("far".into()) }]),
    };
    let minimal = Rich {
        flag: false,
        byte: 0,
        short: 0,
        int: 0,
        long: 0,
        double: Bits(0.0),
        name: String::new(),
        blob: vec![],
        shared: Bytes::new(),
        text: "",
        raw: b"",
        cow: Cow::Borrowed(""),
        uuid: Uuid::default(),
        longs: vec![],
        byte_list: vec![],
        flags: vec![],
        tags: HashSet::new(),
        uuids: BTreeSet::new(),
        counts: HashMap::new(),
        points_by_id: BTreeMap::new(),
        points: vec![],
        origin: Point::default(),
        tree: None,
        forest: vec![],
        color: Color::Red,
        level: Level::Low,
        shape: Shape::Radius(0),
        maybe_shape: None,
        maybe_text: None,
        maybe_flag: None,
        retries: 7,
        owner: "anonymous".into(),
        palette: HashMap::new(),
        grid: vec![],
        shapes: vec![],
        shorts: BTreeSet::new(),
        doubles: vec![],
        point_set: BTreeSet::new(),
        regions: BTreeMap::new(),
        negative: 0,
        far: None,
        lazy_names: LazyList::default(),
        lazy_points: LazyList::default(),
    };
    let long_lists = Rich {
        // Past the compact short list header (15 elements and more).
        longs: (0..20).map(|i| i * 1_000_003).collect(),
        flags: (0..17).map(|i| i % 3 == 0).collect(),
        points: (0..16).map(|i| Point { x: i, y: -i, label: None }).collect(),
        shape: Shape::Scale(Bits(f64::NAN)),
        ..minimal.clone()
    };
    vec![full, minimal, long_lists]
}

/// The message envelopes the transport seeds use.
pub fn headers() -> [MessageHeader<'static>; 3] {
    [
        MessageHeader { name: "getUser", kind: MessageType::Call, seqid: 1 },
        MessageHeader { name: "", kind: MessageType::Reply, seqid: -1 },
        MessageHeader { name: "Svc:ping", kind: MessageType::Oneway, seqid: i32::MAX },
    ]
}
