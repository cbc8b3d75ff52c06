//! Running Apache Thrift's own tools from tests: its compiler, and Python scripts that use its
//! Python library on code the compiler generated.
//!
//! Missing tools are errors that name what is missing and how to install it; the tests turn
//! them into failures, never into skips.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// What to tell someone whose machine lacks a tool.
const INSTALL_HINT: &str =
    "run `bash scripts/install-test-deps.sh` (it installs Debian's thrift-compiler and python3-thrift)";

/// How long one request to a helper may take before the test gives up on it; the largest
/// cases (a megabyte of binary in pure-Python protocols) take well under a second.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// The external tools the interop tests run.
#[derive(Clone, Debug)]
pub struct Tools {
    /// Apache's Thrift compiler.
    pub thrift: PathBuf,
    /// What `thrift --version` printed.
    pub thrift_version: String,
    /// A Python interpreter that imports Apache's `thrift` library with its C extension.
    pub python: PathBuf,
}

/// The repository's root directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the tests crate sits in the workspace root").to_path_buf()
}

/// Locates Apache's compiler and a Python with Apache's library, once per process.
///
/// The compiler is `$THRIFT` or `thrift` on the `PATH`. The interpreter is
/// `$THRIFT_TEST_PYTHON`, else the first of `/usr/bin/python3` (where Debian's
/// `python3-thrift`, the same release as Debian's compiler, lives) and `python3` that can
/// import `thrift.protocol.fastbinary`.
pub fn tools() -> Result<&'static Tools, String> {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    TOOLS.get_or_init(find_tools).as_ref().map_err(Clone::clone)
}

fn find_tools() -> Result<Tools, String> {
    let thrift = PathBuf::from(std::env::var_os("THRIFT").unwrap_or_else(|| "thrift".into()));
    let thrift_version = match Command::new(&thrift).arg("--version").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        Ok(out) => {
            return Err(format!(
                "Apache Thrift compiler `{}` failed to run ({}): {}; {INSTALL_HINT}",
                thrift.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
        Err(e) => {
            return Err(format!(
                "Apache Thrift compiler `{}` not found ({e}): package thrift-compiler is missing; {INSTALL_HINT}",
                thrift.display()
            ))
        }
    };

    let candidates: Vec<PathBuf> = match std::env::var_os("THRIFT_TEST_PYTHON") {
        Some(p) => vec![p.into()],
        None => vec!["/usr/bin/python3".into(), "python3".into()],
    };
    let mut tried = Vec::new();
    for python in candidates {
        let probe = Command::new(&python)
            .args(["-c", "import thrift.protocol.fastbinary"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        match probe {
            Ok(out) if out.status.success() => return Ok(Tools { thrift, thrift_version, python }),
            Ok(out) => {
                let err = String::from_utf8_lossy(&out.stderr);
                let last = err.trim().lines().last().unwrap_or("").to_owned();
                tried.push(format!("{}: {last}", python.display()));
            }
            Err(e) => tried.push(format!("{}: {e}", python.display())),
        }
    }
    Err(format!(
        "no Python can import Apache Thrift's library with its C extension (module `thrift.protocol.fastbinary`; \
         package python3-thrift is missing); tried {}; {INSTALL_HINT}",
        tried.join("; ")
    ))
}

/// A directory of generated code, removed when dropped.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A new, empty directory under the system's temporary directory, unique to this process
    /// and call.
    pub fn new(tag: &str) -> Result<TempDir, String> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("thrift-rs-{tag}-{}-{n}", std::process::id()));
        // A leftover from a killed run with the same pid would hold stale code.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(TempDir { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Runs `thrift --gen py -out <out> <idl>`: the Python modules land under `out`, named by the
/// IDL's `namespace py` (or, without one, by its file name). A warning from the compiler is
/// an error too: the IDL these tests feed it, hand-written or exported, must be clean.
pub fn generate_python(idl: &Path, out: &Path) -> Result<(), String> {
    let tools = tools()?;
    let output = Command::new(&tools.thrift)
        .arg("--gen")
        .arg("py")
        .arg("-out")
        .arg(out)
        .arg(idl)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tools.thrift.display()))?;
    if !output.status.success() {
        return Err(format!(
            "`thrift --gen py {}` failed ({}):\n{}{}",
            idl.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    // Some warnings are advice, not faults: `list<byte>` (a Rust `Vec<i8>`) is a different
    // type on the wire from `binary`, so the schema must keep it; and namespaces for other
    // generators (Apache's ThriftTest.thrift declares `namespace noexist` on purpose) do not
    // touch the Python code.
    let warnings: Vec<&str> = said
        .lines()
        .filter(|line| line.contains("[WARNING:"))
        .filter(|line| !line.contains("instead of \"list<byte>\""))
        .filter(|line| !line.contains("No generator named") && !line.contains("as sub-namespace"))
        .collect();
    if !warnings.is_empty() {
        return Err(format!("`thrift --gen py {}` warned:\n{}", idl.display(), warnings.join("\n")));
    }
    Ok(())
}

/// A Python script serving JSON requests, one per line, each answered by one JSON line.
///
/// Answers are read on a thread so that a hung script fails the test after
/// [`CALL_TIMEOUT`] instead of hanging it; the script's stderr is kept for error messages.
pub struct PyHelper {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<String>>,
    script: PathBuf,
}

impl PyHelper {
    /// Starts `script` with the found interpreter and `python_path` prepended to `PYTHONPATH`.
    pub fn start(script: &Path, python_path: &[&Path]) -> Result<PyHelper, String> {
        let tools = tools()?;
        let mut paths: Vec<PathBuf> = python_path.iter().map(|p| p.to_path_buf()).collect();
        if let Some(existing) = std::env::var_os("PYTHONPATH") {
            paths.extend(std::env::split_paths(&existing));
        }
        let joined = std::env::join_paths(paths).map_err(|e| format!("bad PYTHONPATH entry: {e}"))?;
        let mut child = Command::new(&tools.python)
            .arg(script)
            .env("PYTHONPATH", joined)
            // No .pyc files in the source tree or the generated directory.
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {} {}: {e}", tools.python.display(), script.display()))?;

        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err_pipe = child.stderr.take().expect("stderr is piped");
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = err_pipe.read(&mut chunk) {
                sink.lock().unwrap_or_else(|p| p.into_inner()).push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        });
        let stdin = child.stdin.take();
        Ok(PyHelper { child, stdin, lines, stderr, script: script.to_path_buf() })
    }

    /// Sends one request and waits for its answer.
    pub fn call(&mut self, request: &Value) -> Result<Value, String> {
        let mut line = serde_json::to_string(request).map_err(|e| e.to_string())?;
        line.push('\n');
        let stdin = self.stdin.as_mut().ok_or("the helper's stdin is closed")?;
        if let Err(e) = stdin.write_all(line.as_bytes()).and_then(|()| stdin.flush()) {
            return Err(self.died(&format!("writing a request failed: {e}")));
        }
        match self.lines.recv_timeout(CALL_TIMEOUT) {
            Ok(Ok(answer)) => serde_json::from_str(&answer).map_err(|e| format!("unreadable answer {answer:?}: {e}")),
            Ok(Err(e)) => Err(self.died(&format!("reading the answer failed: {e}"))),
            Err(RecvTimeoutError::Disconnected) => Err(self.died("it closed its output")),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(self.died(&format!("no answer within {CALL_TIMEOUT:?}; killed it")))
            }
        }
    }

    fn died(&mut self, what: &str) -> String {
        let status = self.child.try_wait().ok().flatten().map(|s| s.to_string()).unwrap_or_else(|| "running".into());
        // Give the stderr thread a moment to collect the traceback.
        thread::sleep(Duration::from_millis(100));
        let stderr = self.stderr.lock().unwrap_or_else(|p| p.into_inner()).clone();
        format!("python helper {}: {what} (status: {status}); its stderr:\n{stderr}", self.script.display())
    }
}

impl Drop for PyHelper {
    fn drop(&mut self) {
        // Closing stdin ends the script's request loop; kill it if it does not stop promptly.
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
