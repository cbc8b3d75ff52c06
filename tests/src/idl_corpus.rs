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
        crate::apache_src::fetched_once(
            default_dir(),
            ".complete",
            "fetch-idl-corpus.sh",
            "the IDL corpus (fetched with cargo and npm)",
            "THRIFT_IDL_CORPUS at a fetched corpus",
        )
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
