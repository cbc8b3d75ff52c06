//! Compile-fail tests of the `#[service]` macro: each mistake is reported at its cause.

#[test]
fn service_macro_mistakes() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
