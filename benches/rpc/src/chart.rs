//! docs/bench-rpc.svg: QPS per pair, grouped by concurrency, each bar's p99 written on it.

use std::path::Path;

use thrift_charts::{Bar, BarChart, Panel, Scale, Series};

use crate::compare::{PairKind, Results};

fn color(pair: PairKind) -> (u8, u8, u8) {
    match pair {
        PairKind::OursPipelined => (31, 119, 180),
        PairKind::OursPool => (23, 190, 207),
        PairKind::OursPerCall => (214, 39, 40),
        PairKind::Volo => (255, 127, 14),
        PairKind::VoloMultiplex => (255, 187, 120),
        PairKind::Apache => (127, 127, 127),
        PairKind::ApacheNagle => (199, 199, 199),
        PairKind::Java => (148, 103, 189),
        PairKind::JavaOursPool => (197, 176, 213),
        PairKind::Raw => (44, 160, 44),
        PairKind::RawPipelined => (152, 223, 138),
        PairKind::RawCodec => (188, 189, 34),
        PairKind::OursHeader => (174, 199, 232),
        PairKind::OursTtheader => (158, 218, 229),
        PairKind::VoloToOurs => (140, 86, 75),
        PairKind::OursTtheaderToVolo => (196, 156, 148),
    }
}

/// Draws `results` as an SVG bar chart at `path`.
///
/// # Errors
/// When the file cannot be written.
pub fn write_svg(results: &Results, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let levels = &results.args.concurrency;
    let mut pairs: Vec<PairKind> = Vec::new();
    for row in &results.rows {
        if !pairs.contains(&row.pair.kind) && row.outcome.is_ok() {
            pairs.push(row.pair.kind);
        }
    }
    let series = pairs
        .iter()
        .map(|&pair| Series {
            name: pair.pair().name.to_string(),
            color: color(pair),
            bars: levels
                .iter()
                .map(|&c| results.stats(pair, c).map(|s| Bar::new(s.qps).label(s.p99_us.to_string())))
                .collect(),
        })
        .collect();
    BarChart {
        title: "HelloService.sayHello over loopback: calls per second, log scale (p99 µs on each bar)".into(),
        subtitle: format!(
            "server and client in separate processes on one {}-core machine; {:?} payload; {:.0}s per cell",
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            results.args.payload,
            results.args.duration.as_secs_f64()
        ),
        size: (1200, 620),
        y_desc: "calls per second".into(),
        scale: Scale::Log,
        grid: (1, 1),
        panels: vec![Panel {
            caption: None,
            groups: levels.iter().map(|c| format!("{c} concurrent callers")).collect(),
            series,
        }],
    }
    .write_svg(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_names_every_pair_that_ran_and_only_those() {
        let path = std::env::temp_dir().join(format!("bench-rpc-{}.svg", std::process::id()));
        write_svg(&crate::compare::sample_results(), &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert!(svg.starts_with("<svg"), "{svg:.100}");
        for name in ["ours pipelined", "ours pool", "volo", "raw ceiling", "ours per-call", "64 concurrent callers"] {
            assert!(svg.contains(name), "{name} missing");
        }
        assert!(!svg.contains("apache java"), "a pair that did not run has no bars");
    }
}
