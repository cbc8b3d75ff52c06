//! The RPC section of BENCHMARKS.md: how it was run, the table, the targets with their
//! measured ratios, and the peers' setups. Only the text between its markers is replaced,
//! so the other sections of the file stay as their writers left them.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use thrift_loadtest::Stats;

use crate::compare::{PairKind, Results};
use crate::cpu::CpuPerCall;
use crate::rounds;

const BEGIN: &str = "<!-- rpc-compare:begin (written by rpc-compare; edits between these markers are overwritten) -->";
const END: &str = "<!-- rpc-compare:end -->";

/// The level at which the targets judge CPU time per call and throughput.
const CPU_LEVEL: usize = rounds::LEVEL;

/// The level at which the table gives CPU time per call: [`CPU_LEVEL`] if it ran, else
/// the highest.
fn table_cpu_level(results: &Results) -> usize {
    let levels = &results.args.concurrency;
    if levels.contains(&CPU_LEVEL) {
        CPU_LEVEL
    } else {
        levels.iter().copied().max().unwrap_or(CPU_LEVEL)
    }
}

/// The results as a Markdown table: a row per pair, QPS and p50/p99 per level, and CPU
/// time per call at one level ([`table_cpu_level`]).
pub fn table(results: &Results) -> String {
    let levels = &results.args.concurrency;
    let cpu_level = table_cpu_level(results);
    let mut out = String::from("| pair |");
    for c in levels {
        let _ = write!(out, " QPS ×{c} | p50 / p99 µs ×{c} |");
    }
    let _ = write!(out, " CPU µs/call ×{cpu_level}, server + client | errors |\n|---|");
    for _ in levels {
        out.push_str("---:|---:|");
    }
    out.push_str("---:|---|\n");
    let mut seen = Vec::new();
    for row in &results.rows {
        if seen.contains(&row.pair.kind) {
            continue;
        }
        seen.push(row.pair.kind);
        let _ = write!(out, "| {} |", row.pair.name);
        let mut errors = 0;
        let mut why = None;
        for &c in levels {
            let cell = results.rows.iter().find(|r| r.pair.kind == row.pair.kind && r.concurrency == c);
            match cell.map(|r| &r.outcome) {
                Some(Ok(s)) => {
                    errors += s.error_count();
                    let _ = write!(out, " {:.0} | {} / {} |", s.qps, s.p50_us, s.p99_us);
                }
                Some(Err(e)) => {
                    why.get_or_insert_with(|| e.clone());
                    out.push_str(" — | — |");
                }
                None => out.push_str(" — | — |"),
            }
        }
        match results.cpu(row.pair.kind, cpu_level) {
            Some(cpu) => {
                let _ = write!(out, " {:.1} ({:.1} + {:.1}) |", cpu.total_us(), cpu.server_us, cpu.client_us);
            }
            None => out.push_str(" — |"),
        }
        match why {
            Some(why) => {
                let _ = writeln!(out, " not run: {} |", why.replace('|', "/"));
            }
            None => {
                let _ = writeln!(out, " {errors} |");
            }
        }
    }
    out
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "n/a".into()
    }
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**not met**"
    }
}

/// One line of the targets: `ours` against `base` in QPS, met at `target` times or more.
fn throughput_target(what: &str, ours: &Stats, base: &Stats, target: f64) -> String {
    format!(
        "- {what}: {} ({:.0} vs {:.0} QPS), target ≥ {target}×: {}.\n",
        ratio(ours.qps, base.qps),
        ours.qps,
        base.qps,
        mark(ours.qps >= target * base.qps)
    )
}

/// Our server with our better client at `c` (by QPS): the pair and its statistics.
fn ours_best(results: &Results, c: usize) -> Option<(&'static str, &Stats)> {
    let candidates = [(PairKind::OursPipelined, "pipelined"), (PairKind::OursPool, "pool")];
    candidates
        .into_iter()
        .filter_map(|(k, name)| results.stats(k, c).map(|s| (name, s)))
        .max_by(|a, b| a.1.qps.total_cmp(&b.1.qps))
}

/// The targets of issue 10, each with its measured ratio.
pub fn targets(results: &Results) -> String {
    let mut out = String::new();
    for c in [16, 64, 256] {
        let (Some((name, ours)), Some(volo)) = (ours_best(results, c), results.stats(PairKind::Volo, c)) else {
            let _ = writeln!(out, "- Ours vs volo at {c}: not measured in this run.");
            continue;
        };
        let ok = ours.qps >= volo.qps && ours.p99_us < volo.p99_us;
        let _ = write!(
            out,
            "- Ours ({name}) vs volo (default) at {c}: QPS {} ({:.0} vs {:.0}), p99 {} vs {} µs: {}.",
            ratio(ours.qps, volo.qps),
            ours.qps,
            volo.qps,
            ours.p99_us,
            volo.p99_us,
            mark(ok),
        );
        if let Some(m) = results.stats(PairKind::VoloMultiplex, c) {
            let _ = write!(
                out,
                " Against volo multiplex: QPS {}, p99 {} vs {} µs.",
                ratio(ours.qps, m.qps),
                ours.p99_us,
                m.p99_us
            );
        }
        out.push('\n');
    }
    for (raw_kind, raw_name) in [(PairKind::Raw, "a connection per caller"), (PairKind::RawPipelined, "pipelined")] {
        match (ours_best(results, 64), results.stats(raw_kind, 64)) {
            (Some((name, ours)), Some(raw)) => {
                out.push_str(&throughput_target(
                    &format!("Ours ({name}) vs the raw ceiling ({raw_name}) at 64"),
                    ours,
                    raw,
                    0.8,
                ));
            }
            _ => {
                let _ = writeln!(out, "- Ours vs the raw ceiling ({raw_name}) at 64: not measured in this run.");
            }
        }
    }
    match (results.stats(PairKind::OursPool, 64), results.stats(PairKind::OursPerCall, 64)) {
        (Some(pool), Some(per_call)) => {
            let _ = writeln!(
                out,
                "- Pool vs a connection per call at 64: {} ({:.0} vs {:.0} QPS), pool errors {}, target ≥ 4× with \
                 zero errors: {}.",
                ratio(pool.qps, per_call.qps),
                pool.qps,
                per_call.qps,
                pool.error_count(),
                mark(pool.qps >= 4.0 * per_call.qps && pool.error_count() == 0)
            );
        }
        _ => out.push_str("- Pool vs per-call connections at 64: not measured in this run.\n"),
    }
    out
}

/// The targets of issue 22: throughput, CPU time and latency against the raw ceiling (a
/// connection per caller, nothing decoded), each with its measured figure: from the
/// interleaved [`rounds`] when they ran, else from the table's cells.
pub fn ceiling_targets(results: &Results) -> String {
    let mut out = String::new();
    let runs = &results.rounds;
    let raw = results.stats(PairKind::Raw, CPU_LEVEL);
    for (kind, name, target) in [(PairKind::OursPool, "pool", 0.9), (PairKind::OursPipelined, "pipelined", 0.95)] {
        let what = format!("Ours ({name}) vs the raw ceiling at {CPU_LEVEL}");
        let spread = rounds::ratio_to(runs, kind, PairKind::Raw);
        let medians = rounds::qps(runs, kind).zip(rounds::qps(runs, PairKind::Raw));
        match (spread, medians, results.stats(kind, CPU_LEVEL), raw) {
            (Some(r), Some((ours, raw)), ..) => {
                let _ = writeln!(
                    out,
                    "- {what}, median of {} interleaved rounds: {:.2}× (from {:.2}× to {:.2}×; medians {:.0} vs \
                     {:.0} QPS), target ≥ {target}×: {}.",
                    r.rounds,
                    r.median,
                    r.min,
                    r.max,
                    ours.median,
                    raw.median,
                    mark(r.median >= target)
                );
            }
            (_, _, Some(ours), Some(raw)) => out.push_str(&throughput_target(&what, ours, raw, target)),
            _ => {
                let _ = writeln!(out, "- {what}: not measured in this run.");
            }
        }
    }
    let from_rounds = !runs.is_empty();
    let cpu = |kind| cpu_at_level(results, kind, from_rounds);
    let source = if from_rounds { " (medians of the rounds)" } else { "" };
    match (cpu(PairKind::OursPool), cpu(PairKind::OursPipelined), cpu(PairKind::Raw)) {
        (Some(pool), Some(pipelined), Some(raw)) => {
            let worse = pool.total_us().max(pipelined.total_us());
            let _ = writeln!(
                out,
                "- CPU time per call at {CPU_LEVEL}{source}, server + client: ours pool {:.1} µs ({:.1} + {:.1}), \
                 ours pipelined {:.1} µs ({:.1} + {:.1}), raw ceiling {:.1} µs ({:.1} + {:.1}); ours {} and {} \
                 of raw's. Target ≤ 10.5 µs (set on a machine where raw took 9.5): {}.",
                pool.total_us(),
                pool.server_us,
                pool.client_us,
                pipelined.total_us(),
                pipelined.server_us,
                pipelined.client_us,
                raw.total_us(),
                raw.server_us,
                raw.client_us,
                ratio(pool.total_us(), raw.total_us()),
                ratio(pipelined.total_us(), raw.total_us()),
                mark(worse <= 10.5)
            );
        }
        _ => {
            let _ = writeln!(out, "- CPU time per call at {CPU_LEVEL}: not measured in this run.");
        }
    }
    let alone_in_rounds = rounds::p50_alone(runs, PairKind::Raw).is_some();
    let p50 = |kind| p50_alone(results, kind, alone_in_rounds);
    let source = if alone_in_rounds { " (medians of the rounds)" } else { "" };
    match (p50(PairKind::OursPool), p50(PairKind::OursPipelined), p50(PairKind::Raw)) {
        (Some(pool), Some(pipelined), Some(raw)) => {
            let bound = raw * 1.1;
            let _ = writeln!(
                out,
                "- Latency with one caller, p50{source}: ours pool {pool:.0} µs, ours pipelined {pipelined:.0} µs, \
                 raw ceiling {raw:.0} µs; target ≤ raw + 10% ({bound:.0} µs): {}.",
                mark(pool.max(pipelined) <= bound)
            );
        }
        _ => out.push_str("- Latency with one caller: not measured in this run.\n"),
    }
    out
}

/// The Thrift floor against the ceiling and against ours: what decoding and encoding the
/// messages costs by itself, and what our server and clients cost beyond it. Not a target:
/// it says how much of the distance to the ceiling any Thrift implementation must keep.
pub fn floor(results: &Results) -> String {
    let runs = &results.rounds;
    let from_rounds = rounds::qps(runs, PairKind::RawCodec).is_some();
    // A ratio of `pair` to `base` at the level: medians of each round's, or of the cells.
    let ratio_to = |pair, base| match from_rounds {
        true => rounds::ratio_to(runs, pair, base).map(|r| r.median),
        false => Some(results.stats(pair, CPU_LEVEL)?.qps / results.stats(base, CPU_LEVEL)?.qps),
    };
    let cpu = |kind| cpu_at_level(results, kind, from_rounds);
    let Some(floor_to_raw) = ratio_to(PairKind::RawCodec, PairKind::Raw) else {
        return "- The Thrift floor (raw + codec) was not measured in this run.\n".into();
    };
    let source = if from_rounds { ", medians of the rounds" } else { "" };
    let mut out = format!(
        "- The Thrift floor (raw + codec: the ceiling's sockets and loops, each message decoded and encoded by \
         `thrift-core`, nothing else) at {CPU_LEVEL}{source}: {floor_to_raw:.2}× the raw ceiling's QPS"
    );
    if let (Some(floor), Some(raw)) = (cpu(PairKind::RawCodec), cpu(PairKind::Raw)) {
        let _ = write!(
            out,
            ", CPU time per call {:.1} µs ({:.1} + {:.1}), {} of raw's",
            floor.total_us(),
            floor.server_us,
            floor.client_us,
            ratio(floor.total_us(), raw.total_us())
        );
    }
    out.push_str(".\n");
    let p50 = |kind| p50_alone(results, kind, from_rounds);
    for (kind, name) in [(PairKind::OursPool, "pool"), (PairKind::OursPipelined, "pipelined")] {
        if let Some(to_floor) = ratio_to(kind, PairKind::RawCodec) {
            let _ = write!(out, "- Ours ({name}) vs the Thrift floor at {CPU_LEVEL}: {to_floor:.2}× its QPS");
            if let (Some(ours), Some(floor)) = (cpu(kind), cpu(PairKind::RawCodec)) {
                let _ = write!(out, ", {} of its CPU time per call", ratio(ours.total_us(), floor.total_us()));
            }
            if let (Some(ours), Some(floor)) = (p50(kind), p50(PairKind::RawCodec)) {
                let _ = write!(out, "; with one caller, p50 {ours:.0} µs against its {floor:.0} µs");
            }
            out.push_str(".\n");
        }
    }
    out
}

/// `kind`'s CPU time per call at [`CPU_LEVEL`]: the medians of the rounds, or its cell's.
fn cpu_at_level(results: &Results, kind: PairKind, from_rounds: bool) -> Option<CpuPerCall> {
    match from_rounds {
        true => rounds::cpu(&results.rounds, kind),
        false => results.cpu(kind, CPU_LEVEL),
    }
}

/// `kind`'s p50 latency with one caller, µs: the median of the rounds, or its cell's.
fn p50_alone(results: &Results, kind: PairKind, from_rounds: bool) -> Option<f64> {
    match from_rounds {
        true => rounds::p50_alone(&results.rounds, kind).map(|p50| p50.median),
        false => results.stats(kind, 1).map(|s| s.p50_us as f64),
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    format!("{cpu}, {cores} cores, {date}")
}

/// The whole section, markers included.
pub fn section(results: &Results, java_unavailable: Option<String>) -> String {
    let a = &results.args;
    let levels: Vec<String> = a.concurrency.iter().map(ToString::to_string).collect();
    let mut out = format!("{BEGIN}\n## RPC\n\n");
    let _ = writeln!(
        out,
        "Written by `cargo run --release -p thrift-rpc-bench --bin rpc-compare` on {} in {:.0} s \
         (load average {} before, {} after: other jobs shared the machine). \
         HelloService.sayHello from seed 001 (`benches/rpc/idl/hello.thrift`), {:?} payload, \
         on 127.0.0.1; each server and each client is a process of its own, sharing the machine's \
         cores. Each cell runs {:.1} s of which the first {:.1} s are not measured (the Java \
         server's first {:.1} s); concurrency {} callers. Latency is per call as the client \
         sees it (HDR histogram). Figures move by ±10% or so between runs on a shared machine.\n",
        machine(),
        results.seconds,
        results.load_before,
        results.load_after,
        a.payload,
        a.duration.as_secs_f64(),
        a.warmup.as_secs_f64(),
        (a.warmup * 3).min(a.duration / 2).as_secs_f64(),
        levels.join(", "),
    );
    if let Some(rounds) = results.rounds.iter().map(|r| r.round + 1).max() {
        let floor = results.rounds.iter().any(|r| r.pair == PairKind::RawCodec);
        let clients = if floor { "raw, raw + codec, pool and pipelined" } else { "raw, pool and pipelined" };
        let _ = writeln!(
            out,
            "The issue-22 figures (throughput and CPU time at {CPU_LEVEL} callers, latency at one) come from \
             {rounds} further rounds in which the {clients} clients take turns against servers \
             started once ({:.1} s each, as the cells), each round's ratio taken against the raw run of the same \
             round: one cell of each, minutes apart, can put the same build anywhere from 0.6× to 0.95× raw on a \
             shared machine.\n",
            a.duration.as_secs_f64()
        );
    }
    out.push_str("![QPS per pair and concurrency](docs/bench-rpc.svg)\n\n");
    out.push_str(&table(results));
    out.push_str("\n### Targets (issue 10)\n\n");
    out.push_str(&targets(results));
    out.push_str("\n### Targets (issue 22)\n\n");
    out.push_str(&ceiling_targets(results));
    out.push('\n');
    out.push_str(&floor(results));
    out.push_str("\n### The pairs\n\n| pair | server | client |\n|---|---|---|\n");
    let mut seen = Vec::new();
    for row in &results.rows {
        if !seen.contains(&row.pair.kind) {
            seen.push(row.pair.kind);
            let _ = writeln!(out, "| {} | {} | {} |", row.pair.name, row.pair.server_text, row.pair.client_text);
        }
    }
    out.push_str(
        "\nNotes:\n\n\
         - Every server answers alike (name echoed, age 19, `hello, NAME: MESSAGE`, a timestamp) and \
         every client checks the reply; a wrong reply counts as an error.\n\
         - Apache's Rust `TServer` cannot set TCP_NODELAY on the sockets it accepts, and its framed \
         writer sends the length and the body in two writes, so with Nagle's algorithm each reply's \
         body waits for the client's delayed ACK of the length: the `apache rust, Nagle` row, \
         `TServer` as shipped. The `apache rust` row runs the same processor and transports behind an \
         accept loop of ours that sets TCP_NODELAY, a thread per connection; the client sets it on \
         its side in both rows.\n\
         - volo's defaults are its users' defaults: TTHeader around framed binary, and a pool of \
         connections each carrying one call at a time. In multiplex mode (a `#[doc(hidden)]` option, \
         \"not recommended for most users\") both sides carry many calls per connection.\n\
         - Tails: the tokio clients (ours, volo, raw) show p99s of some milliseconds where \
         Apache's thread-per-caller client stays under one against the same server. On two cores \
         shared with other work, when the OS preempts a runtime's worker thread, every task queued \
         on it waits for the thread's next time slice, while a preempted thread delays only its own \
         call. Loading the raw server at 16 callers by hand showed it: Apache's client p99 672 µs, \
         the raw tokio client 8.1 ms, at p50s of 369 and 115 µs.\n\
         - The raw ceiling decodes nothing: its server patches the sequence id into a reply encoded \
         once and answers all the calls that have arrived in one write; its clients send a request \
         encoded once and check the frame that comes back. `raw ceiling` uses a connection per \
         caller, one call at a time, as Apache's clients do; `raw pipelined` one connection with \
         every call in flight, as our pipelined client does, writing as many new calls as it read \
         replies. The pipelined floor is an order of magnitude above every real client: it does no \
         work per call beyond copying bytes, where a real client wakes the calling task for each \
         reply, passes each call between its caller, writer and reader, encodes and decodes, and the \
         server dispatches each request to a handler. Against it, ours is far from the target.\n\
         - `raw + codec`, the Thrift floor, runs the raw ceiling's loops with the work the protocol \
         itself asks for: its server decodes each call's envelope and arguments (strings sliced from \
         the frame, not copied), checks the method, runs the handler and encodes the reply; its client \
         encodes each request and decodes and checks each reply. It has no limits, timeouts, metrics, \
         spans, panic catching, pool or dispatch, which is what our pairs add on top of it.\n",
    );
    match java_unavailable {
        Some(why) if why != "not asked for" => {
            let _ = writeln!(out, "- Apache's Java server did not run here: {why}.");
        }
        _ => out.push_str(
            "- Apache's Java server is built at run time from Debian's `libthrift-java` (0.16) with code \
             from `thrift --gen java` (0.17) and OpenJDK: `apt-get install default-jdk-headless \
             libthrift-java`. Without them its row says why it did not run.\n",
        ),
    }
    out.push('\n');
    out.push_str(END);
    out.push('\n');
    out
}

/// Puts the section into `path`: between its markers when they are there, at the end
/// otherwise. The rest of the file is left as it is.
///
/// # Errors
/// When the file cannot be read or written.
pub fn write(results: &Results, path: &Path, java_unavailable: Option<String>) -> Result<(), String> {
    let section = section(results, java_unavailable);
    let current = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let updated = match (current.find(BEGIN), current.find(END)) {
        (Some(b), Some(e)) if b < e => {
            let rest = current[e + END.len()..].trim_start_matches('\n');
            let gap = if rest.is_empty() { "" } else { "\n" };
            format!("{}{section}{gap}{rest}", &current[..b])
        }
        _ if current.is_empty() => section,
        _ => format!("{}\n\n{}", current.trim_end(), section),
    };
    std::fs::write(path, updated).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results() -> Results {
        crate::compare::sample_results()
    }

    #[test]
    fn targets_state_each_ratio_and_verdict() {
        let text = targets(&results());
        assert!(
            text.contains(
                "Ours (pipelined) vs volo (default) at 64: QPS 1.77× (53000 vs 30000), p99 900 vs 1000 µs: met."
            ),
            "{text}"
        );
        assert!(text.contains("vs the raw ceiling (a connection per caller) at 64: 0.96×"), "{text}");
        assert!(text.contains("the raw ceiling (pipelined) at 64: not measured"), "{text}");
        assert!(text.contains("Pool vs a connection per call at 64: 10.00×"), "{text}");
        assert!(!text.contains("not met"), "{text}");
    }

    #[test]
    fn ceiling_targets_state_throughput_cpu_and_latency_against_raw() {
        // From the interleaved rounds: each round's ratio against its own raw run.
        let text = ceiling_targets(&results());
        assert!(
            text.contains(
                "Ours (pool) vs the raw ceiling at 64, median of 2 interleaved rounds: 0.85× (from 0.80× to 0.90×; \
                 medians 94000 vs 110000 QPS), target ≥ 0.9×: **not met**."
            ),
            "{text}"
        );
        assert!(
            text.contains("Ours (pipelined) vs the raw ceiling at 64, median of 2 interleaved rounds: 1.05×"),
            "{text}"
        );
        assert!(
            text.contains(
                "CPU time per call at 64 (medians of the rounds), server + client: ours pool 14.5 µs (7.5 + 7.0), \
                 ours pipelined 9.5 µs (3.0 + 6.5), raw ceiling 11.0 µs (5.5 + 5.5)"
            ),
            "{text}"
        );
        assert!(text.contains("p50: ours pool 56 µs, ours pipelined 54 µs, raw ceiling 50 µs; target ≤ raw + 10% (55 µs): **not met**."), "{text}");

        // Latency from the rounds at one caller, when they ran there.
        let mut alone = results();
        for (pair, p50_us) in [(PairKind::Raw, 20), (PairKind::OursPool, 21), (PairKind::OursPipelined, 23)] {
            let stats = Stats { p50_us, ..Stats::default() };
            alone.rounds.push(crate::rounds::RoundRun { round: 0, concurrency: 1, pair, stats, cpu: None });
        }
        let text = ceiling_targets(&alone);
        assert!(
            text.contains(
                "p50 (medians of the rounds): ours pool 21 µs, ours pipelined 23 µs, raw ceiling 20 µs; target ≤ \
                 raw + 10% (22 µs): **not met**."
            ),
            "{text}"
        );

        // Without rounds, from the table's cells.
        let mut cells = results();
        cells.rounds.clear();
        let text = ceiling_targets(&cells);
        assert!(
            text.contains("Ours (pool) vs the raw ceiling at 64: 0.91× (50000 vs 55000 QPS), target ≥ 0.9×: met."),
            "{text}"
        );
        assert!(
            text.contains(
                "Ours (pipelined) vs the raw ceiling at 64: 0.96× (53000 vs 55000 QPS), target ≥ 0.95×: met."
            ),
            "{text}"
        );
        assert!(
            text.contains("ours pool 10.4 µs (5.0 + 5.4), ours pipelined 9.5 µs (4.5 + 5.0), raw ceiling 8.5 µs"),
            "{text}"
        );
        assert!(text.contains("ours 1.22× and 1.12× of raw's"), "{text}");

        let mut slow = cells;
        slow.rows.retain(|r| !(r.pair.kind == PairKind::Raw && r.concurrency == 1));
        slow.rows.iter_mut().filter(|r| r.pair.kind == PairKind::OursPool).for_each(|r| r.cpu = None);
        let text = ceiling_targets(&slow);
        assert!(text.contains("CPU time per call at 64: not measured"), "{text}");
        assert!(text.contains("Latency with one caller: not measured"), "{text}");
    }

    /// The table's row for the pair `name`.
    fn row<'t>(table: &'t str, name: &str) -> &'t str {
        table.lines().find(|l| l.starts_with(&format!("| {name} |"))).unwrap_or_else(|| panic!("no row for {name}"))
    }

    #[test]
    fn the_table_gives_cpu_time_per_call_where_it_was_read() {
        let table = table(&results());
        assert!(row(&table, "raw ceiling").ends_with("| 8.5 (4.0 + 4.5) | 0 |"), "{table}");
        assert!(row(&table, "volo").ends_with("| — | 0 |"), "{table}");
    }

    #[test]
    fn a_pair_that_did_not_run_says_why() {
        let table = table(&results());
        assert!(row(&table, "apache java").ends_with("not run: javac is missing |"), "{table}");
        assert_eq!(table.lines().count(), 2 + 7, "{table}");
    }

    #[test]
    fn the_section_says_how_the_rounds_ran_when_they_did() {
        let text = section(&results(), None);
        assert!(text.contains("latency at one) come from 2 further rounds in which the raw, pool"), "{text}");
        let mut cells = results();
        cells.rounds.clear();
        assert!(!section(&cells, None).contains("further rounds"));
    }

    #[test]
    fn the_floor_is_set_against_the_ceiling_and_against_ours() {
        // From the cells when the rounds had no floor.
        let text = floor(&results());
        assert!(
            text.contains("at 64: 0.95× the raw ceiling's QPS, CPU time per call 9.4 µs (4.5 + 4.9), 1.11× of raw's."),
            "{text}"
        );
        assert!(
            text.contains(
                "- Ours (pool) vs the Thrift floor at 64: 0.96× its QPS, 1.11× of its CPU time per call; with one \
                 caller, p50 56 µs against its 52 µs."
            ),
            "{text}"
        );
        assert!(text.contains("- Ours (pipelined) vs the Thrift floor at 64: 1.02× its QPS, 1.01× of its"), "{text}");

        // From the rounds when it took its turns: each round's ratio against its own floor run.
        let mut rounds = results();
        for (round, qps, cpu) in [(0, 90_000.0, 6.0), (1, 100_000.0, 6.5)] {
            let stats = Stats { qps, ..Stats::default() };
            let cpu = Some(crate::cpu::CpuPerCall { server_us: cpu, client_us: cpu });
            let pair = PairKind::RawCodec;
            rounds.rounds.push(crate::rounds::RoundRun { round, concurrency: CPU_LEVEL, pair, stats, cpu });
        }
        let text = floor(&rounds);
        assert!(
            text.contains(
                "at 64, medians of the rounds: 0.87× the raw ceiling's QPS, CPU time per call 12.5 µs (6.2 + 6.2), \
                 1.14× of raw's."
            ),
            "{text}"
        );
        assert!(text.contains("- Ours (pool) vs the Thrift floor at 64: 0.98× its QPS, 1.16× of its CPU"), "{text}");
        assert!(section(&rounds, None).contains("the raw, raw + codec, pool and pipelined clients take turns"));

        let mut without = results();
        without.rows.retain(|r| r.pair.kind != PairKind::RawCodec);
        assert_eq!(floor(&without), "- The Thrift floor (raw + codec) was not measured in this run.\n");
    }

    #[test]
    fn writing_replaces_only_the_section() {
        let dir = std::env::temp_dir().join(format!("rpc-section-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("BENCHMARKS.md");
        let before = "# Codec benchmarks\n\nkept as it is\n";
        std::fs::write(&path, before).unwrap();
        write(&results(), &path, None).unwrap();
        let once = std::fs::read_to_string(&path).unwrap();
        assert!(once.starts_with(before), "{once}");
        assert_eq!(once.matches(BEGIN).count(), 1);

        // Another section after ours, then a second run: both neighbours survive, one section.
        std::fs::write(&path, format!("{once}\n## Later section\n\nalso kept\n")).unwrap();
        write(&results(), &path, None).unwrap();
        let twice = std::fs::read_to_string(&path).unwrap();
        assert!(twice.starts_with(before) && twice.ends_with("## Later section\n\nalso kept\n"), "{twice}");
        assert_eq!((twice.matches(BEGIN).count(), twice.matches(END).count()), (1, 1));
        std::fs::remove_dir_all(&dir).ok();
    }
}
