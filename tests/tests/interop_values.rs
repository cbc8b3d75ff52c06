//! Values of every Thrift type, exchanged with Apache Thrift's Python library (pure and
//! C-accelerated, binary and compact) in both directions, through thrift-core's struct
//! helpers wired by hand (no derive): see `thrift_tests::interop` for what each case checks.
//!
//! Needs Apache's compiler and Python library: `bash scripts/install-test-deps.sh`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use thrift_tests::interop::Interop;
use thrift_tests::model::{
    Color, Containers, Everything, Line, Node, Oops, Point, Primitives, Requiredness, Shape, Sparse,
};

/// One argument per field of `Primitives`, so that each case reads as one line.
#[allow(clippy::too_many_arguments)]
fn prims(flag: bool, tiny: i8, small: i16, medium: i32, large: i64, real: f64, text: &str, blob: &[u8]) -> Primitives {
    Primitives { flag, tiny, small, medium, large, real, text: text.into(), blob: blob.into() }
}

fn point(x: i32, y: i32) -> Point {
    Point { x, y }
}

#[test]
fn primitives() {
    let mut t = Interop::start();
    t.value("zeros and empties", "Primitives", &Primitives::default());
    t.value("ordinary", "Primitives", &prims(true, 7, 300, 70_000, 5_000_000_000, 2.5, "hello", b"\x01\x02\x03"));
    t.value("minimums", "Primitives", &prims(false, i8::MIN, i16::MIN, i32::MIN, i64::MIN, f64::MIN, "", b""));
    t.value("maximums", "Primitives", &prims(true, i8::MAX, i16::MAX, i32::MAX, i64::MAX, f64::MAX, "", b""));
    t.value("minus one", "Primitives", &prims(true, -1, -1, -1, -1, -1.0, "-", &[0xff]));
    t.value("small negatives", "Primitives", &prims(false, -64, -65, -8193, -(1 << 40), -0.5, "", b""));
    // The compact protocol's varints change length at 7-bit boundaries.
    t.value("varint boundaries", "Primitives", &prims(true, 63, 127, 128, 16_383, 0.0, "", b""));
    t.value("varint boundaries 2", "Primitives", &prims(true, 64, 128, 16_384, 2_097_152, 0.0, "", b""));
    t.value("varint boundaries 3", "Primitives", &prims(true, -65, -129, -16_385, 1 << 62, 0.0, "", b""));

    let doubles = [
        ("+infinity", f64::INFINITY),
        ("-infinity", f64::NEG_INFINITY),
        ("NaN", f64::NAN),
        ("negative NaN", -f64::NAN),
        ("NaN with payload", f64::from_bits(0x7ff0_0000_0000_0001)),
        ("quiet NaN with payload", f64::from_bits(0x7ff8_dead_beef_0042)),
        ("-0.0", -0.0),
        ("smallest subnormal", f64::from_bits(1)),
        ("MIN_POSITIVE", f64::MIN_POSITIVE),
        ("EPSILON", f64::EPSILON),
        ("pi", std::f64::consts::PI),
        ("1e300", 1e300),
        ("-1e-300", -1e-300),
    ];
    for (name, real) in doubles {
        t.value(&format!("double {name}"), "Primitives", &prims(false, 0, 0, 0, 0, real, "", b""));
    }

    let texts = [
        ("accents", "héllo wörld, ça va"),
        ("CJK", "漢字かなカナ한국어"),
        ("emoji and astral plane", "🦀 ∑ 𝄞 👩‍👩‍👧"),
        ("right to left", "مرحبا بالعالم שלום"),
        ("combining marks", "e\u{301}a\u{308}"),
        ("control characters and NUL", "a\0b\u{1}\n\t\r\u{7f}"),
        ("BOM and specials", "\u{feff}\u{fffd}\u{fffe}\u{10ffff}"),
        ("long text", &"Thrift ✓ ".repeat(10_000)),
    ];
    for (name, text) in texts {
        t.value(&format!("text {name}"), "Primitives", &prims(false, 0, 0, 0, 0, 0.0, text, b""));
    }

    let every_byte: Vec<u8> = (0..=255).collect();
    t.value("binary of every byte value", "Primitives", &prims(false, 0, 0, 0, 0, 0.0, "", &every_byte));
    t.value("binary that is not UTF-8", "Primitives", &prims(false, 0, 0, 0, 0, 0.0, "", &[0xc3, 0x28, 0xff, 0xfe]));
    let megabyte: Vec<u8> = (0..1 << 20).map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    t.value("1 MiB binary", "Primitives", &prims(true, 1, 2, 3, 4, 5.0, "big", &megabyte));
    t.finish("primitives");
}

#[test]
fn containers() {
    let mut t = Interop::start();
    t.value("all empty", "Containers", &Containers::default());

    let one = Containers {
        bools: vec![true],
        tinies: vec![-128],
        smalls: vec![i16::MAX],
        mediums: vec![i32::MIN],
        larges: vec![i64::MAX],
        reals: vec![f64::NAN],
        texts: vec!["ünïcödé".into()],
        blobs: vec![vec![0, 255]],
        medium_set: [42].into(),
        text_set: ["only".to_string()].into(),
        text_to_large: [("k".to_string(), -1)].into(),
        medium_to_text: [(-5, "minus five".to_string())].into(),
        points: vec![point(1, -1)],
        named_points: [("origin".to_string(), point(0, 0))].into(),
        matrix: vec![vec![1]],
        multimap: [("key".to_string(), vec!["a".to_string()])].into(),
        colors: vec![Color::Ultraviolet],
        lines_by_color: [(Color::Blue, Line { start: point(1, 2), end: point(3, 4), label: "l".into() })].into(),
        large_set: [i64::MIN].into(),
        large_to_real: [(0, f64::NEG_INFINITY)].into(),
    };
    t.value("one element each", "Containers", &one);

    // Empty inner containers, empty strings and binaries inside containers.
    let empties_inside = Containers {
        texts: vec![String::new(), String::new()],
        blobs: vec![Vec::new()],
        matrix: vec![vec![], vec![], vec![0], vec![]],
        multimap: [(String::new(), vec![]), ("x".to_string(), vec![String::new()])].into(),
        named_points: [(String::new(), Point::default())].into(),
        ..Containers::default()
    };
    t.value("empty things inside containers", "Containers", &empties_inside);

    // Maps keep their (sorted) order in both libraries, so the bytes must match; sets of
    // several elements are written in Python's hash order, so only their values are compared.
    let several = Containers {
        bools: vec![true, false, true, true, false],
        tinies: vec![i8::MIN, -1, 0, 1, i8::MAX],
        smalls: vec![i16::MIN, -300, 0, 300, i16::MAX],
        mediums: vec![i32::MIN, -70_000, 0, 70_000, i32::MAX],
        larges: vec![i64::MIN, -(1 << 40), 0, 1 << 40, i64::MAX],
        reals: vec![f64::NEG_INFINITY, -0.0, 0.0, 1.5, f64::INFINITY, f64::NAN],
        texts: vec!["a".into(), "β".into(), "𝄞".into()],
        blobs: vec![b"\x00".to_vec(), b"\xff\xfe".to_vec(), vec![]],
        // Sets of several elements come separately below.
        text_to_large: [("a", 1), ("b", -2), ("ζ", i64::MIN)].map(|(k, v)| (k.to_string(), v)).into(),
        medium_to_text: [(i32::MIN, "min"), (0, "zero"), (i32::MAX, "max")].map(|(k, v)| (k, v.to_string())).into(),
        points: vec![point(0, 0), point(i32::MIN, i32::MAX), point(-3, 4)],
        named_points: [("a", point(1, 2)), ("b", point(3, 4))].map(|(k, v)| (k.to_string(), v)).into(),
        matrix: vec![vec![1, 2, 3], vec![], vec![-4, -5]],
        multimap: [("x", vec!["1", "2"]), ("y", vec![])]
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .into(),
        colors: vec![Color::Red, Color::Green, Color::Blue, Color::Ultraviolet, Color::Red],
        lines_by_color: [
            (Color::Ultraviolet, Line::default()),
            (Color::Red, Line { start: point(1, 1), end: point(2, 2), label: "red".into() }),
        ]
        .into(),
        large_to_real: [(-1, f64::MIN_POSITIVE), (1, -f64::NAN)].into(),
        ..Containers::default()
    };
    t.value("several elements", "Containers", &several);
    let several_sets = Containers {
        medium_set: [i32::MIN, -1, 0, 1, i32::MAX].into(),
        text_set: ["apple", "Äpfel", "林檎", ""].map(String::from).into(),
        large_set: [i64::MIN, 0, i64::MAX].into(),
        ..Containers::default()
    };
    t.value("sets of several elements", "Containers", &several_sets);

    // The compact protocol writes a list's size in its header byte up to 14 elements, and as a
    // separate varint from 15.
    for n in [14, 15, 16, 127, 128] {
        let c = Containers {
            mediums: (0..n).collect(),
            bools: (0..n).map(|i| i % 3 == 0).collect(),
            text_to_large: (0..n).map(|i| (format!("k{i:03}"), i as i64)).collect(),
            ..Containers::default()
        };
        t.value(&format!("{n} elements"), "Containers", &c);
    }

    let n = 10_000;
    let big = Containers {
        bools: (0..n).map(|i| i % 2 == 0).collect(),
        tinies: (0..n).map(|i| i as i8).collect(),
        smalls: (0..n).map(|i| (i * 7) as i16).collect(),
        mediums: (0..n).map(|i: i32| i.wrapping_mul(1_000_003)).collect(),
        larges: (0..n).map(|i| (i as i64) * -922_337_203_685).collect(),
        reals: (0..n).map(|i| f64::from(i) / 7.0).collect(),
        texts: (0..n).map(|i| format!("element {i} ✓")).collect(),
        blobs: (0..n).map(|i| i.to_be_bytes().to_vec()).collect(),
        points: (0..n).map(|i| point(i, -i)).collect(),
        colors: (0..n).map(|i| [Color::Red, Color::Green, Color::Blue, Color::Ultraviolet][i as usize % 4]).collect(),
        text_to_large: (0..n).map(|i| (format!("{i:05}"), i as i64)).collect(),
        ..Containers::default()
    };
    t.value("10,000-element lists and map", "Containers", &big);

    let big_sets = Containers {
        medium_set: (0..n).map(|i| i * 31 - 5000).collect(),
        text_set: (0..n).map(|i| format!("s{i}")).collect(),
        large_set: (0..n).map(|i| (i as i64) << 40).collect(),
        ..Containers::default()
    };
    t.value("10,000-element sets", "Containers", &big_sets);
    t.finish("containers");
}

#[test]
fn structs_unions_exceptions_enums() {
    let mut t = Interop::start();
    t.value("point", "Point", &point(3, -4));
    t.value("nested structs", "Line", &Line { start: point(1, 2), end: point(-3, -4), label: "diagonal".into() });
    t.value("nested defaults", "Line", &Line::default());

    t.value("union double", "Shape", &Shape::Radius(1.25));
    t.value("union NaN", "Shape", &Shape::Radius(f64::NAN));
    t.value("union struct", "Shape", &Shape::Point(point(9, 9)));
    t.value("union string", "Shape", &Shape::Label("⬡ hexagon".into()));
    t.value("union empty string", "Shape", &Shape::Label(String::new()));
    t.value("union nested struct", "Shape", &Shape::Line(Line::default()));

    t.value("exception", "Oops", &Oops { message: "it broke: ☂".into(), code: -42 });
    t.value("exception with defaults", "Oops", &Oops::default());

    t.value("sparse ids, all false", "Sparse", &Sparse::default());
    t.value(
        "sparse ids",
        "Sparse",
        &Sparse { first: true, five: true, ten: -10, after_gap: 1 << 33, far: "far away".into(), last: true },
    );
    t.value(
        "sparse ids, mixed bools",
        "Sparse",
        &Sparse { first: false, five: true, last: false, ..Sparse::default() },
    );

    let required_only = Requiredness { name: "only required".into(), ..Requiredness::default() };
    t.value("optionals unset", "Requiredness", &required_only);
    let all_set = Requiredness {
        name: "all set".into(),
        maybe_medium: Some(i32::MIN),
        maybe_text: Some("maybe ☺".into()),
        large_with_default: -7,
        plain: "plain".into(),
        maybe_list: Some(vec![1, 2, 3]),
        color: Color::Ultraviolet,
        maybe_point: Some(point(5, 6)),
    };
    t.value("optionals set", "Requiredness", &all_set);
    let empty_optionals = Requiredness {
        name: String::new(),
        maybe_medium: Some(0),
        maybe_text: Some(String::new()),
        maybe_list: Some(vec![]),
        maybe_point: Some(Point::default()),
        ..Requiredness::default()
    };
    t.value("optionals set to empty values", "Requiredness", &empty_optionals);

    let everything = Everything {
        primitives: prims(true, -2, 3, -4, 5, -6.5, "seven", b"8"),
        containers: Containers {
            mediums: vec![1, 2],
            named_points: [("p".to_string(), point(1, 1))].into(),
            lines_by_color: [(Color::Green, Line::default())].into(),
            ..Containers::default()
        },
        shape: Shape::Line(Line { start: point(0, 1), end: point(2, 3), label: "l".into() }),
        oops: Oops { message: "m".into(), code: 1 },
        requiredness: all_set.clone(),
        color: Color::Blue,
        shapes: vec![Shape::Radius(f64::INFINITY), Shape::Label("x".into()), Shape::Point(point(-1, -1))],
        chain: Some(Node::chain(5)),
        nested_containers: [
            ("empty".to_string(), Containers::default()),
            ("full".to_string(), Containers { texts: vec!["t".into()], ..Containers::default() }),
        ]
        .into(),
    };
    t.value("everything", "Everything", &everything);
    t.value(
        "everything, minimal",
        "Everything",
        &Everything {
            primitives: Primitives::default(),
            containers: Containers::default(),
            shape: Shape::Radius(0.0),
            oops: Oops::default(),
            requiredness: Requiredness::default(),
            color: Color::Red,
            shapes: vec![],
            chain: None,
            nested_containers: BTreeMap::new(),
        },
    );
    t.finish("structs_unions_exceptions_enums");
}

#[test]
fn absent_fields_and_invalid_values_from_python() {
    let mut t = Interop::start();
    // Python leaves a field unset (None) by not writing it: plain fields then take their
    // defaults, the IDL's where it gives one.
    let bare = json!({"name": "n", "large_with_default": null, "color": null});
    for proto in thrift_tests::interop::VALUE_PROTOCOLS {
        let answer = t.call(json!({"op": "encode", "proto": proto.name, "type": "Requiredness", "value": bare}));
        let decoded = answer.and_then(|a| {
            let bytes = hex::decode(a["hex"].as_str().unwrap_or_default()).map_err(|e| e.to_string())?;
            match proto.wire {
                thrift_tests::interop::Wire::Binary => {
                    thrift_core::from_slice::<thrift_core::Binary, Requiredness>(&bytes)
                }
                thrift_tests::interop::Wire::Compact => {
                    thrift_core::from_slice::<thrift_core::Compact, Requiredness>(&bytes)
                }
                thrift_tests::interop::Wire::Json => thrift_core::json::from_slice::<Requiredness>(&bytes),
            }
            .map_err(|e| e.to_string())
        });
        let want = Requiredness { name: "n".into(), ..Requiredness::default() };
        match decoded {
            Ok(v) if v == want => t.passed("python→rust absent defaults", proto.name),
            Ok(v) => t.fail("absent defaults", proto.name, "decoded", format!("{v:?}, expected {want:?}")),
            Err(e) => t.fail("absent defaults", proto.name, "error", e),
        }
    }

    // Apache's Python writes what it is given without validating; we reject what our types
    // cannot hold.
    t.rejected::<Requiredness>(
        "required field unset",
        "Requiredness",
        &json!({"name": null, "plain": "p"}),
        "missing required field name (id 1)",
    );
    t.rejected::<Shape>("union with no field set", "Shape", &json!({}), "union Shape has 0 fields set");
    t.rejected::<Shape>(
        "union with two fields set",
        "Shape",
        &json!({"radius": "3ff0000000000000", "label": "two"}),
        "union Shape has 2 fields set",
    );
    t.rejected::<Everything>(
        "enum value not in the IDL",
        "Everything",
        &json!({"color": 99}),
        "unknown value 99 for enum Color",
    );
    t.finish("absent_fields_and_invalid_values_from_python");
}

/// Apache's default recursion limit (and ours) is 64 nested structs or containers.
#[test]
fn deep_nesting() {
    let mut t = Interop::start();
    for depth in [1, 2, 32, 63, 64] {
        t.value(&format!("chain of {depth}"), "Node", &Node::chain(depth));
    }
    // Everything is one level, its chain 63 more.
    let mut deep = Everything {
        primitives: Primitives::default(),
        containers: Containers::default(),
        shape: Shape::Radius(0.0),
        oops: Oops::default(),
        requiredness: Requiredness::default(),
        color: Color::Red,
        shapes: vec![],
        chain: Some(Node::chain(63)),
        nested_containers: BTreeMap::new(),
    };
    t.value("63-node chain inside a struct", "Everything", &deep);
    // Struct, map, struct, list, list: containers count as levels too.
    deep.chain = None;
    deep.nested_containers =
        [("m".to_string(), Containers { matrix: vec![vec![1, 2], vec![]], ..Default::default() })].into();
    t.value("lists in a struct in a map", "Everything", &deep);

    let mut chain = json!({"value": 65});
    for value in (1..65).rev() {
        chain = json!({"value": value, "next": chain});
    }
    t.rejected::<Node>("chain of 65", "Node", &chain, "nesting deeper than the depth limit 64");
    t.finish("deep_nesting");
}

/// Sets compare by value, not by bytes, once they have more than one element; this makes
/// sure such a case still checks something: Python really decodes our bytes.
#[test]
fn multi_element_sets_are_checked_by_value() {
    let mut t = Interop::start();
    let c = Containers { medium_set: BTreeSet::from([3, 1, 2]), ..Containers::default() };
    let ours = thrift_core::to_vec::<thrift_core::Compact, _>(&c);
    // Corrupt one set element: Python must then see another value.
    let mut wrong = c.clone();
    wrong.medium_set = BTreeSet::from([1, 2, 4]);
    let answer = t.call(json!({
        "op": "check", "proto": "compact", "type": "Containers",
        "hex": hex::encode(&ours), "expect": thrift_tests::json::ToJson::to_json(&wrong),
    }));
    match answer {
        Err(e) if e.contains("decoded value differs") => {}
        other => t.fail("corrupted set", "compact", "python's check", format!("{other:?}")),
    }
    t.value("three-element set", "Containers", &c);
    t.finish("multi_element_sets_are_checked_by_value");
}
