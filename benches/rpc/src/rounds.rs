//! The figures the issue-22 targets judge (our pool and our pipelined client against the raw
//! ceiling: throughput and CPU time at 64 callers, latency at one), measured in interleaved
//! rounds rather than once.
//!
//! On a shared two-core machine one five-second cell moves by ±15% from run to run, and the
//! raw ceiling's cell runs minutes apart from ours: a single pair of cells can put the same
//! build anywhere from 0.6× to 0.95× raw, and one disturbed cell at one caller moves its p50
//! by a third. Here the clients take turns against servers started once (raw, pool,
//! pipelined, raw, pool, ...) at each level, each round's ratio is taken against the raw run
//! of the same round, and the targets read the medians over the rounds, with their range.
//! When the run has the Thrift floor ([`PairKind::RawCodec`]), it takes its turn after raw's,
//! and our clients are also judged against it.

use std::net::SocketAddr;
use std::time::Duration;

use thrift_loadtest::Stats;

use crate::compare::{run_client, start_server, PairKind, RunArgs};
use crate::cpu::CpuPerCall;

/// The callers at which throughput and CPU time are judged.
pub const LEVEL: usize = 64;

/// The levels the rounds run at, when the run has them: one caller for latency, then
/// [`LEVEL`].
pub const LEVELS: [usize; 2] = [1, LEVEL];

/// The pairs the rounds need: the ceiling first in each round.
pub const PAIRS: [PairKind; 3] = [PairKind::Raw, PairKind::OursPool, PairKind::OursPipelined];

/// The pairs that take turns, in their order: [`PAIRS`], with the Thrift floor after the
/// ceiling when `asked` has it.
pub fn turns(asked: &[PairKind]) -> Vec<PairKind> {
    let mut turns = PAIRS.to_vec();
    if asked.contains(&PairKind::RawCodec) {
        turns.insert(1, PairKind::RawCodec);
    }
    turns
}

/// The server a turn's client loads: the raw pairs their own, ours one for both clients.
fn server_of(pair: PairKind) -> PairKind {
    match pair {
        PairKind::Raw | PairKind::RawCodec => pair,
        _ => PairKind::OursPool,
    }
}

/// One client run of one round.
#[derive(Clone, Debug)]
pub struct RoundRun {
    /// Which round, from 0.
    pub round: usize,
    /// Its callers.
    pub concurrency: usize,
    /// Which pair.
    pub pair: PairKind,
    /// What the client measured.
    pub stats: Stats,
    /// CPU time per call, when `/proc` said.
    pub cpu: Option<CpuPerCall>,
}

/// A figure over the rounds: its median and range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The median (of an even count, the mean of the middle two).
    pub median: f64,
    /// The lowest.
    pub min: f64,
    /// The highest.
    pub max: f64,
    /// How many rounds gave one.
    pub rounds: usize,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(mut values: Vec<f64>) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 };
        Some(Spread { median, min: values[0], max: values[n - 1], rounds: n })
    }
}

/// The levels of [`LEVELS`] that `args` asks for rounds at: none unless it asks for rounds
/// and for every pair of [`PAIRS`].
pub fn levels(args: &RunArgs, pairs: &[PairKind]) -> Vec<usize> {
    if args.rounds == 0 || !PAIRS.iter().all(|p| pairs.contains(p)) {
        return Vec::new();
    }
    LEVELS.into_iter().filter(|c| args.concurrency.contains(c)).collect()
}

/// Runs `args.rounds` rounds of `turns` at each of `levels`, each client for
/// `args.duration`. A run that fails is left out (and said on stderr); a server that does
/// not start ends the rounds.
pub fn run(args: &RunArgs, levels: &[usize], turns: &[PairKind]) -> Result<Vec<RoundRun>, String> {
    // Each server is started once, before the first round.
    let mut servers: Vec<(PairKind, SocketAddr, crate::compare::ServerProcess)> = Vec::new();
    for &pair in turns {
        let kind = server_of(pair);
        if servers.iter().any(|(k, ..)| *k == kind) {
            continue;
        }
        let port = crate::compare::free_port().map_err(|e| format!("no free port: {e}"))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut server = start_server(&kind.pair(), port, args, &Err("not asked for".into()))?;
        server.wait_listening(addr, Duration::from_secs(20))?;
        servers.push((kind, addr, server));
    }
    let mut runs = Vec::new();
    for round in 0..args.rounds {
        for &concurrency in levels {
            for &pair in turns {
                let (_, addr, server) =
                    servers.iter().find(|(kind, ..)| *kind == server_of(pair)).expect("started above");
                let turn = format!("round {} of {}, {} × {concurrency}", round + 1, args.rounds, pair.pair().name);
                match run_client(&pair.pair(), (*addr, server.id()), concurrency, args.warmup, args) {
                    Ok(report) => {
                        eprintln!("{turn}: {:.0} QPS, p50 {} µs", report.stats.qps, report.stats.p50_us);
                        runs.push(RoundRun { round, concurrency, pair, stats: report.stats, cpu: report.cpu });
                    }
                    Err(e) => eprintln!("{turn}: {e}"),
                }
                // Let the sockets of the last run close before the next.
                std::thread::sleep(Duration::from_millis(300));
            }
        }
    }
    Ok(runs)
}

/// `pair`'s runs at `concurrency`.
fn of(runs: &[RoundRun], pair: PairKind, concurrency: usize) -> impl Iterator<Item = &RoundRun> {
    runs.iter().filter(move |r| r.pair == pair && r.concurrency == concurrency)
}

/// `pair`'s QPS over `base`'s in the same round (the raw ceiling's, or the Thrift floor's),
/// at [`LEVEL`], over the rounds where both ran.
pub fn ratio_to(runs: &[RoundRun], pair: PairKind, base: PairKind) -> Option<Spread> {
    let base_qps = |round| of(runs, base, LEVEL).find(|r| r.round == round).map(|r| r.stats.qps);
    let ratios = of(runs, pair, LEVEL)
        .filter_map(|ours| Some((ours.stats.qps, base_qps(ours.round)?)))
        .filter(|&(_, base)| base > 0.0)
        .map(|(ours, base)| ours / base)
        .collect();
    Spread::of(ratios)
}

/// `pair`'s QPS over the rounds, at [`LEVEL`].
pub fn qps(runs: &[RoundRun], pair: PairKind) -> Option<Spread> {
    Spread::of(of(runs, pair, LEVEL).map(|r| r.stats.qps).collect())
}

/// `pair`'s p50 latency over the rounds at one caller, µs.
pub fn p50_alone(runs: &[RoundRun], pair: PairKind) -> Option<Spread> {
    Spread::of(of(runs, pair, 1).map(|r| r.stats.p50_us as f64).collect())
}

/// `pair`'s CPU time per call over the rounds at [`LEVEL`]: the median of each side apart.
pub fn cpu(runs: &[RoundRun], pair: PairKind) -> Option<CpuPerCall> {
    let cpus: Vec<CpuPerCall> = of(runs, pair, LEVEL).filter_map(|r| r.cpu).collect();
    let server_us = Spread::of(cpus.iter().map(|c| c.server_us).collect())?.median;
    let client_us = Spread::of(cpus.iter().map(|c| c.client_us).collect())?.median;
    Some(CpuPerCall { server_us, client_us })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(round: usize, pair: PairKind, qps: f64, cpu: Option<(f64, f64)>) -> RoundRun {
        let stats = Stats { qps, ..Stats::default() };
        let cpu = cpu.map(|(server_us, client_us)| CpuPerCall { server_us, client_us });
        RoundRun { round, concurrency: LEVEL, pair, stats, cpu }
    }

    #[test]
    fn the_spread_is_the_median_and_range() {
        let odd = Spread::of(vec![3.0, 1.0, 2.0]).unwrap();
        assert_eq!(odd, Spread { median: 2.0, min: 1.0, max: 3.0, rounds: 3 });
        assert_eq!(Spread::of(vec![4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert_eq!(Spread::of(Vec::new()), None);
    }

    #[test]
    fn each_ratio_is_against_the_raw_run_of_its_own_round() {
        let runs = vec![
            run(0, PairKind::Raw, 100.0, Some((5.0, 5.0))),
            run(0, PairKind::OursPool, 80.0, Some((8.0, 7.0))),
            run(1, PairKind::Raw, 200.0, Some((4.0, 4.0))),
            run(1, PairKind::OursPool, 180.0, Some((6.0, 9.0))),
            // A round whose raw run failed gives no ratio.
            run(2, PairKind::OursPool, 50.0, None),
            // Nor does one at another level.
            RoundRun { concurrency: 1, ..run(3, PairKind::Raw, 1.0, None) },
            RoundRun { concurrency: 1, ..run(3, PairKind::OursPool, 1.0, None) },
        ];
        let ratio = ratio_to(&runs, PairKind::OursPool, PairKind::Raw).unwrap();
        assert_eq!((ratio.min, ratio.max, ratio.rounds), (0.8, 0.9, 2));
        assert!((ratio.median - 0.85).abs() < 1e-9);
        assert_eq!(qps(&runs, PairKind::OursPool).unwrap().median, 80.0);
        assert_eq!(cpu(&runs, PairKind::OursPool), Some(CpuPerCall { server_us: 7.0, client_us: 8.0 }));
        assert_eq!(ratio_to(&runs, PairKind::OursPipelined, PairKind::Raw), None);
        let alone = |p50_us| RoundRun {
            concurrency: 1,
            stats: Stats { p50_us, ..Stats::default() },
            ..run(0, PairKind::OursPool, 0.0, None)
        };
        let p50 = p50_alone(&[alone(30), alone(20), runs[1].clone()], PairKind::OursPool).unwrap();
        assert_eq!((p50.median, p50.rounds), (25.0, 2));
    }
}
