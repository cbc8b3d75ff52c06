//! The IDL corpus thrift-build is tested on beyond Apache's own files: the `.thrift` files
//! that published packages of six other projects ship (Hive, Parquet, pilota, Jaeger,
//! Zipkin, thriftrw), which `scripts/fetch-idl-corpus.sh` fetches from crates.io and npm at
//! pinned versions. The repository keeps no copy of them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The projects of the corpus: the folder each has in it, and where its files come from.
pub const PROJECTS: &[(&str, &str)] = &[
    ("hive", "Apache Hive's metastore IDL, in the crate hive_metastore 0.2.0"),
    ("jaeger", "Jaeger's IDL, in the npm package jaeger-client 3.19.0"),
    ("parquet", "Apache Parquet's format IDL, in the crate parquet-format 4.0.0"),
    ("pilota", "CloudWeGo pilota's generator test IDLs, in the crate pilota-build 0.13.12"),
    ("thriftrw", "Uber thriftrw's test IDLs, in the npm package thriftrw 3.12.0"),
    ("zipkin", "OpenZipkin's zipkinCore.thrift, in the npm package zipkin-encoder-thrift 0.22.0"),
];

/// The folder the fetch script fills: `$THRIFT_IDL_CORPUS`, else
/// `~/.cache/thrift-rs/idl-corpus-v1`.
pub fn default_dir() -> PathBuf {
    match std::env::var_os("THRIFT_IDL_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => crate::apache_src::cache_dir().join("idl-corpus-v1"),
    }
}

/// The corpus folder, fetched by running `scripts/fetch-idl-corpus.sh` once if it is not
/// there yet.
///
/// # Errors
/// The script failed: the message says what to run.
pub fn corpus() -> Result<&'static PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = default_dir();
        if dir.join(".complete").is_file() {
            return Ok(dir);
        }
        let script = crate::python::workspace_root().join("scripts/fetch-idl-corpus.sh");
        let out = std::process::Command::new("bash")
            .arg(&script)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        if out.status.success() && dir.join(".complete").is_file() {
            Ok(dir)
        } else {
            Err(format!(
                "the IDL corpus is not at {} and {} failed ({}): {}; run it by hand (it needs cargo and npm \
                 and the registries), or point THRIFT_IDL_CORPUS at a fetched corpus",
                dir.display(),
                script.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Every `.thrift` file under `dir`, sorted.
pub fn thrift_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "thrift") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
