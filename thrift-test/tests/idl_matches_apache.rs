//! The round trip of the dogfooded crate: Apache's `ThriftTest.thrift` → the Rust thrift-build
//! generated from it → the IDL our derives and service macro export from that Rust has the
//! structure of Apache's file (the same definitions, field ids, names, types, requiredness
//! and methods), compared by `thrift_tests::idl_structure` on both files as thrift-build
//! parses and resolves them.

use thrift_build::diagnostics::Diagnostics;
use thrift_build::resolve::{self, Program};
use thrift_tests::idl_structure::{compare_file, Tally};

fn apache() -> Program {
    let path = thrift_tests::apache_src::apache_file("test/ThriftTest.thrift");
    let mut diags = Diagnostics::new();
    let program = resolve::load_files(std::slice::from_ref(&path), &[], &mut diags);
    assert!(!diags.has_errors(), "{}", diags.render(&program.sources));
    program
}

fn compared(exported: &str) -> Tally {
    let mut tally = Tally::default();
    compare_file(&mut tally, "ThriftTest.thrift", &apache(), exported);
    tally
}

#[test]
fn the_exported_idl_has_apaches_structure() {
    let tally = compared(&thrift_conformance::idl());
    assert!(tally.mismatches.is_empty(), "{} differences:\n{}", tally.mismatches.len(), tally.mismatches.join("\n"));
    // Every definition was looked at: 1 enum, 28 structs, 2 services, their fields and methods.
    assert!(tally.compared > 250, "only {} properties compared", tally.compared);
}

#[test]
fn a_changed_field_id_type_name_or_method_is_reported() {
    let exported = thrift_conformance::idl();
    for (from, to, expected) in [
        (
            "  11: i64 i64_thing\n}\n\nstruct Xtruct2",
            "  12: i64 i64_thing\n}\n\nstruct Xtruct2",
            "Xtruct.i64_thing: id 11",
        ),
        (
            "1: i32 errorCode\n  2: string message",
            "1: i64 errorCode\n  2: string message",
            "Xception.errorCode: type i32",
        ),
        ("2: list<Xtruct> xtructs", "2: list<Xtruct> trucks", "Insanity: field 2 is `xtructs`"),
        ("  oneway void testOneway", "  void testOneway", "ThriftTest.thrift: ThriftTest.testOneway"),
        ("union SomeUnion", "struct SomeUnion", "ThriftTest.thrift: SomeUnion is a Union"),
        ("  SIX = 6\n", "  SIX = 7\n", "ThriftTest.thrift: enum Numberz values"),
    ] {
        assert!(exported.contains(from), "{from:?} is not in the exported IDL:\n{exported}");
        let tally = compared(&exported.replacen(from, to, 1));
        assert!(
            tally.mismatches.iter().any(|d| d.starts_with(expected)),
            "{expected:?} not reported: {:#?}",
            tally.mismatches
        );
    }
}

#[test]
fn doc_comments_reach_the_exported_idl() {
    let exported = thrift_conformance::idl();
    assert!(exported.contains("/**"), "the doc comments Apache's file carries reach the IDL:\n{exported}");
}
