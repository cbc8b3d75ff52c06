//! The derives' compile errors: each case in `tests/ui/` must fail to compile with exactly
//! the messages in its `.stderr`, whose spans point at the offending field or variant.
//!
//! The expected output is pinned to this machine's toolchain; regenerate it with
//! `TRYBUILD=overwrite cargo test -p thrift-tests --test ui` and review the diff.

#[test]
fn derive_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
}
