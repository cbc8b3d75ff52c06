//! Apache Thrift 0.17's own source tree (its test IDLs, cross-test programs, keys and Java
//! library), which `scripts/fetch-apache-src.sh` unpacks from Debian's source package of
//! `thrift`. The repository keeps no copy of Apache's files.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The folder the fetch script unpacks into: `$THRIFT_APACHE_SRC`, else
/// `~/.cache/thrift-rs/thrift-0.17` (`$XDG_CACHE_HOME` in place of `~/.cache` when set).
pub fn default_dir() -> PathBuf {
    match std::env::var_os("THRIFT_APACHE_SRC") {
        Some(dir) => PathBuf::from(dir),
        None => cache_dir().join("thrift-0.17"),
    }
}

/// Where the fetch scripts cache what they fetch: `~/.cache/thrift-rs` (`$XDG_CACHE_HOME`
/// in place of `~/.cache` when set).
pub fn cache_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("thrift-rs")
}

/// Apache's source tree, fetched by running `scripts/fetch-apache-src.sh` once if it is not
/// there yet.
///
/// # Errors
/// The script failed, or left no `test/ThriftTest.thrift`: the message says what to run.
pub fn apache_source() -> Result<&'static PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        fetched_once(
            default_dir(),
            "test/ThriftTest.thrift",
            "fetch-apache-src.sh",
            "Apache Thrift's source",
            "THRIFT_APACHE_SRC at an unpacked thrift-0.17 source tree",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `dir` once `marker` is in it, running `scripts/{script}` first if it is not: the one
/// rule of every cache a fetch script fills. `what` and `instead` name it in the error.
pub(crate) fn fetched_once(
    dir: PathBuf,
    marker: &str,
    script: &str,
    what: &str,
    instead: &str,
) -> Result<PathBuf, String> {
    if dir.join(marker).exists() {
        return Ok(dir);
    }
    let script = crate::python::workspace_root().join("scripts").join(script);
    let out = std::process::Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if out.status.success() && dir.join(marker).exists() {
        Ok(dir)
    } else {
        Err(format!(
            "{what} is not at {} and {} failed ({}): {}; run it by hand, or point {instead}",
            dir.display(),
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A file of Apache's source tree, by its path inside it (`test/ThriftTest.thrift`).
///
/// # Panics
/// When the source tree cannot be had: the message says why and what to run.
pub fn apache_file(relative: &str) -> PathBuf {
    match apache_source() {
        Ok(dir) => dir.join(relative),
        Err(e) => panic!("{e}"),
    }
}
