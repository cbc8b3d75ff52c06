//! The orchestration: for each pair, its server as a child process, its client as another
//! at each concurrency level, the client's statistics read from its JSON; then the table,
//! the BENCHMARKS.md section and the chart. Bounded: each client run is killed past its
//! duration plus a margin, and pairs are skipped once the time budget is spent.

use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use thrift_loadtest::options::parse_duration;
use thrift_loadtest::{Payload, Stats};

use crate::cpu::CpuPerCall;
use crate::peers::java;
use crate::rounds::{self, RoundRun};
use crate::{ClientKind, LoadReport, ServerKind};

/// What `run` runs.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// The pairs to run, in order (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub pairs: Vec<PairKind>,
    /// Concurrency levels.
    #[arg(short, long, value_delimiter = ',', default_values_t = vec![1, 16, 64, 256])]
    pub concurrency: Vec<usize>,
    /// Each client run, warm-up included.
    #[arg(short, long, value_parser = parse_duration, default_value = "5s")]
    pub duration: Duration,
    /// The unmeasured start of each client run.
    #[arg(long, value_parser = parse_duration, default_value = "1s")]
    pub warmup: Duration,
    /// Request and reply size.
    #[arg(short, long, value_enum, default_value_t = Payload::Small)]
    pub payload: Payload,
    /// Stop starting pairs once this much time has passed.
    #[arg(long, value_parser = parse_duration, default_value = "10m")]
    pub budget: Duration,
    /// Print the table only: leave BENCHMARKS.md and the chart alone.
    #[arg(long)]
    pub no_write: bool,
    /// Rounds of raw, pool and pipelined (and raw + codec, when the run has it) taking turns
    /// at 1 and 64 callers, for the figures the issue-22 targets judge (0: none; then the
    /// targets read the table's cells).
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
}

impl Default for RunArgs {
    fn default() -> Self {
        #[derive(Parser)]
        struct Defaults {
            #[command(flatten)]
            args: RunArgs,
        }
        Defaults::parse_from(["rpc-compare"]).args
    }
}

/// A server and the client that loads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PairKind {
    /// thrift-net's server, its pipelined client.
    OursPipelined,
    /// thrift-net's server, its pool in exclusive mode.
    OursPool,
    /// thrift-net's server, its client one connection per call (the seed's first try).
    OursPerCall,
    /// volo-thrift's server and client, default settings.
    Volo,
    /// volo-thrift's server and client, multiplexed.
    VoloMultiplex,
    /// Apache's Rust crate, server and client.
    Apache,
    /// Apache's Rust crate's `TServer` as shipped (no TCP_NODELAY), its client.
    ApacheNagle,
    /// Apache's Java TNonblockingServer, Apache's Rust client.
    Java,
    /// Apache's Java TNonblockingServer, thrift-net's pool (the seed's setup, our client).
    JavaOursPool,
    /// Pre-encoded bytes both ways, a connection per caller.
    Raw,
    /// Pre-encoded bytes both ways, one pipelined connection.
    RawPipelined,
    /// The raw pair's loops, each message decoded and encoded by `thrift-core`: the floor
    /// under any Thrift implementation, a connection per caller.
    RawCodec,
    /// thrift-net's server, its pipelined client on THeader: what header framing costs.
    OursHeader,
    /// thrift-net's server, its pipelined client on TTHeader: what header framing costs.
    OursTtheader,
    /// thrift-net's server, volo-thrift's client on its defaults (TTHeader): an interop pair,
    /// not in the default run.
    VoloToOurs,
    /// volo-thrift's server, thrift-net's pipelined client on TTHeader: an interop pair, not
    /// in the default run.
    OursTtheaderToVolo,
}

/// Where a pair's server comes from.
#[derive(Clone, Copy, Debug)]
pub enum ServerSpec {
    /// `rpc-compare serve`.
    Own(ServerKind),
    /// Apache's Java server, built with `javac`.
    Java,
}

/// One pair as the report names it.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    /// Which.
    pub kind: PairKind,
    /// Short name for tables and the chart.
    pub name: &'static str,
    /// The server, in words.
    pub server_text: &'static str,
    /// The client, in words.
    pub client_text: &'static str,
    /// The server.
    pub server: ServerSpec,
    /// The client.
    pub client: ClientKind,
}

impl PairKind {
    /// Every pair, in the report's order.
    pub const ALL: [PairKind; 12] = [
        PairKind::OursPipelined,
        PairKind::OursPool,
        PairKind::Volo,
        PairKind::VoloMultiplex,
        PairKind::Apache,
        PairKind::ApacheNagle,
        PairKind::Java,
        PairKind::JavaOursPool,
        PairKind::Raw,
        PairKind::RawPipelined,
        PairKind::RawCodec,
        PairKind::OursPerCall,
    ];

    /// The pair's setup.
    pub fn pair(self) -> Pair {
        let (name, server_text, client_text, server, client) = match self {
            PairKind::OursPipelined => (
                "ours pipelined",
                "thrift-net `Server`",
                "thrift-net `Client`, one pipelined connection",
                ServerSpec::Own(ServerKind::Ours),
                ClientKind::OursPipelined,
            ),
            PairKind::OursPool => (
                "ours pool",
                "thrift-net `Server`",
                "thrift-net `Pool`, exclusive mode, `max_total` = callers",
                ServerSpec::Own(ServerKind::Ours),
                ClientKind::OursPool,
            ),
            PairKind::OursPerCall => (
                "ours per-call",
                "thrift-net `Server`",
                "thrift-net `Client`, a new connection per call",
                ServerSpec::Own(ServerKind::Ours),
                ClientKind::OursPerCall,
            ),
            PairKind::Volo => (
                "volo",
                "volo-thrift 0.12 server, defaults (TTHeader + framed binary)",
                "volo-thrift client, defaults (a pool of ping-pong connections)",
                ServerSpec::Own(ServerKind::Volo),
                ClientKind::Volo,
            ),
            PairKind::VoloMultiplex => (
                "volo multiplex",
                "volo-thrift server, `multiplex(true)`",
                "volo-thrift client, `multiplex(true)`",
                ServerSpec::Own(ServerKind::VoloMultiplex),
                ClientKind::VoloMultiplex,
            ),
            PairKind::Apache => (
                "apache rust",
                "`thrift` 0.17 processor, a thread per connection, TCP_NODELAY",
                "`thrift` 0.17 sync client, a thread and connection per caller, TCP_NODELAY",
                ServerSpec::Own(ServerKind::Apache),
                ClientKind::Apache,
            ),
            PairKind::ApacheNagle => (
                "apache rust, Nagle",
                "`thrift` 0.17 `TServer` as shipped: no TCP_NODELAY on accepted sockets",
                "`thrift` 0.17 sync client, as above",
                ServerSpec::Own(ServerKind::ApacheTserver),
                ClientKind::Apache,
            ),
            PairKind::Java => (
                "apache java",
                "Java `TNonblockingServer` (libthrift 0.16, OpenJDK), framed binary, AsyncIface",
                "`thrift` 0.17 sync client, a thread and connection per caller",
                ServerSpec::Java,
                ClientKind::Apache,
            ),
            PairKind::JavaOursPool => (
                "java + ours pool",
                "Java `TNonblockingServer`, as above",
                "thrift-net `Pool`, exclusive mode, `max_total` = callers",
                ServerSpec::Java,
                ClientKind::OursPool,
            ),
            PairKind::Raw => (
                "raw ceiling",
                "pre-encoded reply, seqid patched, nothing decoded",
                "pre-encoded request, one frame read back, a connection per caller",
                ServerSpec::Own(ServerKind::Raw),
                ClientKind::Raw,
            ),
            PairKind::RawPipelined => (
                "raw pipelined",
                "as above",
                "pre-encoded requests, one connection, every call in flight, replies read in batches",
                ServerSpec::Own(ServerKind::Raw),
                ClientKind::RawPipelined,
            ),
            PairKind::RawCodec => (
                "raw + codec",
                "the raw loop; each call decoded (zero-copy) and its reply encoded by `thrift-core`",
                "the raw loop; each request encoded and its reply decoded and checked by `thrift-core`",
                ServerSpec::Own(ServerKind::RawCodec),
                ClientKind::RawCodec,
            ),
            PairKind::OursHeader => (
                "ours header",
                "thrift-net `Server`",
                "thrift-net `Client`, one pipelined connection, `Transport::Header`",
                ServerSpec::Own(ServerKind::Ours),
                ClientKind::OursHeader,
            ),
            PairKind::OursTtheader => (
                "ours ttheader",
                "thrift-net `Server`",
                "thrift-net `Client`, one pipelined connection, `Transport::TTHeader`",
                ServerSpec::Own(ServerKind::Ours),
                ClientKind::OursTtheader,
            ),
            PairKind::VoloToOurs => (
                "volo -> ours",
                "thrift-net `Server` (detects TTHeader)",
                "volo-thrift client, defaults (TTHeader + framed binary)",
                ServerSpec::Own(ServerKind::Ours),
                ClientKind::Volo,
            ),
            PairKind::OursTtheaderToVolo => (
                "ours ttheader -> volo",
                "volo-thrift 0.12 server, defaults",
                "thrift-net `Client`, one pipelined connection, `Transport::TTHeader`",
                ServerSpec::Own(ServerKind::Volo),
                ClientKind::OursTtheader,
            ),
        };
        Pair { kind: self, name, server_text, client_text, server, client }
    }
}

/// One client run's outcome.
#[derive(Clone, Debug)]
pub struct Row {
    /// The pair.
    pub pair: Pair,
    /// Concurrent callers.
    pub concurrency: usize,
    /// What the client measured, or why there is nothing.
    pub outcome: Result<Stats, String>,
    /// CPU time per call of the server and the client, when `/proc` said.
    pub cpu: Option<CpuPerCall>,
}

/// Everything `run` measured.
#[derive(Clone, Debug)]
pub struct Results {
    /// The settings.
    pub args: RunArgs,
    /// One row per pair and level, in the order run.
    pub rows: Vec<Row>,
    /// The interleaved rounds ([`rounds`]), when they ran.
    pub rounds: Vec<RoundRun>,
    /// Seconds the whole run took.
    pub seconds: f64,
    /// The one-minute load average when the run started (`/proc/loadavg`).
    pub load_before: String,
    /// The one-minute load average when it ended.
    pub load_after: String,
}

/// The one-minute load average, or `?`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

impl Results {
    /// The statistics of `pair` at `concurrency`, if it ran and measured.
    pub fn stats(&self, pair: PairKind, concurrency: usize) -> Option<&Stats> {
        self.row(pair, concurrency)?.outcome.as_ref().ok()
    }

    /// The CPU time per call of `pair` at `concurrency`, if it ran and `/proc` said.
    pub fn cpu(&self, pair: PairKind, concurrency: usize) -> Option<CpuPerCall> {
        self.row(pair, concurrency)?.cpu
    }

    fn row(&self, pair: PairKind, concurrency: usize) -> Option<&Row> {
        self.rows.iter().find(|r| r.pair.kind == pair && r.concurrency == concurrency)
    }
}

pub(crate) fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The directory beside this binary where logs and the Java build go.
fn work_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("rpc-compare"));
    exe.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf).join("rpc-compare-work")
}

/// A server child process, killed when dropped.
pub(crate) struct ServerProcess {
    child: Child,
    log: PathBuf,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServerProcess {
    /// Its process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    fn start(mut command: Command, log: PathBuf) -> Result<ServerProcess, String> {
        let file = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        command.stdout(Stdio::null()).stderr(file);
        let child = command.spawn().map_err(|e| format!("starting the server: {e}"))?;
        Ok(ServerProcess { child, log })
    }

    /// Waits until `addr` accepts connections, or the server exits, or `limit` passes.
    pub fn wait_listening(&mut self, addr: SocketAddr, limit: Duration) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        loop {
            // A connection that opened onto itself is not the server: while nothing listens
            // on an ephemeral port, a connection to it can be given that port as its own.
            let probe = TcpStream::connect_timeout(&addr, Duration::from_millis(200));
            if probe.is_ok_and(|probe| probe.local_addr().ok() != probe.peer_addr().ok()) {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                let log = std::fs::read_to_string(&self.log).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(5).collect();
                return Err(format!("the server exited ({status}): {}", tail.join(" / ")));
            }
            if Instant::now() >= deadline {
                return Err(format!("the server did not listen on {addr} within {limit:?}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

pub(crate) fn start_server(
    pair: &Pair,
    port: u16,
    args: &RunArgs,
    java_classes: &Result<PathBuf, String>,
) -> Result<ServerProcess, String> {
    let work = work_dir();
    let log = work.join(format!("server-{}.log", pair.name.replace(' ', "-")));
    let command = match pair.server {
        ServerSpec::Own(kind) => {
            let exe = std::env::current_exe().map_err(|e| format!("finding rpc-compare: {e}"))?;
            let mut command = Command::new(exe);
            let kind = kind.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
            let payload = args.payload.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
            command.args(["serve", &kind, "--addr", &format!("127.0.0.1:{port}"), "--payload", &payload]);
            command
        }
        ServerSpec::Java => java::command(java_classes.as_ref().map_err(Clone::clone)?, port)?,
    };
    ServerProcess::start(command, log)
}

/// Runs the client of `pair` as a child process against the server `server_pid` and reads
/// its report.
pub(crate) fn run_client(
    pair: &Pair,
    (addr, server_pid): (SocketAddr, u32),
    concurrency: usize,
    warmup: Duration,
    args: &RunArgs,
) -> Result<LoadReport, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding rpc-compare: {e}"))?;
    let client = pair.client.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
    let payload = args.payload.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
    let mut child = Command::new(exe)
        .args(["load", &client, "--addr", &addr.to_string(), "--payload", &payload])
        .args(["-c", &concurrency.to_string()])
        .args(["-d", &format!("{}ms", args.duration.as_millis())])
        .args(["--warmup", &format!("{}ms", warmup.as_millis())])
        .args(["--server-pid", &server_pid.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting the client: {e}"))?;
    // The client's own timeouts end it within duration + 2 × call timeout; past a margin
    // beyond that it is killed.
    let deadline = Instant::now() + args.duration + Duration::from_secs(20);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("the client overran its time and was killed".into());
            }
            Err(e) => return Err(format!("waiting for the client: {e}")),
        }
    }
    let output = child.wait_with_output().map_err(|e| format!("reading the client: {e}"))?;
    if !output.status.success() {
        return Err(format!("the client failed: {}", String::from_utf8_lossy(&output.stderr).trim()));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("the client's JSON: {e}"))
}

/// Runs the pairs and writes the report.
///
/// # Errors
/// When the results cannot be written.
pub fn run(args: &RunArgs) -> Result<(), String> {
    let started = Instant::now();
    let load_before = load_average();
    let pairs: Vec<Pair> = if args.pairs.is_empty() { PairKind::ALL.to_vec() } else { args.pairs.clone() }
        .into_iter()
        .map(PairKind::pair)
        .collect();
    let work = work_dir();
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let java_classes = if pairs.iter().any(|p| matches!(p.server, ServerSpec::Java)) {
        eprintln!("building Apache's Java server...");
        java::build(&work.join("java"))
    } else {
        Err("not asked for".into())
    };

    let mut rows = Vec::new();
    for pair in &pairs {
        let skip = |rows: &mut Vec<Row>, why: String| {
            eprintln!("{}: {why}", pair.name);
            for &concurrency in &args.concurrency {
                rows.push(Row { pair: *pair, concurrency, outcome: Err(why.clone()), cpu: None });
            }
        };
        let per_pair = (args.duration + Duration::from_millis(500)) * args.concurrency.len() as u32;
        if started.elapsed() + per_pair > args.budget {
            skip(&mut rows, format!("skipped: the {:?} budget would be exceeded", args.budget));
            continue;
        }
        let port = match free_port() {
            Ok(port) => port,
            Err(e) => {
                skip(&mut rows, format!("no free port: {e}"));
                continue;
            }
        };
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut server = match start_server(pair, port, args, &java_classes) {
            Ok(server) => server,
            Err(why) => {
                skip(&mut rows, why);
                continue;
            }
        };
        if let Err(why) = server.wait_listening(addr, Duration::from_secs(20)) {
            skip(&mut rows, why);
            continue;
        }
        // The JVM compiles its hot paths during the first seconds.
        let warmup = match pair.server {
            ServerSpec::Java => (args.warmup * 3).min(args.duration / 2),
            ServerSpec::Own(_) => args.warmup,
        };
        for &concurrency in &args.concurrency {
            let report = run_client(pair, (addr, server.id()), concurrency, warmup, args);
            let cpu = report.as_ref().ok().and_then(|r| r.cpu);
            let outcome = report.map(|r| r.stats);
            match &outcome {
                Ok(s) => eprintln!(
                    "{} × {concurrency}: {:.0} QPS, p50 {} µs, p99 {} µs, {} errors, CPU {}",
                    pair.name,
                    s.qps,
                    s.p50_us,
                    s.p99_us,
                    s.error_count(),
                    cpu.map_or("not read".into(), |c| format!(
                        "{:.1} µs a call ({:.1} server + {:.1} client)",
                        c.total_us(),
                        c.server_us,
                        c.client_us
                    )),
                ),
                Err(e) => eprintln!("{} × {concurrency}: {e}", pair.name),
            }
            rows.push(Row { pair: *pair, concurrency, outcome, cpu });
            // Let the sockets of the last run close before the next.
            std::thread::sleep(Duration::from_millis(300));
        }
        drop(server);
    }
    let kinds: Vec<PairKind> = pairs.iter().map(|p| p.kind).collect();
    let levels = rounds::levels(args, &kinds);
    let turns = rounds::turns(&kinds);
    let rounds_take = (args.duration + Duration::from_millis(300)) * (args.rounds * levels.len() * turns.len()) as u32;
    let rounds = if levels.is_empty() {
        Vec::new()
    } else if started.elapsed() + rounds_take > args.budget {
        eprintln!("rounds skipped: the {:?} budget would be exceeded", args.budget);
        Vec::new()
    } else {
        rounds::run(args, &levels, &turns).unwrap_or_else(|why| {
            eprintln!("rounds: {why}");
            Vec::new()
        })
    };
    let results = Results {
        args: args.clone(),
        rows,
        rounds,
        seconds: started.elapsed().as_secs_f64(),
        load_before,
        load_after: load_average(),
    };
    print!("{}", crate::section::table(&results));
    eprint!("{}{}", crate::section::ceiling_targets(&results), crate::section::floor(&results));
    if args.no_write {
        return Ok(());
    }
    let root = crate::repo_root();
    let chart = root.join("docs/bench-rpc.svg");
    crate::chart::write_svg(&results, &chart).map_err(|e| format!("writing {}: {e}", chart.display()))?;
    let benchmarks = root.join("BENCHMARKS.md");
    crate::section::write(&results, &benchmarks, java_classes.err())?;
    eprintln!("wrote {} and {}", benchmarks.display(), chart.display());
    Ok(())
}

/// Results of every kind of row, for the writers' tests.
#[cfg(test)]
pub fn sample_results() -> Results {
    let stats = |qps: f64, p50_us: u64, p99_us: u64| Stats {
        calls: 1000,
        seconds: 1.0,
        qps,
        p50_us,
        p99_us,
        ..Stats::default()
    };
    let cpu = |server_us, client_us| Some(CpuPerCall { server_us, client_us });
    let row = |kind: PairKind, concurrency, outcome, cpu| Row { pair: kind.pair(), concurrency, outcome, cpu };
    let mut rows = Vec::new();
    for c in [1, 16, 64, 256] {
        rows.push(row(PairKind::OursPipelined, c, Ok(stats(53_000.0, 54, 900)), cpu(4.5, 5.0)));
        rows.push(row(PairKind::Volo, c, Ok(stats(30_000.0, 70, 1000)), None));
        rows.push(row(PairKind::Raw, c, Ok(stats(55_000.0, 50, 800)), cpu(4.0, 4.5)));
        rows.push(row(PairKind::RawCodec, c, Ok(stats(52_000.0, 52, 850)), cpu(4.5, 4.9)));
        rows.push(row(PairKind::OursPool, c, Ok(stats(50_000.0, 56, 950)), cpu(5.0, 5.4)));
        rows.push(row(PairKind::OursPerCall, c, Ok(stats(5_000.0, 400, 9000)), None));
        rows.push(row(PairKind::Java, c, Err("javac is missing".into()), None));
    }
    let round = |round, pair, qps, server_us, client_us| RoundRun {
        round,
        concurrency: rounds::LEVEL,
        pair,
        stats: stats(qps, 400, 900),
        cpu: Some(CpuPerCall { server_us, client_us }),
    };
    let rounds = vec![
        round(0, PairKind::Raw, 100_000.0, 5.0, 5.0),
        round(0, PairKind::OursPool, 80_000.0, 7.0, 7.0),
        round(0, PairKind::OursPipelined, 110_000.0, 3.0, 6.0),
        round(1, PairKind::Raw, 120_000.0, 6.0, 6.0),
        round(1, PairKind::OursPool, 108_000.0, 8.0, 7.0),
        round(1, PairKind::OursPipelined, 120_000.0, 3.0, 7.0),
    ];
    Results {
        args: RunArgs::default(),
        rows,
        rounds,
        seconds: 10.0,
        load_before: "1.0".into(),
        load_after: "2.0".into(),
    }
}
