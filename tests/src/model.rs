//! The types of tests/idl/interop.thrift in Rust, encoded by hand (see
//! [`hand_struct!`](macro@crate::hand_struct)) so that thrift-core's wire format is checked against
//! Apache's library on its own, without the derives.
//!
//! Field ids, names and types match the IDL exactly; sets and maps are B-trees so that the
//! Rust side's order, and so its bytes, are deterministic.

use std::collections::{BTreeMap, BTreeSet};

use bytes::BufMut;
use serde_json::Value;
use thrift_core::{
    Decode, Encode, Error, ErrorKind, FieldHeader, Idl, IdlType, Protocol, Reader, Result, StructDecoder,
    StructEncoder, StructSizer, TType, ThriftType,
};

use crate::hand_struct;
use crate::json::ToJson;

/// `enum Color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Color {
    /// 1
    #[default]
    Red,
    /// 2
    Green,
    /// 3
    Blue,
    /// -7
    Ultraviolet,
}

impl Color {
    /// The wire value.
    pub fn code(self) -> i32 {
        match self {
            Color::Red => 1,
            Color::Green => 2,
            Color::Blue => 3,
            Color::Ultraviolet => -7,
        }
    }

    /// The color with wire value `code`.
    pub fn from_code(code: i32) -> Option<Color> {
        Some(match code {
            1 => Color::Red,
            2 => Color::Green,
            3 => Color::Blue,
            -7 => Color::Ultraviolet,
            _ => return None,
        })
    }
}

impl ThriftType for Color {
    const TTYPE: TType = TType::I32;
}

impl IdlType for Color {
    fn idl_type(idl: &mut Idl) -> String {
        idl.define("Color", |_| "enum Color {\n  RED = 1,\n  GREEN = 2,\n  BLUE = 3,\n  ULTRAVIOLET = -7,\n}\n".into());
        "Color".into()
    }
}

impl Encode for Color {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_i32(buf, self.code());
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        P::i32_len(self.code())
    }
}

impl<'de> Decode<'de> for Color {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let code = P::read_i32(r)?;
        Color::from_code(code).ok_or_else(|| r.error(ErrorKind::UnknownEnumValue { name: "Color", value: code }))
    }
}

impl ToJson for Color {
    fn to_json(&self) -> Value {
        self.code().into()
    }
}

hand_struct! {
    /// `struct Primitives`: one field of each scalar type.
    #[derive(Default)]
    pub struct Primitives as "struct" {
        1: plain flag: bool,
        2: plain tiny: i8,
        3: plain small: i16,
        4: plain medium: i32,
        5: plain large: i64,
        6: plain real: f64,
        7: plain text: String,
        8: plain blob: Vec<u8>,
    }
}

hand_struct! {
    /// `struct Point`.
    #[derive(Default, Eq, PartialOrd, Ord)]
    pub struct Point as "struct" {
        1: plain x: i32,
        2: plain y: i32,
    }
}

hand_struct! {
    /// `struct Line`: structs inside a struct.
    #[derive(Default)]
    pub struct Line as "struct" {
        1: plain start: Point,
        2: plain end: Point,
        3: plain label: String,
    }
}

hand_struct! {
    /// `struct Containers`: every container shape the IDL allows us to mirror.
    #[derive(Default)]
    pub struct Containers as "struct" {
        1: plain bools: Vec<bool>,
        2: plain tinies: Vec<i8>,
        3: plain smalls: Vec<i16>,
        4: plain mediums: Vec<i32>,
        5: plain larges: Vec<i64>,
        6: plain reals: Vec<f64>,
        7: plain texts: Vec<String>,
        8: plain blobs: Vec<Vec<u8>>,
        9: plain medium_set: BTreeSet<i32>,
        10: plain text_set: BTreeSet<String>,
        11: plain text_to_large: BTreeMap<String, i64>,
        12: plain medium_to_text: BTreeMap<i32, String>,
        13: plain points: Vec<Point>,
        14: plain named_points: BTreeMap<String, Point>,
        15: plain matrix: Vec<Vec<i32>>,
        16: plain multimap: BTreeMap<String, Vec<String>>,
        17: plain colors: Vec<Color>,
        18: plain lines_by_color: BTreeMap<Color, Line>,
        19: plain large_set: BTreeSet<i64>,
        20: plain large_to_real: BTreeMap<i64, f64>,
    }
}

/// `union Shape`: exactly one field on the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// 1: double radius
    Radius(f64),
    /// 2: Point point
    Point(Point),
    /// 3: string label
    Label(String),
    /// 4: Line line
    Line(Line),
}

impl ThriftType for Shape {
    const TTYPE: TType = TType::Struct;
}

impl IdlType for Shape {
    fn idl_type(idl: &mut Idl) -> String {
        idl.define("Shape", |idl| {
            format!(
                "union Shape {{\n  1: double radius\n  2: {} point\n  3: string label\n  4: {} line\n}}\n",
                idl.type_name::<Point>(),
                idl.type_name::<Line>()
            )
        });
        "Shape".into()
    }
}

impl Encode for Shape {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        match self {
            Shape::Radius(v) => s.field(1, v),
            Shape::Point(v) => s.field(2, v),
            Shape::Label(v) => s.field(3, v),
            Shape::Line(v) => s.field(4, v),
        }
        s.finish();
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        match self {
            Shape::Radius(v) => s.field(1, v),
            Shape::Point(v) => s.field(2, v),
            Shape::Label(v) => s.field(3, v),
            Shape::Line(v) => s.field(4, v),
        }
        s.finish()
    }
}

impl<'de> Decode<'de> for Shape {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let start = r.position();
        // Every variant present on the wire, so that two set fields are an error, not a pick.
        let mut found: Vec<Shape> = Vec::new();
        let mut s = StructDecoder::<P>::begin(r)?;
        while let Some(field) = s.next_field(r)? {
            match field.id {
                1 => found.extend(variant(&mut s, r, field, "radius", Shape::Radius)?),
                2 => found.extend(variant(&mut s, r, field, "point", Shape::Point)?),
                3 => found.extend(variant(&mut s, r, field, "label", Shape::Label)?),
                4 => found.extend(variant(&mut s, r, field, "line", Shape::Line)?),
                _ => s.skip(r, field)?,
            }
        }
        match found.len() {
            1 => Ok(found.pop().expect("one element")),
            count => Err(Error::at(ErrorKind::InvalidUnion { name: "Shape", count }, start)),
        }
    }
}

/// Reads one union field (skipped when its wire type is not `T`'s) as a variant.
fn variant<'de, P: Protocol, T: Decode<'de>>(
    s: &mut StructDecoder<P>,
    r: &mut Reader<'de>,
    field: FieldHeader,
    name: &'static str,
    wrap: fn(T) -> Shape,
) -> Result<Option<Shape>> {
    let mut value = None;
    s.read(r, field, &mut value).map_err(|e| e.in_field("Shape", name, field.id))?;
    Ok(value.map(wrap))
}

impl ToJson for Shape {
    fn to_json(&self) -> Value {
        match self {
            Shape::Radius(v) => serde_json::json!({ "radius": v.to_json() }),
            Shape::Point(v) => serde_json::json!({ "point": v.to_json() }),
            Shape::Label(v) => serde_json::json!({ "label": v.to_json() }),
            Shape::Line(v) => serde_json::json!({ "line": v.to_json() }),
        }
    }
}

hand_struct! {
    /// `exception Oops`.
    #[derive(Default)]
    pub struct Oops as "exception" {
        1: plain message: String,
        2: plain code: i32,
    }
}

hand_struct! {
    /// `struct Requiredness`: required, optional and default fields.
    pub struct Requiredness as "struct" {
        1: required name: String,
        2: optional maybe_medium: i32,
        3: optional maybe_text: String,
        4: plain large_with_default: i64 = 7,
        5: plain plain: String,
        6: optional maybe_list: Vec<i32>,
        7: plain color: Color = Color::Green,
        8: optional maybe_point: Point,
    }
}

impl Default for Requiredness {
    /// The IDL's defaults, as Apache's generated constructors set them.
    fn default() -> Self {
        Requiredness {
            name: String::new(),
            maybe_medium: None,
            maybe_text: None,
            large_with_default: 7,
            plain: String::new(),
            maybe_list: None,
            color: Color::Green,
            maybe_point: None,
        }
    }
}

hand_struct! {
    /// `struct Sparse`, fields in ascending id order: the order in which Apache's generated
    /// code writes them whatever the IDL's declaration order.
    #[derive(Default)]
    pub struct Sparse as "struct" {
        1: plain first: bool,
        5: plain five: bool,
        10: plain ten: i32,
        17: plain after_gap: i64,
        300: plain far: String,
        32767: plain last: bool,
    }
}

hand_struct! {
    /// `struct Node`: a linked chain, for nesting as deep as decoders allow.
    pub struct Node as "struct" {
        1: plain value: i32,
        2: optional next: Box<Node>,
    }
}

impl Node {
    /// A chain of `depth` nodes (`depth` nested structs), valued 1 to `depth` from the top.
    pub fn chain(depth: usize) -> Node {
        assert!(depth >= 1, "a chain has at least one node");
        let mut node = Node { value: depth as i32, next: None };
        for value in (1..depth).rev() {
            node = Node { value: value as i32, next: Some(Box::new(node)) };
        }
        node
    }
}

hand_struct! {
    /// `struct Everything`: all of the above in one value.
    pub struct Everything as "struct" {
        1: plain primitives: Primitives,
        2: plain containers: Containers,
        3: plain shape: Shape = Shape::Radius(0.0),
        4: plain oops: Oops,
        5: plain requiredness: Requiredness,
        6: plain color: Color,
        7: plain shapes: Vec<Shape>,
        8: optional chain: Node,
        9: plain nested_containers: BTreeMap<String, Containers>,
    }
}
