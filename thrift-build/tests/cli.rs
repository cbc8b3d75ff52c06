//! The `thrift-build` command line: writes a module directory, or fails with the
//! diagnostics and a non-zero exit code.

use std::path::PathBuf;
use std::process::Command;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("thrift-build-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn writes_a_module_per_file_and_a_mod_rs() {
    let snapshots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let out = temp_dir("ok");
    let status = Command::new(env!("CARGO_BIN_EXE_thrift-build"))
        .arg(snapshots.join("showcase.thrift"))
        .arg("-I")
        .arg(&snapshots)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    // What the snapshot test pins, written by the binary.
    for file in ["mod.rs", "showcase.rs", "shared.rs"] {
        let written = std::fs::read_to_string(out.join(file)).unwrap();
        let expected = std::fs::read_to_string(snapshots.join(format!("{file}.snap"))).unwrap();
        assert!(written == expected, "{file} differs from its snapshot");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn fails_with_the_diagnostics() {
    let dir = temp_dir("bad");
    std::fs::write(dir.join("bad.thrift"), "include \"gone.thrift\"\nstruct A {\n  1: Missing m\n}\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_thrift-build"))
        .arg(dir.join("bad.thrift"))
        .arg("-o")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("warning: include not found: `gone.thrift`"), "{stderr}");
    assert!(stderr.contains("bad.thrift:3:6"), "{stderr}");
    assert!(stderr.contains("thrift-build found 1 error"), "{stderr}");
    assert!(!dir.join("out").exists(), "nothing is written when there are errors");
    std::fs::remove_dir_all(&dir).unwrap();
}
