//! The IDL our derives and service macro export for the ThriftTest types and services has
//! the structure of Apache's `ThriftTest.thrift`: the same enums, structs, unions and
//! exceptions with the same field ids, types, names and requiredness, and the same methods.
//!
//! Defaults are not compared: Apache gives some optional fields defaults, and an `Option`
//! field of the derive has none (it is `None` when absent).

mod thrift_idl;

use std::path::PathBuf;

use thrift_idl::{differences, parse, Ty};

/// Apache's file, which the repository does not carry: `$THRIFT_TEST_IDL`, else
/// `test/ThriftTest.thrift` of Apache's source tree as `scripts/fetch-apache-src.sh` unpacks it.
fn reference_path() -> PathBuf {
    match std::env::var_os("THRIFT_TEST_IDL") {
        Some(path) => PathBuf::from(path),
        None => thrift_tests::apache_src::apache_file("test/ThriftTest.thrift"),
    }
}

fn reference() -> String {
    let path = reference_path();
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read Apache's ThriftTest.thrift at {} ({e})", path.display()))
}

#[test]
fn the_exported_idl_has_apaches_structure() {
    let apache = parse(&reference()).expect("Apache's file parses");
    let exported = parse(&thrift_conformance::idl()).expect("the exported IDL parses");
    let diff = differences(&apache, &exported);
    assert!(diff.is_empty(), "the exported IDL differs from Apache's ThriftTest.thrift:\n{}", diff.join("\n"));
    // The comparison covered everything in Apache's file.
    assert_eq!(apache.enums.len(), 1);
    assert_eq!(apache.structs.len(), 28, "{:?}", apache.structs.keys().collect::<Vec<_>>());
    assert_eq!(apache.services["ThriftTest"].len(), 22);
    assert_eq!(apache.services["SecondService"].len(), 1);
}

#[test]
fn typedefs_are_resolved_and_annotations_read_past() {
    let apache = parse(&reference()).unwrap();
    assert_eq!(apache.typedefs["UserId"], Ty::Name("i64".into()));
    let insanity = &apache.structs["Insanity"].1;
    assert_eq!(insanity[0].ty.to_string(), "map<Numberz,i64>");
    let crazy = &apache.structs["CrazyNesting"].1;
    assert_eq!(crazy[2].requiredness, "required");
    assert_eq!(crazy[2].ty.to_string(), "list<map<set<i32>,map<i32,set<list<map<Insanity,string>>>>>>");
    let (_, test_typedef) = apache.services["ThriftTest"].iter().find(|(n, _)| n == "testTypedef").unwrap();
    assert_eq!(test_typedef.returns, Ty::Name("i64".into()));
    assert_eq!(apache.enums["Numberz"].iter().map(|(_, v)| *v).collect::<Vec<_>>(), [1, 2, 3, 5, 6, 8]);
}

#[test]
fn a_changed_field_id_type_name_or_method_is_reported() {
    let apache = parse(&reference()).unwrap();
    // Without the doc comments the export carries, so the edits below match plain lines.
    let exported = without_doc_comments(&thrift_conformance::idl());
    for (from, to, expected) in [
        (
            "  11: i64 i64_thing\n}\n\nstruct Xtruct2",
            "  12: i64 i64_thing\n}\n\nstruct Xtruct2",
            "Xtruct: field `11: i64",
        ),
        ("1: i32 errorCode\n  2: string message", "1: i64 errorCode\n  2: string message", "Xception: field `1: i32"),
        ("2: list<Xtruct> xtructs", "2: list<Xtruct> trucks", "Insanity: field `2: list<Xtruct> xtructs`"),
        ("  oneway void testOneway", "  void testOneway", "ThriftTest.testOneway: returns oneway void"),
        ("throws (1: Xception err1)\n", "\n", "ThriftTest.testException throws: field `1: Xception err1` is missing"),
        ("union SomeUnion", "struct SomeUnion", "SomeUnion: a union, exported as a struct"),
        ("  SIX = 6\n", "  SIX = 7\n", "enum Numberz"),
    ] {
        assert!(exported.contains(from), "{from:?} is not in the exported IDL");
        let changed = parse(&exported.replacen(from, to, 1)).unwrap();
        let diff = differences(&apache, &changed);
        assert!(diff.iter().any(|d| d.starts_with(expected)), "{expected:?} not reported: {diff:#?}");
    }
}

/// `idl` without its `/** ... */` doc comments, each with the indentation before it and the
/// line break after it.
fn without_doc_comments(idl: &str) -> String {
    let mut out = String::new();
    let mut rest = idl;
    while let Some(start) = rest.find("/**") {
        let before = &rest[..start];
        out.push_str(before.trim_end_matches(' '));
        let end = rest[start..].find("*/").map_or(rest.len(), |i| start + i + 2);
        rest = rest[end..].strip_prefix('\n').unwrap_or(&rest[end..]);
    }
    out.push_str(rest);
    out
}

#[test]
fn doc_comments_are_exported_and_strip_cleanly() {
    let exported = thrift_conformance::idl();
    assert!(exported.contains("/**"), "the types' doc comments reach the IDL");
    let plain = without_doc_comments(&exported);
    assert!(!plain.contains("/**") && plain.contains("struct Xtruct2 {"), "{plain}");
}
