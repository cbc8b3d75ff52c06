//! Generates the peers' Rust code for the benchmark shapes from `idl/shapes.thrift`:
//! pilota's with `pilota-build`, Apache's with the `thrift` compiler (Debian package
//! `thrift-compiler` 0.17; `scripts/install-test-deps.sh` installs it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

const IDL: &str = "idl/shapes.thrift";

fn main() {
    println!("cargo:rerun-if-changed={IDL}");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let idl = Path::new(env!("CARGO_MANIFEST_DIR")).join(IDL);

    pilota_build::Builder::thrift().ignore_unused(false).compile_with_config(
        vec![pilota_build::IdlService::from_path(idl.clone())],
        pilota_build::Output::File(out.join("pilota_shapes.rs")),
    );

    apache(&idl, &out);

    // The compiler that built the benchmarks, for the summary's machine line.
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc).arg("--version").output().ok().and_then(|o| String::from_utf8(o.stdout).ok());
    println!("cargo:rustc-env=BENCH_RUSTC_VERSION={}", version.as_deref().unwrap_or("rustc (unknown version)").trim());
}

/// Runs Apache's compiler, then drops the inner attributes of its output so that the file
/// can be `include!`d inside a module (the module carries equivalent `allow`s).
fn apache(idl: &Path, out: &Path) {
    let dir = out.join("apache");
    fs::create_dir_all(&dir).expect("create OUT_DIR/apache");
    let status = Command::new("thrift").args(["--gen", "rs", "-out"]).arg(&dir).arg(idl).status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("`thrift --gen rs` failed ({s}) on {}", idl.display()),
        Err(e) => panic!(
            "Apache's Thrift compiler `thrift` is needed to build the benchmarks ({e}); \
             install it with scripts/install-test-deps.sh (Debian package thrift-compiler 0.17)"
        ),
    }
    let generated = fs::read_to_string(dir.join("shapes.rs")).expect("thrift wrote shapes.rs");
    let body: String = generated.lines().filter(|l| !l.starts_with("#![")).flat_map(|l| [l, "\n"]).collect();
    fs::write(out.join("apache_shapes.rs"), body).expect("write apache_shapes.rs");
}
