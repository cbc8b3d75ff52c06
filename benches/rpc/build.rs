//! Generates the peers' HelloService code from `idl/hello.thrift`: volo's with
//! `volo-build`, Apache's Rust code with the `thrift` compiler (Debian package
//! `thrift-compiler` 0.17; `scripts/install-test-deps.sh` installs it). Apache's Java code
//! is generated at run time by `rpc-compare`, only when a JDK is there to compile it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

const IDL: &str = "idl/hello.thrift";

fn main() {
    println!("cargo:rerun-if-changed={IDL}");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let idl = Path::new(env!("CARGO_MANIFEST_DIR")).join(IDL);

    volo_build::Builder::thrift()
        .add_service(&idl)
        .out_dir(&out)
        .filename(PathBuf::from("volo_gen.rs"))
        .write()
        .expect("volo-build generates HelloService from idl/hello.thrift");

    apache(&idl, &out);
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
            "Apache's Thrift compiler `thrift` is needed to build the RPC benchmarks ({e}); \
             install it with scripts/install-test-deps.sh (Debian package thrift-compiler 0.17)"
        ),
    }
    let generated = fs::read_to_string(dir.join("hello.rs")).expect("thrift wrote hello.rs");
    let body: String = generated.lines().filter(|l| !l.starts_with("#![")).flat_map(|l| [l, "\n"]).collect();
    fs::write(out.join("apache_hello.rs"), body).expect("write apache_hello.rs");
}
