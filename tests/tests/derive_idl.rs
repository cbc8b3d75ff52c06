//! IDL export: derived types render as Thrift IDL, each definition after what it uses.

use std::collections::{BTreeMap, HashMap, HashSet};

use bytes::Bytes;
use thrift_core::{Idl, ThriftEnum, ThriftStruct, ThriftUnion, Uuid};

#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[thrift(closed)]
enum Color {
    #[default]
    Red = 1,
    Green = 2,
    #[thrift(name = "BLUE")]
    Blue = -3,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
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
    At(Point),
    #[thrift(id = 2)]
    Name(String),
    #[thrift(id = 3)]
    Corners(Vec<Point>),
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Tree {
    #[thrift(id = 1)]
    value: i32,
    #[thrift(id = 2)]
    children: Vec<Tree>,
    #[thrift(id = 3)]
    next: Option<Box<Tree>>,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception)]
struct NotFound {
    #[thrift(id = 1)]
    message: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Document")]
struct Doc<'a> {
    #[thrift(id = 1, required)]
    id: i64,
    #[thrift(id = 2)]
    title: &'a str,
    #[thrift(id = 3)]
    body: Bytes,
    /// Not a literal, but an enum value: rendered as the IDL spells it.
    #[thrift(id = 4, default = Color::Green)]
    color: Color,
    #[thrift(id = 5, default = 3)]
    retries: i32,
    #[thrift(id = 6, default = -1)]
    offset: i16,
    #[thrift(id = 7, default = "nobody")]
    owner: &'a str,
    #[thrift(id = 8)]
    shapes: Vec<Shape>,
    #[thrift(id = 9)]
    by_name: BTreeMap<String, Point>,
    #[thrift(id = 10)]
    tags: HashSet<String>,
    #[thrift(id = 11)]
    tree: Option<Box<Tree>>,
    #[thrift(id = 12)]
    signed_bytes: Vec<i8>,
    // `uuid` is a keyword of Apache's IDL (0.19 on): the field needs another IDL name.
    #[thrift(id = 13, name = "id_uuid")]
    uuid: Uuid,
    #[thrift(id = 14)]
    r#type: String,
    #[thrift(id = 15, name = "ratioValue")]
    ratio: f64,
    #[thrift(id = 16)]
    flag: Option<bool>,
    #[thrift(id = 17)]
    error: Option<NotFound>,
}

const COLOR: &str = "enum Color {\n  Red = 1\n  Green = 2\n  BLUE = -3\n}\n";
const POINT: &str = "struct Point {\n  1: i32 x\n  2: i32 y\n}\n";
const SHAPE: &str = "union Shape {\n  1: Point At\n  2: string Name\n  3: list<Point> Corners\n}\n";
const TREE: &str = "struct Tree {\n  1: i32 value\n  2: list<Tree> children\n  3: optional Tree next\n}\n";
const NOT_FOUND: &str = "exception NotFound {\n  1: string message\n}\n";

#[test]
fn small_types_render_exactly() {
    assert_eq!(Idl::new().add::<Color>().render(), COLOR);
    assert_eq!(Idl::new().add::<Point>().render(), POINT);
    assert_eq!(Idl::new().add::<NotFound>().render(), NOT_FOUND);
}

#[test]
fn dependencies_come_first() {
    assert_eq!(Idl::new().add::<Shape>().render(), [POINT, SHAPE].join("\n"));
}

#[test]
fn a_recursive_type_is_defined_once() {
    assert_eq!(Idl::new().add::<Tree>().render(), TREE);
}

#[test]
fn a_rich_struct_renders_in_dependency_order() {
    let document = "struct Document {
  1: required i64 id
  2: string title
  3: binary body
  /**
   * Not a literal, but an enum value: rendered as the IDL spells it.
   */
  4: Color color = Color.Green
  5: i32 retries = 3
  6: i16 offset = -1
  7: string owner = \"nobody\"
  8: list<Shape> shapes
  9: map<string, Point> by_name
  10: set<string> tags
  11: optional Tree tree
  12: list<i8> signed_bytes
  13: uuid id_uuid
  14: string type
  15: double ratioValue
  16: optional bool flag
  17: optional NotFound error
}
";
    let expected = [COLOR, POINT, SHAPE, TREE, NOT_FOUND, document].join("\n");
    assert_eq!(Idl::new().add::<Doc<'_>>().render(), expected);
    // Adding a type again, or one already pulled in, adds nothing.
    assert_eq!(Idl::new().add::<Doc<'_>>().add::<Point>().add::<Doc<'_>>().render(), expected);
    // Adding a dependency first moves it, and what it needs, to the front.
    let tree_first = [TREE, COLOR, POINT, SHAPE, NOT_FOUND, document].join("\n");
    assert_eq!(Idl::new().add::<Tree>().add::<Doc<'_>>().render(), tree_first);
}

#[test]
fn field_types_are_spelled_as_in_idl() {
    let mut idl = Idl::new();
    assert_eq!(idl.type_name::<HashMap<String, Vec<Point>>>(), "map<string, list<Point>>");
    assert_eq!(idl.type_name::<Vec<u8>>(), "binary");
    assert_eq!(idl.type_name::<Box<Tree>>(), "Tree");
    assert_eq!(idl.render(), [POINT, TREE].join("\n"));
}

mod elsewhere {
    /// Another type named `Color` in IDL.
    #[derive(thrift_core::ThriftEnum, Debug, Clone, Copy, PartialEq)]
    #[thrift(closed, name = "Color")]
    pub enum Hue {
        Red = 1,
        Teal = 4,
    }
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Palette {
    #[thrift(id = 1)]
    color: Option<Color>,
    #[thrift(id = 2)]
    hue: Option<elsewhere::Hue>,
    #[thrift(id = 3)]
    hues: Vec<elsewhere::Hue>,
}

/// Two Rust types with one IDL name: not one silently dropped, but both kept and the
/// clash reported once.
#[test]
fn two_types_with_one_idl_name_are_a_conflict() {
    let mut idl = Idl::new();
    idl.add::<Palette>();
    assert_eq!(idl.conflicts().len(), 1, "{:?}", idl.conflicts());
    let conflict = &idl.conflicts()[0];
    assert!(
        conflict.starts_with("`Color` is defined by both derive_idl::Color and derive_idl::elsewhere::Hue"),
        "{conflict}"
    );
    let text = idl.render();
    assert!(text.contains("  BLUE = -3\n") && text.contains("  Teal = 4\n"), "{text}");
    // A type added again, or reached again through another field, is no conflict.
    let mut idl = Idl::new();
    idl.add::<Doc<'_>>().add::<Color>().add::<Tree>();
    assert!(idl.conflicts().is_empty(), "{:?}", idl.conflicts());
}
