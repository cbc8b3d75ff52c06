// Every Thrift type the interop tests exchange with Apache's Python library
// (tests/python/interop.py, driven by tests/src/interop.rs).
//
// Its Rust mirrors are tests/src/model.rs (encoded by hand over thrift-core) and the derived
// types in tests/tests/interop_derive.rs; field ids, names and types must match exactly.
// `uuid` is absent: Apache's compiler 0.17 rejects it ("Type "uuid" not defined") and its
// Python library has no UUID type.

namespace py interop_types

enum Color {
  RED = 1,
  GREEN = 2,
  BLUE = 3,
  // Negative values are legal and travel as negative i32s (zigzag in compact).
  ULTRAVIOLET = -7,
}

struct Primitives {
  1: bool flag
  2: i8 tiny
  3: i16 small
  4: i32 medium
  5: i64 large
  6: double real
  7: string text
  8: binary blob
}

struct Point {
  1: i32 x
  2: i32 y
}

struct Line {
  1: Point start
  2: Point end
  3: string label
}

struct Containers {
  1: list<bool> bools
  2: list<i8> tinies
  3: list<i16> smalls
  4: list<i32> mediums
  5: list<i64> larges
  6: list<double> reals
  7: list<string> texts
  8: list<binary> blobs
  9: set<i32> medium_set
  10: set<string> text_set
  11: map<string, i64> text_to_large
  12: map<i32, string> medium_to_text
  13: list<Point> points
  14: map<string, Point> named_points
  15: list<list<i32>> matrix
  16: map<string, list<string>> multimap
  17: list<Color> colors
  18: map<Color, Line> lines_by_color
  19: set<i64> large_set
  20: map<i64, double> large_to_real
}

union Shape {
  1: double radius
  2: Point point
  3: string label
  4: Line line
}

exception Oops {
  1: string message
  2: i32 code
}

struct Requiredness {
  1: required string name
  2: optional i32 maybe_medium
  3: optional string maybe_text
  4: i64 large_with_default = 7
  5: string plain
  6: optional list<i32> maybe_list
  7: Color color = Color.GREEN
  8: optional Point maybe_point
}

// Field ids far apart and out of order: compact writes a long-form field header when the
// id does not follow the previous one by 1 to 15, and folds a bool into either form.
struct Sparse {
  1: bool first
  17: i64 after_gap
  300: string far
  32767: bool last
  10: i32 ten
  5: bool five
}

// A linked chain, to nest structs as deep as the decoders allow.
struct Node {
  1: i32 value
  2: optional Node next
}

struct Everything {
  1: Primitives primitives
  2: Containers containers
  3: Shape shape
  4: Oops oops
  5: Requiredness requiredness
  6: Color color
  7: list<Shape> shapes
  8: optional Node chain
  9: map<string, Containers> nested_containers
}

// Real argument and result structs for the message-envelope tests.
service Echo {
  Primitives echo(1: Primitives input, 2: i32 times) throws (1: Oops oops)
  oneway void notify(1: string text)
}
