//! Running the cells: callers as tokio tasks, a warm-up, a measured window, a histogram per
//! task merged at the end, and the in-process server on a runtime of its own.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use thrift_net::{ClientConfig, Server, ServerHandle};
use tokio::runtime::Runtime;
use tokio::task::JoinSet;

use crate::hello::{Greeter, HelloRequest, HelloServiceServer};
use crate::options::{Options, Payload, Strategy};
use crate::report::{CellResult, Report, RunInfo};
use crate::strategy::Caller;

/// The slowest latency the histograms hold, in µs; slower calls are recorded as this.
const MAX_LATENCY_US: u64 = 120_000_000;
/// How often the progress bar is refreshed.
const TICK: Duration = Duration::from_millis(200);

/// How each cell runs, whatever its strategy and concurrency.
#[derive(Clone, Debug)]
pub struct CellSettings {
    /// The whole cell, warm-up included.
    pub duration: Duration,
    /// The unmeasured start.
    pub warmup: Duration,
    /// Request size.
    pub payload: Payload,
    /// Each connection's settings.
    pub client: ClientConfig,
    /// The pool's `max_total`; the concurrency when `None`.
    pub pool_size: Option<usize>,
    /// Connections the per-call strategy may open in one cell.
    pub max_connections: u64,
}

impl CellSettings {
    /// The settings the command line asks for.
    pub fn from_options(options: &Options) -> Self {
        let mut client = options.client_config();
        // A connection that takes longer than a call may is as failed as the call.
        client.connect_timeout = client.call_timeout;
        CellSettings {
            duration: options.duration,
            warmup: options.warmup,
            payload: options.payload,
            client,
            pool_size: options.pool_size,
            max_connections: options.max_connections,
        }
    }
}

/// What one caller task measured.
struct TaskOutcome {
    latencies: Histogram<u64>,
    errors: BTreeMap<String, u64>,
    last_done: Option<Instant>,
}

fn histogram() -> Histogram<u64> {
    // Three significant figures from 1 µs to two minutes: a few tens of KB.
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("constant, valid histogram bounds")
}

/// Runs `strategy` with `concurrency` callers against `addr` for the cell's duration and
/// measures it. `live` counts correct calls as they complete, for a progress display.
pub async fn run_cell(
    addr: SocketAddr,
    strategy: Strategy,
    concurrency: usize,
    settings: &CellSettings,
    live: Arc<AtomicU64>,
) -> CellResult {
    let mut result = CellResult {
        strategy,
        concurrency,
        calls: 0,
        seconds: 0.0,
        qps: 0.0,
        p50_us: 0,
        p99_us: 0,
        p999_us: 0,
        max_us: 0,
        errors: BTreeMap::new(),
        connections_opened: 0,
        capped: false,
    };
    let caller = match Caller::new(strategy, addr, settings.client.clone(), concurrency, settings.pool_size).await {
        Ok(caller) => Arc::new(caller),
        Err(failure) => {
            result.errors.insert(format!("setup: {}", failure.kind), 1);
            return result;
        }
    };
    let request = HelloRequest { name: "Jonny".into(), message: settings.payload.message() };
    let started = Instant::now();
    let measure_from = started + settings.warmup;
    let end = started + settings.duration;

    let mut tasks = JoinSet::new();
    for _ in 0..concurrency {
        let (caller, request, live) = (caller.clone(), request.clone(), live.clone());
        let cap = settings.max_connections;
        tasks.spawn(async move {
            let mut out = TaskOutcome { latencies: histogram(), errors: BTreeMap::new(), last_done: None };
            let mut capped = false;
            loop {
                if strategy == Strategy::PerCall && caller.connections_opened() >= cap {
                    capped = true;
                    break;
                }
                let sent = Instant::now();
                if sent >= end {
                    break;
                }
                let outcome = caller.call(&request).await;
                let done = Instant::now();
                if done > end {
                    break;
                }
                let measured = done >= measure_from;
                match outcome {
                    Ok(()) if measured => {
                        let us = (done - sent).as_micros().min(u128::from(MAX_LATENCY_US)) as u64;
                        out.latencies.saturating_record(us.max(1));
                        out.last_done = Some(done);
                        live.fetch_add(1, Relaxed);
                    }
                    Ok(()) => {}
                    Err(failure) => {
                        if measured {
                            *out.errors.entry(failure.kind).or_insert(0) += 1;
                            out.last_done = Some(done);
                        }
                        // Out of ports or refused: don't spin on the error.
                        if failure.connecting {
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                    }
                }
            }
            (out, capped)
        });
    }

    // Every task stops at `end` but for one call, which its timeouts bound; past that
    // (twice over, for connect plus call), the stragglers are abandoned.
    let call_bound = settings.client.call_timeout.unwrap_or(Duration::from_secs(30));
    let give_up = end + call_bound * 2 + Duration::from_secs(1);
    let mut latencies = histogram();
    let mut last_done: Option<Instant> = None;
    loop {
        let next = tokio::time::timeout_at(give_up.into(), tasks.join_next()).await;
        match next {
            Ok(Some(Ok((out, capped)))) => {
                // Same bounds on both sides: adding cannot fail.
                let _ = latencies.add(&out.latencies);
                for (kind, n) in out.errors {
                    *result.errors.entry(kind).or_insert(0) += n;
                }
                last_done = last_done.max(out.last_done);
                result.capped |= capped;
            }
            Ok(Some(Err(e))) => {
                *result.errors.entry(format!("caller task: {e}")).or_insert(0) += 1;
            }
            Ok(None) => break,
            Err(_) => {
                let stuck = tasks.len() as u64;
                tasks.abort_all();
                *result.errors.entry("stuck past the call timeout".into()).or_insert(0) += stuck;
                break;
            }
        }
    }

    // A capped cell ran until its last completed call, not to the end of its time.
    let measured_until = match (result.capped, last_done) {
        (true, Some(t)) => t.min(end),
        _ => end,
    };
    let seconds = measured_until.saturating_duration_since(measure_from).as_secs_f64();
    result.calls = latencies.len();
    result.seconds = seconds;
    result.qps = if seconds > 0.0 { result.calls as f64 / seconds } else { 0.0 };
    if result.calls > 0 {
        result.p50_us = latencies.value_at_quantile(0.50);
        result.p99_us = latencies.value_at_quantile(0.99);
        result.p999_us = latencies.value_at_quantile(0.999);
        result.max_us = latencies.max();
    }
    result.connections_opened = caller.connections_opened();
    caller.close();
    result
}

/// Starts the HelloService server on `addr` on the current runtime, with room for every
/// caller of the per-call strategy and idle timeouts longer than any cell.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn start_server(addr: SocketAddr) -> io::Result<ServerHandle> {
    let server = Server::builder().max_connections(100_000).max_in_flight_per_connection(4096).build();
    server.bind(addr, HelloServiceServer::new(Greeter)).await
}

fn runtime(threads: Option<usize>, name: &str) -> io::Result<Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = threads {
        builder.worker_threads(n.max(1));
    }
    builder.thread_name(name).enable_all().build()
}

/// Serves HelloService on `addr` until the process is killed or `serve_for` passes.
///
/// # Errors
/// When the runtime cannot start or `addr` cannot be bound.
pub fn serve(addr: SocketAddr, serve_for: Option<Duration>, threads: Option<usize>) -> io::Result<()> {
    let rt = runtime(threads, "hello-server")?;
    rt.block_on(async {
        let handle = start_server(addr).await?;
        eprintln!("serving HelloService on {}", handle.local_addr());
        match serve_for {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending::<()>().await,
        }
        handle.shutdown(Duration::from_secs(1)).await;
        Ok(())
    })
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs every strategy × concurrency cell the options ask for, against `--addr` or a server
/// started here, with a progress bar on stderr (unless `--quiet`, or stderr is no terminal).
///
/// # Errors
/// A message when the options are inconsistent, the address does not resolve, or the
/// server cannot start.
pub fn run(options: &Options) -> Result<Report, String> {
    options.validate()?;
    let settings = CellSettings::from_options(options);
    let client_rt = runtime(options.client_threads, "loadtest-client").map_err(|e| format!("client runtime: {e}"))?;

    let mut server: Option<(Runtime, ServerHandle)> = None;
    let addr = match &options.addr {
        Some(addr) => client_rt
            .block_on(tokio::net::lookup_host(addr.as_str()))
            .map_err(|e| format!("--addr {addr}: {e}"))?
            .next()
            .ok_or_else(|| format!("--addr {addr}: no address"))?,
        None => {
            let server_rt =
                runtime(options.server_threads, "loadtest-server").map_err(|e| format!("server runtime: {e}"))?;
            let handle = server_rt
                .block_on(start_server(SocketAddr::from(([127, 0, 0, 1], 0))))
                .map_err(|e| format!("starting the server: {e}"))?;
            let addr = handle.local_addr();
            server = Some((server_rt, handle));
            addr
        }
    };

    let cells: Vec<(Strategy, usize)> =
        options.strategies.iter().flat_map(|&s| options.concurrency.iter().map(move |&c| (s, c))).collect();
    let progress = progress_bar(options, cells.len());
    let mut results = Vec::with_capacity(cells.len());
    for (i, &(strategy, concurrency)) in cells.iter().enumerate() {
        let live = Arc::new(AtomicU64::new(0));
        let label = format!("{} × {concurrency}", strategy.name());
        let cell = client_rt.block_on(async {
            let ticker = {
                let (progress, live, label) = (progress.clone(), live.clone(), label.clone());
                let base = i as u64 * settings.duration.as_millis() as u64;
                let started = Instant::now();
                tokio::spawn(async move {
                    let mut interval = tokio::time::interval(TICK);
                    loop {
                        interval.tick().await;
                        let elapsed = started.elapsed();
                        progress.set_position(base + elapsed.as_millis() as u64);
                        let rate = live.load(Relaxed) as f64 / elapsed.as_secs_f64().max(1e-3);
                        progress.set_message(format!("{label}: {rate:.0} calls/s"));
                    }
                })
            };
            let result = run_cell(addr, strategy, concurrency, &settings, live).await;
            ticker.abort();
            result
        });
        progress.println(format!(
            "{label}: {:.0} QPS, p99 {} µs, {} errors",
            cell.qps,
            cell.p99_us,
            cell.error_count()
        ));
        results.push(cell);
    }
    progress.finish_and_clear();

    if let Some((server_rt, handle)) = server {
        server_rt.block_on(handle.shutdown(Duration::from_secs(2)));
    }
    let run = RunInfo {
        target: options.addr.clone().unwrap_or_else(|| format!("in-process server {addr}")),
        duration_s: options.duration.as_secs_f64(),
        warmup_s: options.warmup.as_secs_f64(),
        payload: options.payload,
        transport: options.transport,
        protocol: options.protocol,
        cores: cores(),
    };
    Ok(Report { run, cells: results })
}

fn progress_bar(options: &Options, cells: usize) -> ProgressBar {
    let total_ms = cells as u64 * options.duration.as_millis() as u64;
    let target = if options.quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(Some(total_ms), target);
    let style = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {percent:>3}% {msg}")
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}
