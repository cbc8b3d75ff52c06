//! Running the cross-test programs: our two binaries, the Python peers and the Java peers
//! (see [`java`]), each bounded in time and killed when the test is done with it; and
//! running a matrix of cells and printing its table.

#![allow(dead_code)] // each test file uses its own part

pub mod java;

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use thrift_tests::python::{self, TempDir};

/// How long a server may take to say it listens (Python imports take a moment).
pub const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long one client run may take; a passing one takes about a second.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The protocols of the cross test: binary and compact, plain and multiplexed, each also
/// under the names Apache uses for its Python library's C-accelerated versions (which our
/// binaries take as the same wire protocol).
pub const PROTOCOLS: [&str; 12] = [
    "binary", "compact", "multi", "multic", "accel", "accelc", "multia", "multiac", "header", "multih", "json",
    "multij",
];
/// The transports of the cross test.
pub const TRANSPORTS: [&str; 3] = ["buffered", "framed", "http"];

/// Whether the cross test has the cell: HTTP runs over TCP only (Apache's Python programs
/// take no socket path for it).
pub fn has_cell(socket: &str, transport: &str) -> bool {
    transport != "http" || socket == "tcp"
}

/// Our server binary.
pub fn rust_server() -> Command {
    Command::new(env!("CARGO_BIN_EXE_thrift-test-server"))
}

/// Our client binary.
pub fn rust_client() -> Command {
    Command::new(env!("CARGO_BIN_EXE_thrift-test-client"))
}

/// Apache's test keys, from Apache's source tree.
pub fn keys_dir() -> PathBuf {
    let source = thrift_tests::apache_src::apache_source()
        .unwrap_or_else(|e| panic!("the TLS cells need Apache's test/keys: {e}"));
    source.join("test/keys")
}

/// Our server, told where Apache's keys are.
pub fn our_server() -> Server {
    let mut command = rust_server();
    command.arg("--keys-dir").arg(keys_dir());
    Server::Ours(command)
}

/// Our client, told where Apache's keys are.
pub fn our_client() -> Command {
    let mut command = rust_client();
    command.arg("--keys-dir").arg(keys_dir());
    command
}

/// Apache's own cross-test programs, `test/py/TestServer.py` and `test/py/TestClient.py` of
/// Apache's source tree, with Python code Apache's compiler generated from Apache's
/// `test/ThriftTest.thrift` (the file our side is generated from too) in a temporary
/// directory, removed when dropped.
pub struct ApachePython {
    dir: TempDir,
    programs: PathBuf,
}

impl ApachePython {
    /// Runs `thrift --gen py` on Apache's file.
    pub fn new() -> Result<ApachePython, String> {
        let source = thrift_tests::apache_src::apache_source()?;
        let dir = TempDir::new("thrift-test-py")?;
        python::generate_python(&source.join("test/ThriftTest.thrift"), dir.path())?;
        Ok(ApachePython { dir, programs: source.join("test/py") })
    }

    fn program(&self, name: &str) -> Result<Command, String> {
        let tools = python::tools()?;
        let mut command = Command::new(&tools.python);
        command
            .arg(self.programs.join(name))
            .arg("--genpydir")
            .arg(self.dir.path())
            .current_dir(&self.programs)
            .env("PYTHONDONTWRITEBYTECODE", "1");
        Ok(command)
    }

    /// Apache's Python ThriftTest server (threaded, one thread per connection).
    pub fn server(&self) -> Result<Server, String> {
        Ok(Server::Apache(self.program("TestServer.py")?))
    }

    /// Apache's Python ThriftTest client.
    pub fn client(&self) -> Result<Command, String> {
        self.program("TestClient.py")
    }
}

/// A server command: ours, which picks its port and says where it listens, or Apache's,
/// which is given a free port and is ready once it accepts a connection.
pub enum Server {
    /// `thrift-test-server`.
    Ours(Command),
    /// `TestServer.py`.
    Apache(Command),
    /// Apache's Java `TestServer`: it reads only `--flag=value`, and listens on TCP only.
    Java(Command),
}

impl Server {
    /// The command, to add flags to.
    pub fn command_mut(&mut self) -> &mut Command {
        match self {
            Server::Ours(command) | Server::Apache(command) | Server::Java(command) => command,
        }
    }
}

/// Where a server listens: a TCP address, or a Unix domain socket's path.
#[derive(Clone, Debug)]
pub enum Place {
    /// 127.0.0.1 and a port.
    Tcp(SocketAddr),
    /// A socket file (removed when the cell is done).
    Unix(PathBuf),
}

impl Place {
    /// A fresh socket path for one cell.
    pub fn socket_path(cell: &str) -> PathBuf {
        let name: String = cell.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let path = std::env::temp_dir().join(format!("thrift-test-{}-{name}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    }

    /// Opens a connection and closes it without sending a byte.
    pub fn poke(&self) -> Result<(), String> {
        match self {
            Place::Tcp(addr) => std::net::TcpStream::connect(addr).map(drop),
            Place::Unix(path) => std::os::unix::net::UnixStream::connect(path).map(drop),
        }
        .map_err(|e| format!("cannot connect to {self:?}: {e}"))
    }

    /// The flags that tell a client where to connect, each as `--flag=value`, as Apache's
    /// runner passes them (Apache's Java client reads no other form).
    fn client_args(&self) -> Vec<String> {
        match self {
            Place::Tcp(addr) => vec![format!("--host={}", addr.ip()), format!("--port={}", addr.port())],
            Place::Unix(path) => vec![format!("--domain-socket={}", path.display())],
        }
    }
}

/// Whether something listens on `addr`: a connection there is accepted, and is not one to
/// itself. The port is in the ephemeral range, and while nothing listens on it a connection
/// to it can get the same port as its own and open onto itself (TCP's simultaneous open): a
/// probe that took that for the server sent the client to a port the server had yet to bind.
fn listens(addr: SocketAddr) -> bool {
    std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200))
        .is_ok_and(|probe| probe.local_addr().ok() != probe.peer_addr().ok())
}

/// A server process, killed when dropped.
pub struct RunningServer {
    child: Child,
    /// Where it listens (for a TCP server; see [`RunningServer::place`]).
    pub addr: SocketAddr,
    /// Where it listens.
    pub place: Place,
    stderr: mpsc::Receiver<String>,
}

impl RunningServer {
    /// Starts `server` on TCP with the given flags and waits until it serves.
    pub fn start(server: Server, protocol: &str, transport: &str) -> Result<RunningServer, String> {
        match server {
            Server::Ours(command) => RunningServer::start_ours(command, protocol, transport),
            Server::Apache(command) => RunningServer::start_apache(command, protocol, transport, false),
            Server::Java(command) => RunningServer::start_apache(command, protocol, transport, true),
        }
    }

    /// Starts `server` on the Unix domain socket `path` and waits until it serves.
    pub fn start_unix(server: Server, protocol: &str, transport: &str, path: &Path) -> Result<RunningServer, String> {
        let (mut command, apache) = match server {
            Server::Ours(command) => (command, false),
            Server::Apache(command) => (command, true),
            Server::Java(_) => return Err("Apache's Java TestServer takes no --domain-socket".into()),
        };
        command.arg("--domain-socket").arg(path).args(["--protocol", protocol, "--transport", transport]);
        if apache {
            command.arg("TThreadedServer");
        }
        let shown = format!("{command:?}");
        let (mut server, _lines) = RunningServer::spawn(command)?;
        server.place = Place::Unix(path.to_path_buf());
        server.wait_until(&shown, || std::os::unix::net::UnixStream::connect(path).is_ok())?;
        Ok(server)
    }

    /// Polls `serves` until it holds, failing when the process exits or takes too long.
    fn wait_until(&mut self, shown: &str, mut serves: impl FnMut() -> bool) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if serves() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("{shown} exited ({status}) before serving; its stderr:\n{}", self.stderr()));
            }
            if Instant::now() > deadline {
                return Err(format!("{shown} did not serve within {START_TIMEOUT:?}; its stderr:\n{}", self.stderr()));
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn spawn(mut command: Command) -> Result<(RunningServer, mpsc::Receiver<std::io::Result<String>>), String> {
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = collect(child.stderr.take().expect("stderr is piped"));
        let (tx, lines) = mpsc::channel();
        // Read to the end even when nobody listens any more: a server that logs every call
        // (Apache's Java one does) must never block on a full pipe.
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let _ = tx.send(line);
            }
        });
        let addr = SocketAddr::from(([127, 0, 0, 1], 0));
        Ok((RunningServer { child, addr, place: Place::Tcp(addr), stderr }, lines))
    }

    /// Ours: `--port 0`, then the line naming its address.
    fn start_ours(mut command: Command, protocol: &str, transport: &str) -> Result<RunningServer, String> {
        command.args(["--port", "0", &format!("--protocol={protocol}"), "--transport", transport]);
        let shown = format!("{command:?}");
        let (mut server, lines) = RunningServer::spawn(command)?;
        let line = match lines.recv_timeout(START_TIMEOUT) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(format!("{shown}: reading its output failed: {e}")),
            Err(_) => {
                return Err(format!(
                    "{shown} did not say where it listens within {START_TIMEOUT:?}; its stderr:\n{}",
                    server.stderr()
                ))
            }
        };
        server.addr = line
            .strip_prefix("listening on ")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|addr| addr.parse().ok())
            .ok_or_else(|| format!("{shown}: unexpected first line {line:?}"))?;
        server.place = Place::Tcp(server.addr);
        Ok(server)
    }

    /// Apache's: a port that was free a moment ago, then connections until one is accepted.
    /// The Java server gets `--flag=value` and its default (thread-pool) server; the Python
    /// one the threaded server.
    fn start_apache(
        mut command: Command,
        protocol: &str,
        transport: &str,
        java: bool,
    ) -> Result<RunningServer, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        if java {
            command.args([
                format!("--port={port}"),
                format!("--protocol={protocol}"),
                format!("--transport={transport}"),
            ]);
        } else {
            command.args([
                "--port",
                &port.to_string(),
                "--protocol",
                protocol,
                "--transport",
                transport,
                "TThreadedServer",
            ]);
        }
        let shown = format!("{command:?}");
        let (mut server, _lines) = RunningServer::spawn(command)?;
        server.addr = SocketAddr::from(([127, 0, 0, 1], port));
        server.place = Place::Tcp(server.addr);
        let addr = server.addr;
        server.wait_until(&shown, || listens(addr))?;
        Ok(server)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `limit` for the process to exit.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&mut self) -> String {
        self.stderr.try_iter().collect()
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Place::Unix(path) = &self.place {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Reads a pipe to its end on a thread, chunk by chunk.
fn collect(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = pipe.read(&mut chunk) {
            if tx.send(String::from_utf8_lossy(&chunk[..n]).into_owned()).is_err() {
                break;
            }
        }
    });
    rx
}

/// How a client run ended.
pub struct ClientRun {
    /// The exit code; `None` when it was killed (timeout) or died of a signal.
    pub code: Option<i32>,
    /// Its stdout then its stderr.
    pub output: String,
    /// How long it took.
    pub took: Duration,
}

/// Runs a client with the cross test's flags against `addr`, killing it after [`RUN_TIMEOUT`].
pub fn run_client(mut command: Command, place: &Place, protocol: &str, transport: &str) -> Result<ClientRun, String> {
    command
        .args(place.client_args())
        .args([format!("--protocol={protocol}"), format!("--transport={transport}")])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = command.spawn().map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let stdout = collect(child.stdout.take().expect("stdout is piped"));
    let stderr = collect(child.stderr.take().expect("stderr is piped"));
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if start.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(5));
    };
    let took = start.elapsed();
    // The pipes close with the process; give the reader threads a moment to drain them.
    let drain = |rx: mpsc::Receiver<String>| {
        let mut text = String::new();
        while let Ok(chunk) = rx.recv_timeout(Duration::from_secs(2)) {
            text.push_str(&chunk);
        }
        text
    };
    let output = format!("{}{}", drain(stdout), drain(stderr));
    Ok(ClientRun { code: status.and_then(|s| s.code()), output, took })
}

impl ClientRun {
    /// A cell's verdict: the time taken when the client exited 0, else its output and the
    /// server's stderr.
    pub fn verdict(self, server: &mut RunningServer) -> Result<Duration, String> {
        match self.code {
            Some(0) => Ok(self.took),
            Some(code) => Err(format!("client exited {code}:\n{}\nserver stderr:\n{}", self.output, server.stderr())),
            None => Err(format!(
                "client killed after {:?}:\n{}\nserver stderr:\n{}",
                self.took,
                self.output,
                server.stderr()
            )),
        }
    }
}

/// Where each pairing's table is kept for `scripts/test.sh` to print after the run (cargo
/// shows a passing test's output only with `--nocapture`).
fn matrix_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cross-matrix")
}

fn keep_table(pairing: &str, table: &str) {
    let file: String = pairing.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let dir = matrix_dir();
    let kept = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(dir.join(format!("{file}.txt")), table));
    if let Err(e) = kept {
        eprintln!("could not keep the {pairing} table in {}: {e}", dir.display());
    }
}

/// Runs every cell with `run` (given the cell and its name), on `workers` threads taking the
/// cells in turn, then prints a line per cell in `cells`' order and a count, and fails with
/// the table and every failure's story when a cell did not pass.
pub fn run_matrix<C: Sync>(
    pairing: &str,
    cells: &[C],
    workers: usize,
    name: impl Fn(&C) -> String + Sync,
    run: impl Fn(&C, &str) -> Result<Duration, String> + Sync,
) {
    let names: Vec<String> = cells.iter().map(|cell| format!("{pairing} {}", name(cell))).collect();
    let outcomes: Vec<Mutex<Option<Result<Duration, String>>>> = cells.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(cell) = cells.get(i) else { break };
                let outcome = run(cell, &names[i]);
                *outcomes[i].lock().unwrap() = Some(outcome);
            });
        }
    });
    let mut table = String::new();
    let mut failures = Vec::new();
    let mut passed = 0;
    for (name, outcome) in names.iter().zip(outcomes) {
        match outcome.into_inner().unwrap().expect("every cell ran") {
            Ok(took) => {
                passed += 1;
                writeln!(table, "{name}  pass ({} ms)", took.as_millis()).unwrap()
            }
            Err(why) => {
                writeln!(table, "{name}  FAIL").unwrap();
                failures.push(format!("--- {name}\n{why}"));
            }
        }
    }
    writeln!(table, "{pairing}: {passed} of {} cells pass", cells.len()).unwrap();
    println!("{table}");
    keep_table(pairing, &table);
    assert!(failures.is_empty(), "cells failed:\n{table}\n{}", failures.join("\n"));
    assert!(passed > 0, "{pairing}: no cells");
}
