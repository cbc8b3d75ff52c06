//! Derived Rust mirrors of tests/idl/interop.thrift, with their JSON form for the Python
//! helper: what the interop tests exchange with Apache's generated code, by hand-picked
//! values (tests/tests/interop_derive.rs) and by generated ones (`ThriftArbitrary`,
//! tests/tests/interop_props.rs).

// Each type, field and variant is the IDL's namesake, documented there.
#![allow(missing_docs)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{json, Value};
use thrift_core::{ThriftArbitrary, ThriftEnum, ThriftStruct, ThriftUnion};

use crate::json::ToJson;

#[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[thrift(closed)]
pub enum Color {
    #[default]
    Red = 1,
    Green = 2,
    Blue = 3,
    Ultraviolet = -7,
}

impl ToJson for Color {
    fn to_json(&self) -> Value {
        (*self as i32).into()
    }
}

/// `Color` keeping values it does not know, as Apache's Python (whose enums are plain ints)
/// does.
#[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Eq)]
#[thrift(name = "Color")]
#[repr(i32)] // Rust requires a repr for explicit discriminants beside a data variant.
pub enum OpenColor {
    Red = 1,
    Green = 2,
    Blue = 3,
    Ultraviolet = -7,
    #[thrift(unknown)]
    Other(i32),
}

impl ToJson for OpenColor {
    fn to_json(&self) -> Value {
        match *self {
            OpenColor::Red => 1,
            OpenColor::Green => 2,
            OpenColor::Blue => 3,
            OpenColor::Ultraviolet => -7,
            OpenColor::Other(v) => v,
        }
        .into()
    }
}

/// `Containers` with only its list of colors, as open enums.
#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
#[thrift(name = "Containers")]
pub struct OpenColors {
    #[thrift(id = 17)]
    pub colors: Vec<OpenColor>,
}
crate::json_fields!(OpenColors { colors });

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
pub struct Primitives {
    #[thrift(id = 1)]
    pub flag: bool,
    #[thrift(id = 2)]
    pub tiny: i8,
    #[thrift(id = 3)]
    pub small: i16,
    #[thrift(id = 4)]
    pub medium: i32,
    #[thrift(id = 5)]
    pub large: i64,
    #[thrift(id = 6)]
    pub real: f64,
    #[thrift(id = 7)]
    pub text: String,
    #[thrift(id = 8)]
    pub blob: Vec<u8>,
}
crate::json_fields!(Primitives { flag, tiny, small, medium, large, real, text, blob });

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Point {
    #[thrift(id = 1)]
    pub x: i32,
    #[thrift(id = 2)]
    pub y: i32,
}
crate::json_fields!(Point { x, y });

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
pub struct Line {
    #[thrift(id = 1)]
    pub start: Point,
    #[thrift(id = 2)]
    pub end: Point,
    #[thrift(id = 3)]
    pub label: String,
}
crate::json_fields!(Line { start, end, label });

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
pub struct Containers {
    #[thrift(id = 1)]
    pub bools: Vec<bool>,
    #[thrift(id = 2)]
    pub tinies: Vec<i8>,
    #[thrift(id = 3)]
    pub smalls: Vec<i16>,
    #[thrift(id = 4)]
    pub mediums: Vec<i32>,
    #[thrift(id = 5)]
    pub larges: Vec<i64>,
    #[thrift(id = 6)]
    pub reals: Vec<f64>,
    #[thrift(id = 7)]
    pub texts: Vec<String>,
    #[thrift(id = 8)]
    pub blobs: Vec<Vec<u8>>,
    #[thrift(id = 9)]
    pub medium_set: BTreeSet<i32>,
    #[thrift(id = 10)]
    pub text_set: HashSet<String>,
    #[thrift(id = 11)]
    pub text_to_large: HashMap<String, i64>,
    #[thrift(id = 12)]
    pub medium_to_text: BTreeMap<i32, String>,
    #[thrift(id = 13)]
    pub points: Vec<Point>,
    #[thrift(id = 14)]
    pub named_points: BTreeMap<String, Point>,
    #[thrift(id = 15)]
    pub matrix: Vec<Vec<i32>>,
    #[thrift(id = 16)]
    pub multimap: BTreeMap<String, Vec<String>>,
    #[thrift(id = 17)]
    pub colors: Vec<Color>,
    #[thrift(id = 18)]
    pub lines_by_color: BTreeMap<Color, Line>,
    #[thrift(id = 19)]
    pub large_set: BTreeSet<i64>,
    #[thrift(id = 20)]
    pub large_to_real: BTreeMap<i64, f64>,
}
crate::json_fields!(Containers {
    bools,
    tinies,
    smalls,
    mediums,
    larges,
    reals,
    texts,
    blobs,
    medium_set,
    text_set,
    text_to_large,
    medium_to_text,
    points,
    named_points,
    matrix,
    multimap,
    colors,
    lines_by_color,
    large_set,
    large_to_real,
});

#[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(closed)]
pub enum Shape {
    #[thrift(id = 1, name = "radius")]
    Radius(f64),
    #[thrift(id = 2, name = "point")]
    Point(Point),
    #[thrift(id = 3, name = "label")]
    Label(String),
    #[thrift(id = 4, name = "line")]
    Line(Line),
}

impl Default for Shape {
    fn default() -> Self {
        Shape::Radius(0.0)
    }
}

impl ToJson for Shape {
    fn to_json(&self) -> Value {
        match self {
            Shape::Radius(v) => json!({ "radius": v.to_json() }),
            Shape::Point(v) => json!({ "point": v.to_json() }),
            Shape::Label(v) => json!({ "label": v.to_json() }),
            Shape::Line(v) => json!({ "line": v.to_json() }),
        }
    }
}

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
#[thrift(exception)]
pub struct Oops {
    #[thrift(id = 1)]
    pub message: String,
    #[thrift(id = 2)]
    pub code: i32,
}
crate::json_fields!(Oops { message, code });

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
pub struct Requiredness {
    #[thrift(id = 1, required)]
    pub name: String,
    #[thrift(id = 2)]
    pub maybe_medium: Option<i32>,
    #[thrift(id = 3)]
    pub maybe_text: Option<String>,
    #[thrift(id = 4, default = 7)]
    pub large_with_default: i64,
    #[thrift(id = 5)]
    pub plain: String,
    #[thrift(id = 6)]
    pub maybe_list: Option<Vec<i32>>,
    #[thrift(id = 7, default = Color::Green)]
    pub color: Color,
    #[thrift(id = 8)]
    pub maybe_point: Option<Point>,
}
crate::json_fields!(Requiredness { name, large_with_default, plain, color } optional { maybe_medium, maybe_text, maybe_list, maybe_point });

impl Default for Requiredness {
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

/// `Sparse` with its fields in ascending id order, the order in which Apache's generated
/// code (Python, C++, Java, Go, Rust, C#) writes fields whatever the IDL's declaration order.
#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
pub struct Sparse {
    #[thrift(id = 1)]
    pub first: bool,
    #[thrift(id = 5)]
    pub five: bool,
    #[thrift(id = 10)]
    pub ten: i32,
    #[thrift(id = 17)]
    pub after_gap: i64,
    #[thrift(id = 300)]
    pub far: String,
    #[thrift(id = 32767)]
    pub last: bool,
}
crate::json_fields!(Sparse { first, five, ten, after_gap, far, last });

/// `Sparse` declared in the IDL's order (ids 1, 17, 300, 32767, 10, 5). Apache writes
/// fields in ascending id order whatever the declaration order, and so does the derive: the
/// bytes are identical.
#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
#[thrift(name = "Sparse")]
pub struct SparseAsDeclared {
    #[thrift(id = 1)]
    pub first: bool,
    #[thrift(id = 17)]
    pub after_gap: i64,
    #[thrift(id = 300)]
    pub far: String,
    #[thrift(id = 32767)]
    pub last: bool,
    #[thrift(id = 10)]
    pub ten: i32,
    #[thrift(id = 5)]
    pub five: bool,
}
crate::json_fields!(SparseAsDeclared { first, after_gap, far, last, ten, five });

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
pub struct Node {
    #[thrift(id = 1)]
    pub value: i32,
    #[thrift(id = 2)]
    pub next: Option<Box<Node>>,
}
crate::json_fields!(Node { value } optional { next });

impl Node {
    pub fn chain(depth: i32) -> Node {
        (1..depth)
            .rev()
            .fold(Node { value: depth, next: None }, |next, value| Node { value, next: Some(Box::new(next)) })
    }
}

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
pub struct Everything {
    #[thrift(id = 1)]
    pub primitives: Primitives,
    #[thrift(id = 2)]
    pub containers: Containers,
    #[thrift(id = 3)]
    pub shape: Shape,
    #[thrift(id = 4)]
    pub oops: Oops,
    #[thrift(id = 5)]
    pub requiredness: Requiredness,
    #[thrift(id = 6)]
    pub color: Color,
    #[thrift(id = 7)]
    pub shapes: Vec<Shape>,
    #[thrift(id = 8)]
    pub chain: Option<Node>,
    #[thrift(id = 9)]
    pub nested_containers: BTreeMap<String, Containers>,
}
crate::json_fields!(Everything { primitives, containers, shape, oops, requiredness, color, shapes, nested_containers } optional { chain });
