//! Running the cells: each strategy set up and driven in turn, with a progress bar, against
//! a server given by address or one started in-process on a runtime of its own.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use thrift_net::http::{serve_http, serve_https, HttpService};
use thrift_net::tls::ClientTls;
use thrift_net::{ClientConfig, Server, ServerHandle};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

use crate::drive::{drive, Failure, Load, Stats, Timing};
use crate::hello::{hello_service, Greeter, HelloRequest};
use crate::options::{Options, Payload, Strategy};
use crate::report::{CellResult, Report, RunInfo};
use crate::strategy::Caller;
use crate::tls::RunTls;

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
    /// TLS for every connection; plain TCP when `None`.
    pub tls: Option<ClientTls>,
    /// Calls go over HTTP POST.
    pub http: bool,
}

impl CellSettings {
    /// The settings the command line asks for.
    pub fn from_options(options: &Options, tls: Option<&RunTls>) -> Self {
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
            tls: tls.map(|t| t.client.clone()),
            http: options.transport.is_http(),
        }
    }
}

/// One strategy's caller and the request it sends: a [`Load`].
struct StrategyLoad {
    caller: Caller,
    request: HelloRequest,
    strategy: Strategy,
    max_connections: u64,
}

impl Load for StrategyLoad {
    type Session = ();

    async fn session(&self) -> Result<(), Failure> {
        Ok(())
    }

    async fn call(&self, _: &mut ()) -> Result<(), Failure> {
        self.caller.call(&self.request).await
    }

    fn exhausted(&self) -> bool {
        self.strategy == Strategy::PerCall && self.caller.connections_opened() >= self.max_connections
    }
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
    let mut result =
        CellResult { strategy, concurrency, stats: Stats::default(), connections_opened: 0, capped: false };
    let client = settings.client.clone();
    let caller =
        Caller::new(strategy, addr, client, settings.tls.clone(), concurrency, settings.pool_size, settings.http);
    let caller = match caller.await {
        Ok(caller) => caller,
        Err(failure) => {
            result.stats.errors.insert(format!("setup: {}", failure.kind), 1);
            return result;
        }
    };
    let request = HelloRequest { name: "Jonny".into(), message: settings.payload.message().into() };
    let load = Arc::new(StrategyLoad { caller, request, strategy, max_connections: settings.max_connections });
    let timing = Timing {
        duration: settings.duration,
        warmup: settings.warmup,
        call_bound: settings.client.call_timeout.unwrap_or(Duration::from_secs(30)),
    };
    let (stats, capped) = drive(load.clone(), concurrency, timing, live).await;
    result.stats = stats;
    result.capped = capped;
    result.connections_opened = load.caller.connections_opened();
    load.caller.close();
    result
}

/// Starts the HelloService server on `addr` on the current runtime, with room for every
/// caller of the per-call strategy and idle timeouts longer than any cell.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn start_server(addr: SocketAddr) -> io::Result<ServerHandle> {
    loadtest_server().bind(addr, hello_service::Server::new(Greeter)).await
}

/// [`start_server`] over TLS, presenting `tls`.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn start_tls_server(
    addr: SocketAddr,
    tls: Arc<thrift_net::tls::rustls::ServerConfig>,
) -> io::Result<ServerHandle> {
    loadtest_server().bind_tls(addr, tls, hello_service::Server::new(Greeter)).await
}

/// The in-process server: Thrift's own, or HelloService over HTTP.
enum InProcess {
    Thrift(ServerHandle),
    Http { stop: oneshot::Sender<()>, served: tokio::task::JoinHandle<()> },
}

impl InProcess {
    /// Starts the server `options` ask for on 127.0.0.1, on the current runtime.
    async fn start(options: &Options, tls: Option<&RunTls>) -> io::Result<(InProcess, SocketAddr)> {
        let local = SocketAddr::from(([127, 0, 0, 1], 0));
        if !options.transport.is_http() {
            let handle = match tls {
                Some(tls) => start_tls_server(local, tls.server.clone()).await?,
                None => start_server(local).await?,
            };
            let addr = handle.local_addr();
            return Ok((InProcess::Thrift(handle), addr));
        }
        let listener = tokio::net::TcpListener::bind(local).await?;
        let addr = listener.local_addr()?;
        let service = HttpService::new(hello_service::Server::new(Greeter));
        let (stop, stopped) = oneshot::channel::<()>();
        let stopped = async {
            let _ = stopped.await;
        };
        let served = match tls {
            Some(tls) => tokio::spawn(serve_https(listener, tls.server.clone(), service, stopped, SHUTDOWN_GRACE)),
            None => tokio::spawn(serve_http(listener, service, stopped, SHUTDOWN_GRACE)),
        };
        Ok((InProcess::Http { stop, served }, addr))
    }

    async fn shutdown(self) {
        match self {
            InProcess::Thrift(handle) => drop(handle.shutdown(SHUTDOWN_GRACE).await),
            InProcess::Http { stop, served } => {
                let _ = stop.send(());
                let _ = served.await;
            }
        }
    }
}

/// How long the in-process server gives calls in flight when the run ends.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The server's settings: room for every caller of the per-call strategy.
fn loadtest_server() -> Server {
    Server::builder().max_connections(100_000).max_in_flight_per_connection(4096).build()
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
    let tls = if options.tls { Some(RunTls::generate()?) } else { None };
    let settings = CellSettings::from_options(options, tls.as_ref());
    let client_rt = runtime(options.client_threads, "loadtest-client").map_err(|e| format!("client runtime: {e}"))?;

    let mut server: Option<(Runtime, InProcess)> = None;
    let addr = match &options.addr {
        Some(addr) => client_rt
            .block_on(tokio::net::lookup_host(addr.as_str()))
            .map_err(|e| format!("--addr {addr}: {e}"))?
            .next()
            .ok_or_else(|| format!("--addr {addr}: no address"))?,
        None => {
            let server_rt =
                runtime(options.server_threads, "loadtest-server").map_err(|e| format!("server runtime: {e}"))?;
            let (started, addr) = server_rt
                .block_on(InProcess::start(options, tls.as_ref()))
                .map_err(|e| format!("starting the server: {e}"))?;
            server = Some((server_rt, started));
            addr
        }
    };

    // HTTP/1.1 has no pipelining: that strategy is left out, saying so.
    let strategies: Vec<Strategy> =
        options.strategies.iter().copied().filter(|&s| !(settings.http && s == Strategy::Pipelined)).collect();
    let cells: Vec<(Strategy, usize)> =
        strategies.iter().flat_map(|&s| options.concurrency.iter().map(move |&c| (s, c))).collect();
    let progress = progress_bar(options, cells.len());
    if strategies.len() < options.strategies.len() && !options.quiet {
        eprintln!("pipelined: not run over HTTP (HTTP/1.1 answers one call per connection at a time)");
    }
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
            cell.stats.qps,
            cell.stats.p99_us,
            cell.stats.error_count()
        ));
        results.push(cell);
    }
    progress.finish_and_clear();

    if let Some((server_rt, started)) = server {
        server_rt.block_on(started.shutdown());
    }
    let run = RunInfo {
        target: options.addr.clone().unwrap_or_else(|| match options.tls {
            true => format!("in-process server {addr} over TLS"),
            false => format!("in-process server {addr}"),
        }),
        tls: options.tls,
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
