//! The ratios the issue-22 targets judge (our pool and our pipelined client against the raw
//! ceiling at 64 callers), measured in interleaved rounds rather than once.
//!
//! On a shared two-core machine one five-second cell moves by ±15% from run to run, and the
//! raw ceiling's cell runs minutes apart from ours: a single pair of cells can put the same
//! build anywhere from 0.6× to 0.95× raw. Here the three clients take turns against
//! servers started once (raw, pool, pipelined, raw, pool, ...), each round's ratio is taken
//! against the raw run of the same round, and the targets read the median over the rounds,
//! with its range.

use std::net::SocketAddr;
use std::time::Duration;

use thrift_loadtest::Stats;

use crate::compare::{run_client, start_server, PairKind, RunArgs};
use crate::cpu::CpuPerCall;

/// The callers of every round.
pub const LEVEL: usize = 64;

/// The pairs that take turns: the ceiling first in each round.
pub const PAIRS: [PairKind; 3] = [PairKind::Raw, PairKind::OursPool, PairKind::OursPipelined];

/// One client run of one round.
#[derive(Clone, Debug)]
pub struct RoundRun {
    /// Which round, from 0.
    pub round: usize,
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

/// Whether `args` asks for the rounds and for everything they need.
pub fn wanted(args: &RunArgs, pairs: &[PairKind]) -> bool {
    args.rounds > 0 && args.concurrency.contains(&LEVEL) && PAIRS.iter().all(|p| pairs.contains(p))
}

/// Runs `args.rounds` rounds of [`PAIRS`] at [`LEVEL`] callers, each client for
/// `args.duration`. A run that fails is left out (and said on stderr); a server that does
/// not start ends the rounds.
pub fn run(args: &RunArgs) -> Result<Vec<RoundRun>, String> {
    // One server of ours serves both of our clients; the raw one its own.
    let mut servers = Vec::new();
    for pair in [PairKind::Raw, PairKind::OursPool] {
        let port = crate::compare::free_port().map_err(|e| format!("no free port: {e}"))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut server = start_server(&pair.pair(), port, args, &Err("not asked for".into()))?;
        server.wait_listening(addr, Duration::from_secs(20))?;
        servers.push((addr, server));
    }
    let mut runs = Vec::new();
    for round in 0..args.rounds {
        for pair in PAIRS {
            let (addr, server) = &servers[usize::from(pair != PairKind::Raw)];
            match run_client(&pair.pair(), (*addr, server.id()), LEVEL, args.warmup, args) {
                Ok(report) => {
                    eprintln!(
                        "round {} of {}, {}: {:.0} QPS",
                        round + 1,
                        args.rounds,
                        pair.pair().name,
                        report.stats.qps
                    );
                    runs.push(RoundRun { round, pair, stats: report.stats, cpu: report.cpu });
                }
                Err(e) => eprintln!("round {} of {}, {}: {e}", round + 1, args.rounds, pair.pair().name),
            }
            // Let the sockets of the last run close before the next.
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    Ok(runs)
}

/// `pair`'s QPS over the raw ceiling's in the same round, over the rounds where both ran.
pub fn ratio_to_raw(runs: &[RoundRun], pair: PairKind) -> Option<Spread> {
    let qps = |round, kind| runs.iter().find(|r| r.round == round && r.pair == kind).map(|r| r.stats.qps);
    let rounds = runs.iter().map(|r| r.round).max().map_or(0, |last| last + 1);
    let ratios = (0..rounds)
        .filter_map(|round| Some((qps(round, pair)?, qps(round, PairKind::Raw)?)))
        .filter(|&(_, raw)| raw > 0.0)
        .map(|(ours, raw)| ours / raw)
        .collect();
    Spread::of(ratios)
}

/// `pair`'s QPS over the rounds.
pub fn qps(runs: &[RoundRun], pair: PairKind) -> Option<Spread> {
    Spread::of(runs.iter().filter(|r| r.pair == pair).map(|r| r.stats.qps).collect())
}

/// `pair`'s CPU time per call over the rounds: the median of each side apart.
pub fn cpu(runs: &[RoundRun], pair: PairKind) -> Option<CpuPerCall> {
    let cpus: Vec<CpuPerCall> = runs.iter().filter(|r| r.pair == pair).filter_map(|r| r.cpu).collect();
    let server_us = Spread::of(cpus.iter().map(|c| c.server_us).collect())?.median;
    let client_us = Spread::of(cpus.iter().map(|c| c.client_us).collect())?.median;
    Some(CpuPerCall { server_us, client_us })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(round: usize, pair: PairKind, qps: f64, cpu: Option<(f64, f64)>) -> RoundRun {
        let stats = Stats { qps, ..Stats::default() };
        RoundRun { round, pair, stats, cpu: cpu.map(|(server_us, client_us)| CpuPerCall { server_us, client_us }) }
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
        ];
        let ratio = ratio_to_raw(&runs, PairKind::OursPool).unwrap();
        assert_eq!((ratio.min, ratio.max, ratio.rounds), (0.8, 0.9, 2));
        assert!((ratio.median - 0.85).abs() < 1e-9);
        assert_eq!(qps(&runs, PairKind::OursPool).unwrap().median, 80.0);
        assert_eq!(cpu(&runs, PairKind::OursPool), Some(CpuPerCall { server_us: 7.0, client_us: 8.0 }));
        assert_eq!(ratio_to_raw(&runs, PairKind::OursPipelined), None);
    }
}
