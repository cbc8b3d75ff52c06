//! Faults found by fault injection, each reproduced on 127.0.0.1 with a bounded run: a
//! stuck first connection under a shared-mode pool, a frozen endpoint, graceful shutdown
//! under load, a peer that never reads its replies, and replies that do not match their call.
//! Assertions are on counts and outcomes, never on how fast something went.

#[path = "common/hello.rs"]
mod hello;
#[path = "common/pool.rs"]
mod pool;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hello::*;
use pool::*;
use thrift_net::pool::Mode;
use thrift_net::{ClientConfig, Pool, PoolConfig, Server};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// A front on 127.0.0.1 whose first connection is accepted and read but never answered;
/// every later connection is passed through to a real server. The shape of a server whose
/// first connection wedged.
async fn stuck_first_connection() -> (std::net::SocketAddr, hello::Greeter, thrift_net::ServerHandle) {
    let (real, greeter) = serve_on(any_port(), &Server::new());
    let backend = real.local_addr();
    let front = listen(any_port());
    let addr = front.local_addr().unwrap();
    tokio::spawn(async move {
        let mut first = true;
        while let Ok((mut peer, _)) = front.accept().await {
            if std::mem::take(&mut first) {
                tokio::spawn(async move {
                    let mut sink = [0u8; 4096];
                    while matches!(peer.read(&mut sink).await, Ok(n) if n > 0) {}
                });
                continue;
            }
            tokio::spawn(async move {
                if let Ok(mut server) = TcpStream::connect(backend).await {
                    let _ = tokio::io::copy_bidirectional(&mut peer, &mut server).await;
                }
            });
        }
    });
    (addr, greeter, real)
}

/// Scenario 2: a shared-mode pool whose only connection never answers must give it up and
/// open another, not lend it to every later call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_pool_replaces_a_stuck_connection() {
    let (addr, _greeter, _real) = stuck_first_connection().await;
    let config = PoolConfig::default()
        .with_mode(Mode::Shared { connections: 1 })
        .with_client(ClientConfig::default().with_call_timeout(Duration::from_millis(300)));
    let pool = Pool::new([addr], config);
    let client = hello_service::Client::new(pool.clone());
    let ok = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let callers = (0..16).map(|i| {
        let (client, ok, failed) = (client.clone(), ok.clone(), failed.clone());
        tokio::spawn(async move {
            for j in 0..100 {
                match client.say_hello(HelloRequest { name: format!("{i}.{j}") }).await {
                    Ok(reply) => {
                        assert_eq!(reply.message, format!("hello, {i}.{j}"), "a reply for this call");
                        ok.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(_) => drop(failed.fetch_add(1, Ordering::Relaxed)),
                }
            }
        })
    });
    for caller in within(futures_join_all(callers)).await {
        caller.unwrap();
    }
    let (ok, failed) = (ok.load(Ordering::Relaxed), failed.load(Ordering::Relaxed));
    let m = pool.metrics()[0];
    // Only the calls that were on the stuck connection when it wedged may fail: at most one
    // per caller.
    assert!(failed <= 16 && ok >= 1584, "{ok} succeeded, {failed} failed: {m:?}");
    assert!(m.created >= 2, "a second connection was opened: {m:?}");
}

/// What the callers of one graceful-shutdown run saw.
#[derive(Debug, Default)]
struct Outcomes {
    ok: usize,
    retry_safe: usize,
    other: Vec<String>,
}

/// 64 callers keep `client` busy with 100 ms calls; the server shuts down gracefully while
/// they run. Returns what the callers saw and how many handlers completed.
async fn shutdown_under_load<C>(
    handle: &thrift_net::ServerHandle,
    greeter: &Greeter,
    client: hello_service::Client<C>,
) -> (Outcomes, usize)
where
    C: thrift_net::Channel + Clone + 'static,
{
    let mut callers = tokio::task::JoinSet::new();
    for i in 0..64 {
        let client = client.clone();
        callers.spawn(async move {
            let mut seen = Outcomes::default();
            for j in 0.. {
                match client.slow_hello(format!("{i}.{j}"), 100).await {
                    Ok(reply) => {
                        assert_eq!(reply, format!("hello, {i}.{j}"), "a reply for this call");
                        seen.ok += 1;
                    }
                    Err(e) if e.is_retry_safe() => {
                        seen.retry_safe += 1;
                        return seen;
                    }
                    Err(e) => {
                        seen.other.push(format!("{e:?}"));
                        return seen;
                    }
                }
            }
            seen
        });
    }
    eventually("every caller's call running", || greeter.0.running.load(Ordering::SeqCst) == 64).await;
    let outcome = within(handle.shutdown(Duration::from_secs(5))).await;
    assert!(outcome.is_graceful(), "the 100 ms calls finish within 5 s");
    let mut all = Outcomes::default();
    while let Some(joined) = within(callers.join_next()).await {
        let seen = joined.expect("no caller panicked");
        all.ok += seen.ok;
        all.retry_safe += seen.retry_safe;
        all.other.extend(seen.other);
    }
    (all, greeter.finished())
}

/// Scenario 1: a graceful shutdown delivers the reply of every handler that completed, and
/// every call that did not run fails as safe to retry, over a pipelined client and over
/// pools in both modes; 20 runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_under_load_loses_no_completed_reply() {
    let long = ClientConfig::default().with_call_timeout(Duration::from_secs(10));
    for run in 0..20 {
        let (handle, greeter) = serve_on(any_port(), &Server::new());
        let addr = handle.local_addr();
        let (seen, completed) = match run % 3 {
            0 => {
                let client =
                    hello_service::Client::new(within(thrift_net::Client::connect(addr, long.clone())).await.unwrap());
                shutdown_under_load(&handle, &greeter, client).await
            }
            mode => {
                let mode = if mode == 1 { Mode::Shared { connections: 2 } } else { Mode::Exclusive };
                let config = PoolConfig::default().with_mode(mode).with_max_total(64).with_client(long.clone());
                shutdown_under_load(&handle, &greeter, hello_service::Client::new(Pool::new([addr], config))).await
            }
        };
        assert_eq!(seen.ok, completed, "run {run}: every completed handler's reply was delivered: {seen:?}");
        // A call that reaches a connection only after the server closed it (a caller
        // starved for longer than the server's quiet spell) cannot be told it did not run;
        // it must still see a clean close, never a reset, and stay rare.
        for e in &seen.other {
            assert!(e.contains("closed by the server") && !e.contains("reset"), "run {run}: {e}");
        }
        assert!(seen.other.len() <= 4, "run {run}: {:?}", seen.other);
        assert_eq!(seen.ok + seen.retry_safe + seen.other.len(), 64 + completed, "run {run}: each caller ended once");
    }
}

#[derive(thrift_core::ThriftStruct, Debug, Clone, PartialEq, Default)]
struct SlowHelloArgs {
    #[thrift(id = 1)]
    name: String,
    #[thrift(id = 2)]
    ms: i32,
}

/// Scenario 1, by hand: a client that keeps writing while the server shuts down gets every
/// reply of the calls that ran, "shutting down" for the others, and a clean end of stream
/// (no reset).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_keeps_writing_gets_every_reply_then_a_clean_close() {
    use thrift_core::MessageType;
    let (handle, greeter) = serve_on(any_port(), &Server::new());
    let mut raw = RawConnection::connect(&handle, thrift_net::ProtocolKind::Binary, true).await;
    let call = |seqid: i32| {
        let args = SlowHelloArgs { name: format!("{seqid}"), ms: 200 };
        encode_call(thrift_net::ProtocolKind::Binary, true, "slowHello", MessageType::Call, seqid, &args)
    };
    for seqid in 1..=64 {
        raw.send(&call(seqid)).await;
    }
    eventually("64 calls running", || greeter.0.running.load(Ordering::SeqCst) == 64).await;
    let shutdown = tokio::spawn(handle.shutdown(Duration::from_secs(5)));
    // Keeps writing after shutdown began, as a pipelining client does.
    for seqid in 65..=96 {
        raw.send(&call(seqid)).await;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let (mut replies, mut refused) = (0, 0);
    while let Some(message) = raw.read_message().await {
        let reply = thrift_net::Reply::parse(message, thrift_net::ProtocolKind::Binary, Default::default()).unwrap();
        match reply.kind() {
            MessageType::Reply => {
                assert!(reply.seqid() <= 64, "only calls read before the shutdown ran");
                replies += 1;
            }
            _ => {
                let text = String::from_utf8_lossy(reply.message());
                assert!(text.contains(thrift_net::server::SHUTTING_DOWN), "{text}");
                refused += 1;
            }
        }
    }
    assert!(within(shutdown).await.unwrap().is_graceful());
    assert_eq!(replies, 64, "every call that ran was answered");
    assert_eq!(refused, 32, "every later call was answered as refused");
    assert_eq!(handle.metrics().requests_refused, 32);
}

/// Scenario 3: a peer that sends large calls and never reads the replies holds at most the
/// connection's byte budget on the server, and is disconnected by the write timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_never_reads_holds_at_most_its_byte_budget() {
    use thrift_core::MessageType;
    use tokio::io::AsyncWriteExt;
    const BUDGET: usize = 1 << 20;
    let server = Server::builder()
        .max_pending_bytes_per_connection(BUDGET)
        .write_timeout(Duration::from_millis(500))
        .read_idle_timeout(None)
        .build();
    let (handle, _) = serve_on(any_port(), &server);
    let mut peer = within(TcpStream::connect(handle.local_addr())).await.unwrap();
    // 128 calls of 256 KiB each (32 MiB of replies owed), written without reading any reply.
    let name = "x".repeat(256 * 1024);
    let sender = tokio::spawn(async move {
        for seqid in 1..=128 {
            let call = encode_call(
                thrift_net::ProtocolKind::Binary,
                true,
                "sayHello",
                MessageType::Call,
                seqid,
                &hello_service::SayHelloArgs { req: HelloRequest { name: name.clone() } },
            );
            if peer.write_all(&call).await.is_err() {
                break;
            }
        }
        peer // kept open, unread, until the server gives up on it
    });
    let mut most = 0;
    let mut sampled = 0;
    let started = std::time::Instant::now();
    while started.elapsed() < DEADLINE {
        let m = handle.metrics();
        most = most.max(m.bytes_pending);
        sampled += 1;
        // Dropped, and the handler still finishing when it was has let go of its reply.
        if m.write_timeouts == 1 && m.connections == 0 && m.in_flight == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let m = handle.metrics();
    assert!(most > 0, "the peer did make the server hold bytes ({sampled} samples)");
    assert!(most <= BUDGET as u64, "held {most} bytes, over the {BUDGET} budget");
    assert_eq!((m.write_timeouts, m.connections, m.bytes_pending), (1, 0, 0), "the peer was dropped: {m:?}");
    assert!(m.requests < 128, "the server stopped reading: {m:?}");
    sender.abort();
}

/// Scenario 6: an endpoint that accepts connections but never answers (a frozen process:
/// the kernel still completes handshakes into the listen backlog) is ejected after a few
/// failed calls, instead of costing every other call its full timeout; probed after its
/// backoff, it is readmitted once it answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_endpoint_is_ejected_after_a_few_failures_and_readmitted_when_it_answers() {
    let (good, _greeter) = serve_on(any_port(), &Server::new());
    let frozen = listen(any_port()); // never accepted from: frozen
    let frozen_addr = frozen.local_addr().unwrap();
    let config = PoolConfig::default()
        .with_balance(thrift_net::pool::Balance::RoundRobin)
        .with_client(ClientConfig::default().with_call_timeout(Duration::from_millis(200)))
        .with_eject_after_failures(3)
        .with_eject_backoff(Duration::from_millis(300));
    let pool = Pool::new([frozen_addr, good.local_addr()], config);
    let client = hello_service::Client::new(pool.clone());
    let failed = Arc::new(AtomicUsize::new(0));
    let callers = (0..16).map(|i| {
        let (client, failed) = (client.clone(), failed.clone());
        tokio::spawn(async move {
            for j in 0..40 {
                if client.say_hello(HelloRequest { name: format!("{i}.{j}") }).await.is_err() {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    });
    for caller in within(futures_join_all(callers)).await {
        caller.unwrap();
    }
    let failed = failed.load(Ordering::Relaxed);
    let m = pool.metrics()[0];
    assert!(m.ejections >= 1, "the frozen endpoint was ejected: {m:?}");
    // Each caller may have had one call there before the third failure; then one probe per
    // backoff (300 ms, doubling).
    assert!(failed <= 16 + 6, "{failed} of 640 calls failed: {m:?}");
    assert_eq!(failed as u64, m.timeouts, "every failure was a timeout at the frozen endpoint");

    // Thawed: it answers (by passing connections through to the good server); a probe
    // readmits it.
    let (thawed, _) = serve_on(any_port(), &Server::new());
    let backend = thawed.local_addr();
    tokio::spawn(async move {
        while let Ok((mut peer, _)) = frozen.accept().await {
            tokio::spawn(async move {
                if let Ok(mut server) = TcpStream::connect(backend).await {
                    let _ = tokio::io::copy_bidirectional(&mut peer, &mut server).await;
                }
            });
        }
    });
    // Calls until the thawed endpoint has answered 10 of them (besides the calls that
    // timed out there, which it now reads from the connections left in its backlog).
    let started = std::time::Instant::now();
    while thawed.metrics().requests < m.timeouts + 10 {
        assert!(started.elapsed() < DEADLINE, "never readmitted: {:?}", pool.metrics()[0]);
        let _ = client.say_hello(HelloRequest { name: "thawed".into() }).await;
    }
    assert!(!pool.metrics()[0].ejected, "readmitted: {:?}", pool.metrics()[0]);
}

/// Runs the futures together, in order of the results.
async fn futures_join_all<F: std::future::Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut handles = Vec::new();
    for f in futures {
        handles.push(f);
    }
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        out.push(h.await);
    }
    out
}
