//! `thrift-hostile-peers`: the server's memory under hostile peers, measured in its own
//! process while a good client keeps calling.
//!
//! ```sh
//! cargo run --release -p thrift-loadtest --bin thrift-hostile-peers
//! cargo run --release -p thrift-loadtest --bin thrift-hostile-peers -- --duration 30s --idle 5000
//! ```
//!
//! The server (this binary run again with `serve`) gets, at once: `--idle` connections that
//! send nothing, `--slowloris` ones that trickle a message a byte a second, `--non-reading`
//! ones that pipeline large calls and never read a reply, and `--stalled` ones that declare
//! a 16 MB frame, send 1 MiB of it and stop. Its resident memory is sampled from
//! `/proc/PID/status` throughout and compared with the bound its settings promise:
//! 64 MiB, plus `--max-pending-bytes` for each non-reading peer, plus `--max-receiving-bytes`
//! for every message partly received. The good client (a pool, 8 callers) must keep at least
//! 99% of its calls succeeding. Exits non-zero when either fails.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use thrift_core::{Binary, MessageHeader, MessageType};
use thrift_loadtest::hello::{hello_service, Greeter, HelloRequest};
use thrift_loadtest::options::parse_duration;
use thrift_net::codec::Message;
use thrift_net::{Pool, PoolConfig, Server};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Memory a server may use beyond its configured budgets: code, runtime, buffers of the
/// connections that are idle or trickling.
const BASE_BOUND: u64 = 64 << 20;

#[derive(Parser, Debug)]
#[command(name = "thrift-hostile-peers", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Role>,
    /// How long the peers are held against the server.
    #[arg(long, value_parser = parse_duration, default_value = "20s")]
    duration: Duration,
    /// Connections that send nothing.
    #[arg(long, default_value_t = 2000)]
    idle: usize,
    /// Connections that trickle a message, one byte a second.
    #[arg(long, default_value_t = 500)]
    slowloris: usize,
    /// Connections that pipeline 256 KiB calls and never read a reply.
    #[arg(long, default_value_t = 20)]
    non_reading: usize,
    /// Connections that declare a 16 MB frame, send 1 MiB of it and stall.
    #[arg(long, default_value_t = 24)]
    stalled: usize,
    /// The server's `max_pending_bytes_per_connection`.
    #[arg(long, default_value_t = 1 << 20)]
    max_pending_bytes: usize,
    /// The server's `max_receiving_bytes`.
    #[arg(long, default_value_t = 64 << 20)]
    max_receiving_bytes: usize,
}

#[derive(Subcommand, Debug)]
enum Role {
    /// The server under test (started by the measuring run): prints its port, serves until
    /// killed.
    Serve {
        #[arg(long)]
        max_pending_bytes: usize,
        #[arg(long)]
        max_receiving_bytes: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("thrift-hostile-peers: no runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match cli.command {
        Some(Role::Serve { max_pending_bytes, max_receiving_bytes }) => {
            runtime.block_on(serve(max_pending_bytes, max_receiving_bytes))
        }
        None => match runtime.block_on(measure(&cli)) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("thrift-hostile-peers: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

async fn serve(max_pending_bytes: usize, max_receiving_bytes: usize) -> ExitCode {
    let server = Server::builder()
        .max_pending_bytes_per_connection(max_pending_bytes)
        .max_receiving_bytes(max_receiving_bytes)
        .build();
    match server.bind("127.0.0.1:0", hello_service::Server::new(Greeter)).await {
        Ok(handle) => {
            println!("listening {}", handle.local_addr());
            std::future::pending::<()>().await;
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("thrift-hostile-peers serve: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The server process, killed when dropped.
struct ServerProcess(Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl ServerProcess {
    fn start(cli: &Cli) -> Result<(ServerProcess, SocketAddr), String> {
        let exe = std::env::current_exe().map_err(|e| format!("own path: {e}"))?;
        let mut child = Command::new(exe)
            .args(["serve", "--max-pending-bytes", &cli.max_pending_bytes.to_string()])
            .args(["--max-receiving-bytes", &cli.max_receiving_bytes.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting the server: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let process = ServerProcess(child);
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).map_err(|e| format!("reading the server's port: {e}"))?;
        let addr = line.trim().strip_prefix("listening ").ok_or_else(|| format!("unexpected first line {line:?}"))?;
        let addr = addr.parse().map_err(|e| format!("{addr}: {e}"))?;
        Ok((process, addr))
    }

    /// The process's resident memory now and at its peak, in bytes.
    fn memory(&self) -> Result<(u64, u64), String> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.0.id()))
            .map_err(|e| format!("/proc/{}/status: {e}", self.0.id()))?;
        let field = |name: &str| -> Option<u64> {
            let line = status.lines().find(|l| l.starts_with(name))?;
            line[name.len()..].trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|kb| kb * 1024)
        };
        Ok((field("VmRSS:").ok_or("no VmRSS")?, field("VmHWM:").ok_or("no VmHWM")?))
    }
}

/// A framed, strict-binary `sayHello` call.
fn framed_call(seqid: i32, name: String) -> Vec<u8> {
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: name.into(), message: Default::default() } };
    let mut body = Vec::new();
    Message::new(MessageHeader { name: "sayHello", kind: MessageType::Call, seqid }, &args)
        .encode::<Binary, _>(&mut body);
    let mut framed = (body.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&body);
    framed
}

async fn connect(addr: SocketAddr) -> Result<TcpStream, String> {
    TcpStream::connect(addr).await.map_err(|e| format!("connecting to the server: {e}"))
}

async fn measure(cli: &Cli) -> Result<bool, String> {
    let needed = 2 * (cli.idle + cli.slowloris + cli.non_reading + cli.stalled) + 256;
    check_open_files(needed)?;
    let (server, addr) = ServerProcess::start(cli)?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (baseline, _) = server.memory()?;
    let until = Instant::now() + cli.duration;
    let stop = Arc::new(AtomicBool::new(false));

    // The good client, from the start to the end.
    let (ok, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let pool = Pool::new([addr], PoolConfig::default());
    let good: Vec<_> = (0..8)
        .map(|c| {
            let client = hello_service::Client::new(pool.clone());
            let (ok, failed, stop) = (ok.clone(), failed.clone(), stop.clone());
            tokio::spawn(async move {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let name = format!("good {c}.{n}");
                    match client
                        .say_hello(HelloRequest { name: name.clone().into(), message: Default::default() })
                        .await
                    {
                        Ok(reply) if reply.name == name => ok.fetch_add(1, Ordering::Relaxed),
                        _ => failed.fetch_add(1, Ordering::Relaxed),
                    };
                    n += 1;
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            })
        })
        .collect();

    let mut held = Vec::new();
    for _ in 0..cli.idle {
        held.push(connect(addr).await?);
    }
    let mut peers = Vec::new();
    for _ in 0..cli.slowloris {
        let mut stream = connect(addr).await?;
        let stop = stop.clone();
        peers.push(tokio::spawn(async move {
            let call = framed_call(1, "slow".into());
            for byte in call {
                if stop.load(Ordering::Relaxed) || stream.write_all(&[byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }));
    }
    for _ in 0..cli.non_reading {
        let mut stream = connect(addr).await?;
        let stop = stop.clone();
        peers.push(tokio::spawn(async move {
            let call = framed_call(1, "x".repeat(256 * 1024));
            while !stop.load(Ordering::Relaxed) && stream.write_all(&call).await.is_ok() {}
            let _keep_open = stream;
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    for _ in 0..cli.stalled {
        let mut stream = connect(addr).await?;
        let mut head = framed_call(1, "stalled".into());
        head[..4].copy_from_slice(&16_000_000u32.to_be_bytes());
        head.resize(1 << 20, b'x');
        // The server may turn it away (past its receiving budget): then it is closed.
        let _ = stream.write_all(&head).await;
        held.push(stream);
    }

    let mut peak = 0;
    while Instant::now() < until {
        peak = peak.max(server.memory()?.0);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, hwm) = server.memory()?;
    stop.store(true, Ordering::Relaxed);
    for task in good {
        let _ = task.await;
    }
    for peer in peers {
        peer.abort();
    }
    drop(held);
    drop(server);

    let bound = BASE_BOUND + (cli.non_reading * cli.max_pending_bytes + cli.max_receiving_bytes) as u64;
    let (ok, failed) = (ok.load(Ordering::Relaxed), failed.load(Ordering::Relaxed));
    let success = ok as f64 / (ok + failed).max(1) as f64;
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "peers: {} idle, {} slowloris, {} non-reading, {} stalled large frames, for {:?}",
        cli.idle, cli.slowloris, cli.non_reading, cli.stalled, cli.duration
    );
    println!(
        "server budgets: max_pending_bytes_per_connection {} B, max_receiving_bytes {} B",
        cli.max_pending_bytes, cli.max_receiving_bytes
    );
    println!(
        "server RSS: {:.1} MiB before the peers, {:.1} MiB peak sampled, {:.1} MiB VmHWM; bound {:.1} MiB",
        mib(baseline),
        mib(peak),
        mib(hwm),
        mib(bound)
    );
    println!("good client: {ok} ok, {failed} failed ({:.2}% success)", success * 100.0);
    let within_bound = hwm <= bound;
    let served = success >= 0.99 && ok > 0;
    println!("{}", if within_bound && served { "PASS" } else { "FAIL" });
    Ok(within_bound && served)
}

/// Fails with a message when the process may not open enough sockets.
fn check_open_files(needed: usize) -> Result<(), String> {
    let limits = std::fs::read_to_string("/proc/self/limits").map_err(|e| format!("/proc/self/limits: {e}"))?;
    let soft = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse::<usize>().ok());
    match soft {
        Some(soft) if soft < needed => {
            Err(format!("needs about {needed} open files, the limit is {soft}: raise it with `ulimit -n {needed}`"))
        }
        _ => Ok(()),
    }
}
