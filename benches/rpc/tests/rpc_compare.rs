//! The orchestration end to end, briefly: servers and clients as separate processes, a
//! table with every pair's figures (CPU time per call included), nothing written. About ten seconds. The last two pairs
//! are the TTHeader interop check with volo-thrift, both ways.

use std::process::Command;

#[test]
fn a_short_run_measures_every_rust_pair_without_errors() {
    let output = Command::new(env!("CARGO_BIN_EXE_rpc-compare"))
        .args(["run", "--pairs"])
        .arg("ours-pipelined,ours-pool,volo,volo-multiplex,apache,raw,raw-pipelined,raw-codec,ours-header,volo-to-ours,ours-ttheader-to-volo")
        .args(["-c", "4", "-d", "1s", "--warmup", "200ms", "--no-write"])
        .output()
        .expect("run rpc-compare");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let table = String::from_utf8(output.stdout).unwrap();
    let rows: Vec<Vec<&str>> =
        table.lines().skip(2).map(|l| l.trim_matches('|').split('|').map(str::trim).collect()).collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        names,
        [
            "ours pipelined",
            "ours pool",
            "volo",
            "volo multiplex",
            "apache rust",
            "raw ceiling",
            "raw pipelined",
            "raw + codec",
            "ours header",
            // Interop: volo's default client (TTHeader) against our server, and our TTHeader
            // client against volo's server; zero errors means every call came back right.
            "volo -> ours",
            "ours ttheader -> volo"
        ],
        "{table}"
    );
    for row in &rows {
        let qps: f64 = row[1].parse().unwrap_or_else(|_| panic!("no QPS in {row:?}: {stderr}"));
        assert!(qps > 0.0, "{row:?}");
        assert_eq!(row.last(), Some(&"0"), "errors in {row:?}: {stderr}");
        // CPU time per call, server + client, as `total (server + client)`.
        let total: f64 =
            row[3].split(' ').next().and_then(|t| t.parse().ok()).unwrap_or_else(|| panic!("no CPU time in {row:?}"));
        assert!(total > 0.0, "{row:?}");
    }
}

#[test]
fn the_rounds_take_turns_against_servers_started_once() {
    let output = Command::new(env!("CARGO_BIN_EXE_rpc-compare"))
        .args(["run", "--pairs", "raw,raw-codec,ours-pool,ours-pipelined", "-c", "1,64"])
        .args(["-d", "1s", "--warmup", "200ms", "--rounds", "2", "--no-write"])
        .output()
        .expect("run rpc-compare");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let turns: Vec<&str> = stderr.lines().filter(|l| l.starts_with("round ")).collect();
    let mut expected = Vec::new();
    for round in 1..=2 {
        for callers in [1, 64] {
            // The Thrift floor takes its turn after the ceiling.
            for pair in ["raw ceiling", "raw + codec", "ours pool", "ours pipelined"] {
                expected.push(format!("round {round} of 2, {pair} × {callers}: "));
            }
        }
    }
    assert_eq!(turns.len(), expected.len(), "{stderr}");
    for (turn, expected) in turns.iter().zip(&expected) {
        let figures =
            turn.strip_prefix(expected.as_str()).unwrap_or_else(|| panic!("expected `{expected}…`, got `{turn}`"));
        let qps: f64 =
            figures.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no QPS in `{turn}`"));
        assert!(qps > 0.0 && figures.contains(" QPS, p50 "), "{turn}");
    }
}
