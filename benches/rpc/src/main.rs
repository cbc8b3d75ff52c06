//! `rpc-compare`: HelloService over loopback, this project against its peers, each server
//! and each client in a process of its own.
//!
//! ```sh
//! cargo run --release -p thrift-rpc-bench --bin rpc-compare            # everything, ~7 minutes
//! cargo run --release -p thrift-rpc-bench --bin rpc-compare -- run --pairs ours-pipelined,volo -c 64
//! ```
//!
//! `run` (the default) starts each pair's server as a child process, runs its client as
//! another at each concurrency level, and writes the RPC section of BENCHMARKS.md and
//! docs/bench-rpc.svg. `serve` and `load` are what it starts; they can be run by hand.

mod chart;
mod compare;
mod cpu;
mod peers;
mod rounds;
mod section;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};
use thrift_loadtest::options::parse_duration;
use thrift_loadtest::{Payload, Strategy};
use thrift_net::Transport;

/// The transport of every pair of ours but the TTHeader one.
const FRAMED: Transport = Transport::Framed;

/// HelloService over loopback against volo-thrift, Apache's Rust and Java Thrift, a raw
/// ceiling and a Thrift floor (the ceiling plus the codec's work).
#[derive(Parser, Debug)]
#[command(name = "rpc-compare", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Runs every pair at every concurrency level and writes the results (the default).
    Run(compare::RunArgs),
    /// Serves HelloService with one peer's server on `--addr` until killed.
    Serve {
        /// Which server.
        #[arg(value_enum)]
        server: ServerKind,
        /// Where to listen.
        #[arg(long)]
        addr: SocketAddr,
        /// The raw server's canned reply answers this payload's request.
        #[arg(long, value_enum, default_value_t = Payload::Small)]
        payload: Payload,
    },
    /// Loads `--addr` with one peer's client and prints the statistics as JSON.
    Load(LoadArgs),
}

/// The servers `serve` starts (Apache's Java server is started by `run` with `java`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ServerKind {
    /// thrift-net's server.
    Ours,
    /// volo-thrift's server, default settings.
    Volo,
    /// volo-thrift's server in multiplex mode.
    VoloMultiplex,
    /// Apache's `thrift` crate processor, a thread per connection, TCP_NODELAY.
    Apache,
    /// Apache's `thrift` crate `TServer` as shipped (Nagle's algorithm on).
    ApacheTserver,
    /// Pre-encoded replies, nothing decoded.
    Raw,
    /// The raw server's loop, with each call decoded and its reply encoded by `thrift-core`.
    RawCodec,
}

/// The clients `load` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClientKind {
    /// thrift-net's pipelined client: one connection for every caller.
    OursPipelined,
    /// thrift-net's pool, exclusive mode: a connection per call in flight.
    OursPool,
    /// thrift-net's pipelined client on the THeader transport.
    OursHeader,
    /// thrift-net's pipelined client on the TTHeader transport.
    OursTtheader,
    /// thrift-net's client, one connection behind a mutex.
    OursMutex,
    /// thrift-net's client, a new connection per call.
    OursPerCall,
    /// volo-thrift's client, default settings (a pool of ping-pong connections).
    Volo,
    /// volo-thrift's client in multiplex mode.
    VoloMultiplex,
    /// Apache's `thrift` crate synchronous client, a thread and a connection per caller.
    Apache,
    /// A pre-encoded request per call, a connection per caller.
    Raw,
    /// Pre-encoded requests, one connection with every call in flight.
    RawPipelined,
    /// The raw client's loop, with each request encoded and its reply decoded by `thrift-core`.
    RawCodec,
}

/// What `load` runs and for how long.
#[derive(clap::Args, Debug, Clone)]
pub struct LoadArgs {
    /// Which client.
    #[arg(value_enum)]
    pub client: ClientKind,
    /// The server.
    #[arg(long)]
    pub addr: SocketAddr,
    /// Concurrent callers.
    #[arg(short, long, default_value_t = 16)]
    pub concurrency: usize,
    /// The whole run, warm-up included.
    #[arg(short, long, value_parser = parse_duration, default_value = "5s")]
    pub duration: Duration,
    /// The unmeasured start.
    #[arg(long, value_parser = parse_duration, default_value = "1s")]
    pub warmup: Duration,
    /// Request and reply size.
    #[arg(short, long, value_enum, default_value_t = Payload::Small)]
    pub payload: Payload,
    /// A call waiting longer fails.
    #[arg(long, value_parser = parse_duration, default_value = "5s")]
    pub call_timeout: Duration,
    /// The server's process, whose CPU time per call is reported beside the client's.
    #[arg(long)]
    pub server_pid: Option<u32>,
}

/// What `load` prints as JSON: the client's statistics and, given the server's process,
/// the CPU time per call of both sides over the measured window.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadReport {
    /// The client's statistics.
    #[serde(flatten)]
    pub stats: thrift_loadtest::Stats,
    /// CPU time per call, when `--server-pid` was given and `/proc` read.
    pub cpu: Option<cpu::CpuPerCall>,
}

impl LoadArgs {
    /// The whole run.
    pub fn duration(&self) -> Duration {
        self.duration
    }
    /// The unmeasured start.
    pub fn warmup(&self) -> Duration {
        self.warmup.min(self.duration / 2)
    }
    /// Request size.
    pub fn payload(&self) -> Payload {
        self.payload
    }
    /// The call timeout.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout
    }
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()
}

fn serve(server: ServerKind, addr: SocketAddr, payload: Payload) -> std::io::Result<()> {
    match server {
        ServerKind::Apache => peers::apache::serve(addr),
        ServerKind::ApacheTserver => peers::apache::serve_tserver(addr),
        ServerKind::Ours => runtime()?.block_on(peers::ours::serve(addr)),
        ServerKind::Volo => runtime()?.block_on(peers::volo::serve(addr, false)),
        ServerKind::VoloMultiplex => runtime()?.block_on(peers::volo::serve(addr, true)),
        ServerKind::Raw => runtime()?.block_on(peers::raw::serve(addr, payload)),
        ServerKind::RawCodec => runtime()?.block_on(peers::codec::serve(addr)),
    }
}

fn load(args: &LoadArgs) -> std::io::Result<thrift_loadtest::Stats> {
    let addr = args.addr;
    Ok(match args.client {
        ClientKind::Apache => peers::apache::load(addr, args),
        ClientKind::OursPipelined => runtime()?.block_on(peers::ours::load(Strategy::Pipelined, addr, args, FRAMED)),
        ClientKind::OursPool => runtime()?.block_on(peers::ours::load(Strategy::Pool, addr, args, FRAMED)),
        ClientKind::OursMutex => runtime()?.block_on(peers::ours::load(Strategy::Mutex, addr, args, FRAMED)),
        ClientKind::OursPerCall => runtime()?.block_on(peers::ours::load(Strategy::PerCall, addr, args, FRAMED)),
        ClientKind::OursHeader => {
            runtime()?.block_on(peers::ours::load(Strategy::Pipelined, addr, args, Transport::Header))
        }
        ClientKind::OursTtheader => {
            runtime()?.block_on(peers::ours::load(Strategy::Pipelined, addr, args, Transport::TTHeader))
        }
        ClientKind::Volo => runtime()?.block_on(peers::volo::load(addr, false, args)),
        ClientKind::VoloMultiplex => runtime()?.block_on(peers::volo::load(addr, true, args)),
        ClientKind::Raw => runtime()?.block_on(peers::raw::load(addr, args)),
        ClientKind::RawPipelined => runtime()?.block_on(peers::raw::load_pipelined(addr, args)),
        ClientKind::RawCodec => runtime()?.block_on(peers::codec::load(addr, args)),
    })
}

fn load_report(args: &LoadArgs) -> std::io::Result<LoadReport> {
    let window = args.server_pid.map(|pid| cpu::Window::start(pid, args.warmup(), args.duration()));
    let stats = load(args)?;
    let cpu = window.and_then(|w| w.per_call(stats.calls));
    Ok(LoadReport { stats, cpu })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or_else(|| Command::Run(compare::RunArgs::default()));
    let outcome = match command {
        Command::Serve { server, addr, payload } => serve(server, addr, payload).map_err(|e| e.to_string()),
        Command::Load(args) => load_report(&args).map_err(|e| e.to_string()).and_then(|report| {
            serde_json::to_string(&report).map(|json| println!("{json}")).map_err(|e| e.to_string())
        }),
        Command::Run(args) => compare::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rpc-compare: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root (two levels above this crate), where BENCHMARKS.md and docs/ live.
fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
