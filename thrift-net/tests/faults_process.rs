//! Faults injected into servers running in other processes, so they can be killed
//! (`SIGKILL`), frozen (`SIGSTOP`) and stopped gracefully (`SIGTERM`) as real deployments
//! are. Each server process is this test binary run again on the ignored `child_server`
//! test, on 127.0.0.1; every run is bounded in time and every process is killed when its
//! test ends. Assertions are on outcomes and counts, never on how fast something went.

#[path = "common/hello.rs"]
mod hello;

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hello::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use thrift_net::{CallError, Client, ClientConfig, Pool, PoolConfig, Server};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

/// Set in a child's environment: the port its server binds (0 for any).
const CHILD_PORT: &str = "THRIFT_FAULT_CHILD_PORT";

/// The server process the other tests start; not a test of its own.
#[test]
#[ignore = "the server process of the fault tests: they run it with --ignored"]
fn child_server() {
    let port: u16 = std::env::var(CHILD_PORT)
        .expect("run by the fault tests, which set THRIFT_FAULT_CHILD_PORT")
        .parse()
        .expect("a port number");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).unwrap();
        let greeter = Greeter::default();
        let server = Server::builder().read_idle_timeout(Duration::from_secs(30)).build();
        let handle = server
            .bind(("127.0.0.1", port), hello_service::Server::new(greeter.clone()))
            .await
            .expect("bind 127.0.0.1");
        println!("listening {}", handle.local_addr().port());
        term.recv().await;
        let shutdown = handle.shutdown(Duration::from_secs(5)).await;
        let m = handle.metrics();
        println!("drained {shutdown:?} finished={} refused={}", greeter.finished(), m.requests_refused);
    });
}

/// A server in a child process.
struct ChildServer {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    addr: SocketAddr,
}

impl ChildServer {
    /// Starts a server process on `port` (0: any) and waits until it listens.
    async fn start(port: u16) -> ChildServer {
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut child = Command::new(exe)
            .args(["--ignored", "--exact", "child_server", "--nocapture", "--test-threads=1"])
            .env(CHILD_PORT, port.to_string())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the server process");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = after_marker(&mut lines, "listening ").await.trim().parse::<u16>().unwrap();
        ChildServer { child, lines, addr: SocketAddr::from(([127, 0, 0, 1], port)) }
    }

    fn signal(&self, signal: Signal) {
        let pid = self.child.id().expect("the server process runs");
        kill(Pid::from_raw(pid as i32), signal).unwrap_or_else(|e| panic!("kill({pid}, {signal}): {e}"));
    }

    /// Kills the process at once (as a crash does) and reaps it.
    async fn kill(mut self) {
        self.child.start_kill().unwrap();
        within(self.child.wait()).await.unwrap();
    }

    /// Stops the server gracefully and returns the handlers it completed and the requests it
    /// refused as it shut down.
    async fn terminate(mut self) -> (usize, usize) {
        self.signal(Signal::SIGTERM);
        let report = after_marker(&mut self.lines, "drained ").await;
        within(self.child.wait()).await.unwrap();
        assert!(report.starts_with("Graceful"), "{report}");
        let field = |name: &str| -> usize {
            let at = report.find(name).unwrap_or_else(|| panic!("{name} in {report}")) + name.len();
            report[at..].split(' ').next().unwrap().parse().unwrap()
        };
        (field("finished="), field("refused="))
    }
}

/// What follows `marker` on the next output line that holds it (libtest may have begun the
/// line with the test's name).
async fn after_marker(lines: &mut Lines<BufReader<ChildStdout>>, marker: &str) -> String {
    within(async {
        loop {
            let line = lines
                .next_line()
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("the server process ended before {marker:?}"));
            if let Some((_, rest)) = line.split_once(marker) {
                break rest.to_string();
            }
        }
    })
    .await
}

/// The pool settings of these tests: short timeouts and backoffs, so faults show quickly.
fn fast_pool() -> PoolConfig {
    PoolConfig::default()
        .with_client(
            ClientConfig::default()
                .with_call_timeout(Duration::from_millis(500))
                .with_connect_timeout(Duration::from_millis(500)),
        )
        .with_eject_backoff(Duration::from_millis(20))
        .with_max_eject_backoff(Duration::from_millis(200))
}

/// What the callers of a run saw.
#[derive(Debug, Default)]
struct Tally {
    ok: AtomicUsize,
    failed: AtomicUsize,
    errors: Mutex<Vec<String>>,
}

impl Tally {
    /// Records one call's outcome; a reply must be the one for this call's `name`.
    fn record(&self, name: &str, result: Result<HelloResponse, CallError<HelloError>>) {
        match result {
            Ok(reply) => {
                assert_eq!(reply.message, format!("hello, {name}"), "a caller got another call's reply");
                self.ok.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let mut errors = self.errors.lock().unwrap();
                if errors.len() < 8 {
                    errors.push(e.to_string());
                }
            }
        }
    }

    fn counts(&self) -> (usize, usize) {
        (self.ok.load(Ordering::Relaxed), self.failed.load(Ordering::Relaxed))
    }
}

/// `callers` tasks calling `say_hello` through `client` until `until`.
fn load(
    client: &hello_service::Client<Pool>,
    callers: usize,
    until: Instant,
    tally: &Arc<Tally>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..callers)
        .map(|c| {
            let (client, tally) = (client.clone(), tally.clone());
            tokio::spawn(async move {
                let mut n = 0;
                while Instant::now() < until {
                    let name = format!("{c}.{n}");
                    let result = within(client.say_hello(HelloRequest { name: name.clone() })).await;
                    tally.record(&name, result);
                    n += 1;
                }
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_killed_under_load_hand_no_caller_another_callers_reply_and_the_pool_recovers() {
    let mut a = ChildServer::start(0).await;
    let b = ChildServer::start(0).await;
    let (addr_a, addr_b) = (a.addr, b.addr);
    let pool = Pool::new([addr_a, addr_b], fast_pool());
    let client = hello_service::Client::new(pool.clone());
    let tally = Arc::new(Tally::default());
    let callers = load(&client, 32, Instant::now() + Duration::from_secs(4), &tally);

    // Kill one server every 500 ms and bring it back on its port 200 ms later.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        a.kill().await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        a = ChildServer::start(addr_a.port()).await;
    }
    for caller in callers {
        within(caller).await.expect("a caller panicked (see the message above)");
    }
    let (ok, failed) = tally.counts();
    let errors = tally.errors.lock().unwrap().clone();
    eprintln!("3 kills under 32 callers: {ok} ok, {failed} failed, first errors {errors:?}");
    assert!(ok > 0, "calls succeeded while servers died: {ok} ok, {failed} failed");

    // Every endpoint is back: every call succeeds again (ejected ones are probed).
    let after = Arc::new(Tally::default());
    for caller in load(&client, 8, Instant::now() + Duration::from_millis(500), &after) {
        within(caller).await.unwrap();
    }
    let (ok_after, failed_after) = after.counts();
    let errors = after.errors.lock().unwrap().clone();
    assert!(ok_after > 0 && failed_after == 0, "after recovery: {ok_after} ok, {failed_after} failed: {errors:?}");
    drop((a, b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_server_is_ejected_after_a_few_timeouts_and_readmitted_when_thawed() {
    let frozen = ChildServer::start(0).await;
    let healthy = ChildServer::start(0).await;
    const EJECT_AFTER: u32 = 3;
    let config = fast_pool().with_eject_after_failures(EJECT_AFTER);
    let pool = Pool::new([frozen.addr, healthy.addr], config);
    let client = hello_service::Client::new(pool.clone());
    let warm = Arc::new(Tally::default());
    for caller in load(&client, 4, Instant::now() + Duration::from_millis(200), &warm) {
        within(caller).await.unwrap();
    }
    assert_eq!(warm.counts().1, 0, "both servers answer before the freeze");

    frozen.signal(Signal::SIGSTOP);
    let tally = Arc::new(Tally::default());
    const CALLERS: usize = 8;
    for caller in load(&client, CALLERS, Instant::now() + Duration::from_secs(3), &tally) {
        within(caller).await.unwrap();
    }
    let (ok, failed) = tally.counts();
    let at_frozen = *pool.metrics().iter().find(|m| m.addr == frozen.addr).unwrap();
    // Calls fail only on the frozen server: those in flight when it froze, the few that
    // trip the ejection, and one probe per ejection.
    let bound = CALLERS as u64 + u64::from(EJECT_AFTER) + at_frozen.ejections;
    eprintln!("frozen 3 s under {CALLERS} callers: {ok} ok, {failed} failed (bound {bound}), {at_frozen:?}");
    assert!(at_frozen.ejections >= 1, "the frozen server was ejected: {at_frozen:?}");
    assert!(failed as u64 <= bound, "{failed} calls failed (bound {bound}), {ok} succeeded: {at_frozen:?}");
    assert!(ok >= 99 * (ok + failed) / 100, "at least 99% succeed: {ok} ok, {failed} failed");

    frozen.signal(Signal::SIGCONT);
    let deadline = Instant::now() + DEADLINE;
    loop {
        let after = Arc::new(Tally::default());
        for caller in load(&client, 4, Instant::now() + Duration::from_millis(200), &after) {
            within(caller).await.unwrap();
        }
        let at_frozen = *pool.metrics().iter().find(|m| m.addr == frozen.addr).unwrap();
        if !at_frozen.ejected && after.counts().1 == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "the thawed server was never readmitted: {at_frozen:?}");
    }
    drop((frozen, healthy));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopped_gracefully_under_load_delivers_every_completed_reply_in_20_runs() {
    for run in 0..20 {
        let server = ChildServer::start(0).await;
        let client = within(Client::connect(server.addr, ClientConfig::default())).await.unwrap();
        let client = hello_service::Client::new(client);
        // 64 callers, each making 100 ms calls one after another until the server refuses
        // one: the shutdown finds some calls running and others arriving.
        let callers: Vec<_> = (0..64)
            .map(|c| {
                let client = client.clone();
                tokio::spawn(async move {
                    let (mut ok, mut other) = (0, Vec::new());
                    for n in 0.. {
                        let name = format!("{c}.{n}");
                        match within(client.slow_hello(name.clone(), 100)).await {
                            Ok(reply) => {
                                assert_eq!(reply, format!("hello, {name}"), "a caller got another call's reply");
                                ok += 1;
                            }
                            Err(e) if e.is_retry_safe() => break,
                            Err(e) => {
                                other.push(e.to_string());
                                break;
                            }
                        }
                    }
                    (ok, other)
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(150 + 10 * run)).await;
        let (finished, refused) = server.terminate().await;
        let (mut ok, mut other) = (0, Vec::new());
        for caller in callers {
            let (n, errors) = within(caller).await.unwrap();
            ok += n;
            other.extend(errors);
        }
        eprintln!("graceful run {run}: {ok} replies, {finished} handlers completed, {refused} refused");
        assert_eq!(ok, finished, "run {run}: every completed handler's reply arrived");
        assert!(other.is_empty(), "run {run}: calls failed without being safe to retry: {other:?}");
    }
}
