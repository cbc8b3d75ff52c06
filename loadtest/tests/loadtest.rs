//! The binary and the library end to end, briefly: every strategy against the in-process
//! server and against a server given by `--addr`, on every wire, the JSON and the table well
//! formed, calls counted, the pipelined client error free. Each run lasts a few seconds.

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use thrift_loadtest::{run, start_server, Options, Strategy};

const BIN: &str = env!("CARGO_BIN_EXE_thrift-loadtest");

fn loadtest(args: &[&str]) -> std::process::Output {
    let output = Command::new(BIN).args(args).output().expect("run thrift-loadtest");
    assert!(output.status.success(), "thrift-loadtest {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    output
}

#[test]
fn json_has_every_strategy_with_calls_and_percentiles() {
    let output = loadtest(&["-d", "1500ms", "--warmup", "300ms", "-c", "4", "--json", "-q"]);
    let json: Value = serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    let cells = json["cells"].as_array().expect("a cells array");
    let names: Vec<&str> = cells.iter().map(|c| c["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, Strategy::ALL.iter().map(|s| s.name()).collect::<Vec<_>>());
    for cell in cells {
        let name = cell["strategy"].as_str().unwrap();
        assert_eq!(cell["concurrency"], 4, "{name}");
        assert!(cell["qps"].as_f64().unwrap() > 0.0, "{name}: {cell}");
        assert!(cell["calls"].as_u64().unwrap() > 0, "{name}: {cell}");
        let (p50, p99, p999) =
            (cell["p50_us"].as_u64().unwrap(), cell["p99_us"].as_u64().unwrap(), cell["p999_us"].as_u64().unwrap());
        assert!(0 < p50 && p50 <= p99 && p99 <= p999, "{name}: percentiles out of order: {cell}");
        assert!(cell["errors"].is_object(), "{name}: {cell}");
    }
    let by_name = |n: &str| cells.iter().find(|c| c["strategy"] == n).unwrap();
    assert_eq!(by_name("pipelined")["errors"].as_object().unwrap().len(), 0, "{}", by_name("pipelined"));
    assert_eq!(by_name("mutex")["errors"].as_object().unwrap().len(), 0, "{}", by_name("mutex"));
    assert_eq!(by_name("pool")["errors"].as_object().unwrap().len(), 0, "{}", by_name("pool"));
    // Exclusive mode: a connection per caller at most (four callers, a pool of four).
    let pooled = by_name("pool")["connections_opened"].as_u64().unwrap();
    assert!((1..=4).contains(&pooled), "{}", by_name("pool"));
    assert_eq!(by_name("pipelined")["connections_opened"], 1);
    assert_eq!(by_name("mutex")["connections_opened"], 1);
    // A connection per call: at least as many connections as measured calls.
    let per_call = by_name("per-call");
    assert!(per_call["connections_opened"].as_u64().unwrap() >= per_call["calls"].as_u64().unwrap(), "{per_call}");
    assert_eq!(json["run"]["payload"], "small");
}

/// `--tls`: every strategy over TLS, error free, the pool's and the per-call connections
/// each through a handshake.
#[test]
fn every_strategy_runs_over_tls() {
    let output = loadtest(&["--tls", "-d", "1500ms", "--warmup", "300ms", "-c", "4", "--json", "-q"]);
    let json: Value = serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    assert_eq!(json["run"]["tls"], true);
    assert!(json["run"]["target"].as_str().unwrap().ends_with("over TLS"), "{}", json["run"]);
    for cell in json["cells"].as_array().expect("a cells array") {
        let name = cell["strategy"].as_str().unwrap();
        assert!(cell["calls"].as_u64().unwrap() > 0, "{name}: {cell}");
        assert_eq!(cell["errors"].as_object().unwrap().len(), 0, "{name}: {cell}");
    }
}

/// `--transport header|ttheader|http`, and HTTP over TLS: every strategy error free, and over
/// HTTP every strategy but the pipelined one (HTTP/1.1 has none).
#[test]
fn every_strategy_runs_on_the_header_transports_and_over_http() {
    let runs: [&[&str]; 4] = [&["-t", "header"], &["-t", "ttheader"], &["-t", "http"], &["-t", "http", "--tls"]];
    for flags in runs {
        let mut args = vec!["-d", "1s", "--warmup", "200ms", "-c", "4", "--json", "-q"];
        args.extend_from_slice(flags);
        let output = loadtest(&args);
        let json: Value = serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
        assert_eq!(json["run"]["transport"], flags[1], "{flags:?}: {}", json["run"]);
        let cells = json["cells"].as_array().expect("a cells array");
        let names: Vec<&str> = cells.iter().map(|c| c["strategy"].as_str().unwrap()).collect();
        let expected: Vec<&str> = Strategy::ALL
            .iter()
            .filter(|s| flags[1] != "http" || **s != Strategy::Pipelined)
            .map(|s| s.name())
            .collect();
        assert_eq!(names, expected, "{flags:?}");
        for cell in cells {
            let name = cell["strategy"].as_str().unwrap();
            assert!(cell["calls"].as_u64().unwrap() > 0, "{flags:?} {name}: {cell}");
            assert_eq!(cell["errors"].as_object().unwrap().len(), 0, "{flags:?} {name}: {cell}");
        }
    }
}

#[test]
fn table_and_chart_on_the_compact_buffered_wire_with_large_payloads() {
    let dir = std::env::temp_dir().join(format!("thrift-loadtest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let chart = dir.join("strategies.svg");
    let output = loadtest(&[
        "-d",
        "1s",
        "--warmup",
        "200ms",
        "-c",
        "2,8",
        "-s",
        "pipelined,per-call",
        "-p",
        "large",
        "-t",
        "buffered",
        "--protocol",
        "compact",
        "-q",
        "--chart",
        chart.to_str().unwrap(),
    ]);
    let table = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].contains("Large payload, Buffered Compact"), "{table}");
    let header = lines.iter().position(|l| l.starts_with("strategy")).expect("a header row");
    for column in ["conc", "QPS", "p50 µs", "p99 µs", "p999 µs", "conns", "errors"] {
        assert!(lines[header].contains(column), "{column} missing: {table}");
    }
    let rows: Vec<Vec<&str>> = lines[header + 2..].iter().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 4, "{table}");
    assert_eq!(
        rows.iter().map(|r| (r[0], r[1])).collect::<Vec<_>>(),
        [("pipelined", "2"), ("pipelined", "8"), ("per-call", "2"), ("per-call", "8")]
    );
    for row in &rows {
        assert!(row[2].parse::<f64>().unwrap() > 0.0, "no calls: {row:?}");
    }
    // Pipelined rows: zero errors, the last column.
    assert_eq!(*rows[0].last().unwrap(), "0", "{table}");
    assert_eq!(*rows[1].last().unwrap(), "0", "{table}");
    let svg = std::fs::read_to_string(&chart).expect("the chart was written");
    assert!(svg.starts_with("<svg") && svg.contains("pipelined") && svg.contains("per-call"), "{svg:.200}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_library_loads_a_server_given_by_address() {
    let server_rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let handle = server_rt.block_on(start_server(SocketAddr::from(([127, 0, 0, 1], 0)))).unwrap();
    let addr = handle.local_addr().to_string();
    let options = Options::try_parse_args([
        "thrift-loadtest",
        "--addr",
        &addr,
        "-s",
        "pipelined,mutex,pool",
        "-c",
        "8",
        "-d",
        "1s",
        "--warmup",
        "200ms",
        "-q",
    ])
    .unwrap();
    let report = run(&options).unwrap();
    assert_eq!(report.run.target, addr);
    for strategy in [Strategy::Pipelined, Strategy::Mutex, Strategy::Pool] {
        let cell = report.cell(strategy, 8).expect("the cell ran");
        assert!(cell.stats.calls > 0 && cell.stats.qps > 0.0, "{cell:?}");
        assert_eq!(cell.stats.error_count(), 0, "{cell:?}");
        assert!(
            (0.7..=0.85).contains(&cell.stats.seconds),
            "measured {}s of a 1s cell with 0.2s warm-up",
            cell.stats.seconds
        );
    }
    // The server saw what the client counted.
    let metrics = handle.metrics();
    let calls: u64 = report.cells.iter().map(|c| c.stats.calls).sum();
    assert!(metrics.requests >= calls, "{metrics:?} vs {calls} calls");
    let pooled = report.cell(Strategy::Pool, 8).unwrap().connections_opened;
    assert!((1..=8).contains(&pooled), "the pool opens at most one connection per caller: {pooled}");
    assert_eq!(metrics.connections_accepted, 2 + pooled, "one connection for pipelined and mutex each, and the pool's");
    server_rt.block_on(handle.shutdown(Duration::from_secs(2)));
}

#[test]
fn bad_flags_fail_with_a_message() {
    let output = Command::new(BIN).args(["--warmup", "9s", "-d", "1s"]).output().unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--warmup"), "{output:?}");
    let output = Command::new(BIN).args(["-s", "telepathy"]).output().unwrap();
    assert!(!output.status.success());
}
