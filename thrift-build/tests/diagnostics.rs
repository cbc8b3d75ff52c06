//! One test per kind of mistake: the message, `file:line:col`, the source line and the
//! caret under the mistake, as rendered.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use thrift_build::diagnostics::Diagnostics;
use thrift_build::resolve;

/// Resolves `main.thrift` among `files` (in memory) and renders the diagnostics.
fn render(files: &[(&str, &str)]) -> (Vec<String>, String) {
    let map: HashMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), (*t).to_owned())).collect();
    let mut read =
        |p: &Path| map.get(p).cloned().ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"));
    let mut diags = Diagnostics::new();
    let program = resolve::load_with(&[PathBuf::from("main.thrift")], &[], &mut read, &mut diags);
    let errors = diags.errors().map(|d| d.message.clone()).collect();
    (errors, diags.render(&program.sources))
}

/// Asserts the rendering holds `message`, the location, the source line and a caret
/// line starting under column `col`.
fn assert_points(rendered: &str, message: &str, location: &str, source_line: &str, col: usize) {
    assert!(rendered.contains(&format!("error: {message}")), "no `{message}` in:\n{rendered}");
    assert!(rendered.contains(&format!("--> {location}")), "no `{location}` in:\n{rendered}");
    let lines: Vec<&str> = rendered.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with(source_line))
        .unwrap_or_else(|| panic!("no `{source_line}` in:\n{rendered}"));
    // `12 | text`: the caret line below has `^` under the column.
    let gutter = lines[at].find(source_line).unwrap();
    let caret = lines[at + 1];
    let first = caret.find('^').unwrap_or_else(|| panic!("no caret under `{source_line}`:\n{rendered}"));
    assert_eq!(first - gutter + 1, col, "caret at the wrong column:\n{rendered}");
}

#[test]
fn syntax_error() {
    let (errors, text) = render(&[("main.thrift", "struct A {\n  1: i32 = 5\n}\n")]);
    assert_eq!(errors.len(), 1, "{text}");
    assert_points(&text, "expected a field name, found `=`", "main.thrift:2:10", "  1: i32 = 5", 10);
}

#[test]
fn several_syntax_errors_in_one_run() {
    let (errors, text) =
        render(&[("main.thrift", "struct A { 1 i32 a }\nenum B { X = }\nstruct C { 1: list<i32 c }\n")]);
    assert_eq!(errors.len(), 3, "{text}");
    assert_points(&text, "expected a type, found integer `1`", "main.thrift:1:12", "struct A { 1 i32 a }", 12);
    assert_points(&text, "expected an integer, found `}`", "main.thrift:2:14", "enum B { X = }", 14);
    assert_points(&text, "expected `>`, found `c`", "main.thrift:3:24", "struct C { 1: list<i32 c }", 24);
}

#[test]
fn unknown_type() {
    let (errors, text) = render(&[("main.thrift", "struct A {\n  1: Missing m\n}\n")]);
    assert_eq!(errors, ["unknown type `Missing`"], "{text}");
    assert_points(&text, "unknown type `Missing`", "main.thrift:2:6", "  1: Missing m", 6);
}

#[test]
fn unknown_type_from_a_file_not_included() {
    let (_, text) = render(&[("main.thrift", "struct A {\n  1: shared.Thing t\n}\n")]);
    assert_points(&text, "unknown type `shared.Thing`", "main.thrift:2:6", "  1: shared.Thing t", 6);
    assert!(text.contains("`shared` is not an included file"), "{text}");
}

#[test]
fn duplicate_field_id() {
    let (errors, text) = render(&[("main.thrift", "struct A {\n  1: i32 a\n  1: i32 b\n}\n")]);
    assert_eq!(errors, ["duplicate field id 1 in `A`"], "{text}");
    assert_points(&text, "duplicate field id 1 in `A`", "main.thrift:3:3", "  1: i32 b", 3);
    assert!(text.contains("first used here"), "{text}");
}

#[test]
fn duplicate_field_name() {
    let (errors, text) = render(&[("main.thrift", "struct A {\n  1: i32 a\n  2: string a\n}\n")]);
    assert_eq!(errors, ["duplicate field name `a` in `A`"], "{text}");
    assert_points(&text, "duplicate field name `a` in `A`", "main.thrift:3:13", "  2: string a", 13);
}

/// A warning, as Apache's compiler gives: what needs the missing file is the error.
#[test]
fn include_not_found() {
    let (errors, text) = render(&[("main.thrift", "include \"nowhere.thrift\"\n")]);
    assert!(errors.is_empty(), "{text}");
    assert!(text.contains("warning: include not found: `nowhere.thrift`"), "{text}");
    assert!(text.contains("--> main.thrift:1:1"), "{text}");
    assert!(text.contains("-I dir"), "{text}");

    let (errors, text) =
        render(&[("main.thrift", "include \"nowhere.thrift\"\nstruct A {\n  1: nowhere.Thing thing\n}\n")]);
    assert_eq!(errors, ["unknown type `nowhere.Thing`"], "{text}");
    assert!(text.contains("warning: include not found: `nowhere.thrift`"), "{text}");
}

#[test]
fn include_cycle() {
    let (errors, text) = render(&[
        ("main.thrift", "include \"a.thrift\"\n"),
        ("a.thrift", "include \"b.thrift\"\n"),
        ("b.thrift", "include \"main.thrift\"\n"),
    ]);
    assert_eq!(
        errors,
        ["include cycle: main.thrift includes a.thrift includes b.thrift includes main.thrift"],
        "{text}"
    );
    assert_points(&text, "include cycle", "b.thrift:1:1", "include \"main.thrift\"", 1);
}

#[test]
fn const_of_the_wrong_type() {
    let (errors, text) = render(&[("main.thrift", "const i32 N = \"five\"\nconst i8 SMALL = 1000\n")]);
    assert_eq!(errors.len(), 2, "{text}");
    assert_points(
        &text,
        "mismatched constant: expected i32, found a string",
        "main.thrift:1:15",
        "const i32 N = \"five\"",
        15,
    );
    assert_points(
        &text,
        "mismatched constant: integer 1000 does not fit in an i8 (-128 to 127)",
        "main.thrift:2:18",
        "const i8 SMALL = 1000",
        18,
    );
    assert!(text.contains("type declared here"), "{text}");
}

#[test]
fn enum_value_out_of_i32() {
    let (errors, text) = render(&[("main.thrift", "enum E {\n  A = 2147483648\n}\n")]);
    assert_eq!(errors, ["enum value 2147483648 is out of range for an i32"], "{text}");
    assert_points(&text, "enum value 2147483648 is out of range for an i32", "main.thrift:2:7", "  A = 2147483648", 7);
}

#[test]
fn enum_value_overflow_by_counting() {
    let (errors, text) = render(&[("main.thrift", "enum E {\n  A = 2147483647\n  B\n}\n")]);
    assert_eq!(errors, ["enum value overflow: `B` would be 2147483648"], "{text}");
    assert_points(&text, "enum value overflow", "main.thrift:3:3", "  B", 3);
}

#[test]
fn const_used_before_its_definition() {
    let (errors, text) = render(&[("main.thrift", "const i32 A = B\nconst i32 B = 1\n")]);
    assert_eq!(errors, ["constant `B` is used before its definition"], "{text}");
    assert_points(&text, "constant `B` is used before its definition", "main.thrift:1:15", "const i32 A = B", 15);
}

#[test]
fn throws_a_struct() {
    let (errors, text) = render(&[("main.thrift", "struct S {}\nservice X {\n  void f() throws (1: S s)\n}\n")]);
    assert_eq!(errors, ["`f` throws a type that is not an exception"], "{text}");
    assert_points(
        &text,
        "`f` throws a type that is not an exception",
        "main.thrift:3:23",
        "  void f() throws (1: S s)",
        23,
    );
}

#[test]
fn errors_in_an_included_file_point_into_it() {
    let (errors, text) = render(&[
        ("main.thrift", "include \"shared.thrift\"\nstruct A { 1: shared.S s }\n"),
        ("shared.thrift", "struct S {\n  1: Nope n\n}\n"),
    ]);
    assert_eq!(errors, ["unknown type `Nope`"], "{text}");
    assert_points(&text, "unknown type `Nope`", "shared.thrift:2:6", "  1: Nope n", 6);
}
