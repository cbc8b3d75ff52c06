//! Generates every type and both services of Apache's `test/ThriftTest.thrift` with
//! thrift-build: the crate's types are Apache's IDL, not a port of it by hand.
//!
//! Apache's source tree comes from Debian's source package of `thrift`, fetched and cached
//! by `scripts/fetch-apache-src.sh` (which also honours `THRIFT_APACHE_SRC`); nothing of
//! Apache's is kept in the repository.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=THRIFT_APACHE_SRC");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let script = manifest.join("../scripts/fetch-apache-src.sh");
    let fetched = Command::new("bash").arg(&script).output();
    let dir = match fetched {
        Ok(out) if out.status.success() => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            PathBuf::from(stdout.lines().last().unwrap_or_default().trim())
        }
        Ok(out) => panic!(
            "Apache Thrift's source tree is needed for ThriftTest.thrift and {} failed ({}): {}\n\
             run it by hand, or point THRIFT_APACHE_SRC at an unpacked thrift-0.17 source tree",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!("cannot run {}: {e}", script.display()),
    };
    let idl = dir.join("test/ThriftTest.thrift");
    // Binary as `Bytes` (no copy out of the request); handlers may answer with a
    // TApplicationException, as `testException("TException")` must. Strings stay `String`
    // (not thrift-build's default `SharedStr`): the checks are written against `String`s.
    let generated = thrift_build::Config::new()
        .string_type("String")
        .binary_type(thrift_build::BinaryType::Bytes)
        .application_errors(true)
        .compile(&[&idl], &[idl.parent().expect("test/")]);
    if let Err(e) = generated {
        panic!("generating from {}:\n{e}", idl.display());
    }
}
