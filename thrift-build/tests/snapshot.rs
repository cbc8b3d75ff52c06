//! The generated code of `tests/snapshots/showcase.thrift` (one of everything), against
//! the files beside it. `THRIFT_BUILD_UPDATE_SNAPSHOTS=1 cargo test -p thrift-build --test
//! snapshot` rewrites them; the fixture crate compiles the same code with warnings denied.

use std::path::PathBuf;

use thrift_build::Config;

#[test]
fn showcase() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let generated = Config::new()
        .out_dir(std::env::temp_dir())
        .generate(&[dir.join("showcase.thrift")], &[&dir])
        .unwrap_or_else(|e| panic!("{e}"));
    let update = std::env::var_os("THRIFT_BUILD_UPDATE_SNAPSHOTS").is_some();
    let mut stale = Vec::new();
    for file in &generated.files {
        let expected_path = dir.join(format!("{}.snap", file.path.display()));
        if update {
            std::fs::write(&expected_path, &file.contents).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != file.contents {
            stale.push(format!(
                "--- {} (expected)\n{expected}\n--- generated\n{}",
                expected_path.display(),
                file.contents
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "the generated code changed; if that is intended, run with THRIFT_BUILD_UPDATE_SNAPSHOTS=1\n{}",
        stale.join("\n")
    );
    // Every warning the showcase gives is one it means to give.
    assert!(generated.warnings.is_empty(), "{}", generated.warnings.join("\n"));
}
