//! IDL → generated Rust → the IDL the derives and `#[service]` export → parsed again by
//! this crate: equal to the input, definition by definition (see
//! `thrift_tests::idl_structure` for what is compared and what is skipped).
//!
//! The fixture crate (`tests/generated`) holds the Rust generated from every test IDL of
//! Apache's compiler and exports, per file, `Idl::new().add::<T>()...` over its types and
//! services.

use std::path::PathBuf;

use thrift_build::diagnostics::Diagnostics;
use thrift_build::resolve;
use thrift_tests::idl_structure::{compare_file, Tally};

#[test]
fn generated_code_exports_the_idl_it_came_from() {
    let apache = thrift_tests::apache_src::apache_source().unwrap_or_else(|e| panic!("{e}"));
    let snapshots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let dirs = [apache.join("test"), apache.join("compiler/cpp/test/keyword-samples"), snapshots.clone()];
    let mut tally = Tally::default();
    let exported = thrift_build_generated::exported();
    assert!(exported.len() >= 44, "the fixture exports {} files", exported.len());
    for (name, text) in exported {
        let path: PathBuf =
            dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()).unwrap_or_else(|| panic!("{name} not found"));
        let mut diags = Diagnostics::new();
        let program =
            resolve::load_files(std::slice::from_ref(&path), &[dirs[0].clone(), snapshots.clone()], &mut diags);
        assert!(!diags.has_errors(), "{}", diags.render(&program.sources));
        compare_file(&mut tally, name, &program, &text);
    }
    println!("compared {} properties; skipped by category:", tally.compared);
    for (category, n) in &tally.skipped {
        println!("  {n:5} {category}");
    }
    assert!(tally.mismatches.is_empty(), "{} mismatches:\n{}", tally.mismatches.len(), tally.mismatches.join("\n"));
    assert!(tally.compared > 2000, "only {} properties compared", tally.compared);
}
