//! The run as a bar chart: QPS per strategy, grouped by concurrency, with each bar's p99
//! written above it (drawn by `thrift-charts`).

use std::path::Path;

use thrift_charts::{Bar, BarChart, Panel, Scale, Series};

use crate::options::Strategy;
use crate::report::Report;

fn color(strategy: Strategy) -> (u8, u8, u8) {
    match strategy {
        Strategy::PerCall => (214, 39, 40),
        Strategy::Mutex => (127, 127, 127),
        Strategy::Pool => (44, 160, 44),
        Strategy::Pipelined => (31, 119, 180),
    }
}

/// Draws `report` as an SVG bar chart at `path`.
///
/// # Errors
/// When the file cannot be written.
pub fn write_svg(report: &Report, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut levels: Vec<usize> = report.cells.iter().map(|c| c.concurrency).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut strategies: Vec<Strategy> = report.cells.iter().map(|c| c.strategy).collect();
    strategies.sort_unstable();
    strategies.dedup();
    let series = strategies
        .iter()
        .map(|&strategy| Series {
            name: strategy.name().to_string(),
            color: color(strategy),
            bars: levels
                .iter()
                .map(|&level| {
                    let cell = report.cell(strategy, level)?;
                    let label = match cell.stats.calls {
                        0 => "no calls".to_string(),
                        _ => format!("p99 {} µs", cell.stats.p99_us),
                    };
                    Some(Bar::new(cell.stats.qps).label(label))
                })
                .collect(),
        })
        .collect();
    let r = &report.run;
    BarChart {
        title: "HelloService.sayHello: calls per second by client strategy (p99 latency above each bar)".into(),
        subtitle: format!(
            "{}; {:?} payload, {:?} {:?}; {:.1}s per cell; {} cores",
            r.target, r.payload, r.transport, r.protocol, r.duration_s, r.cores
        ),
        size: (1000, 560),
        y_desc: "calls per second".into(),
        scale: Scale::Linear,
        grid: (1, 1),
        panels: vec![Panel { caption: None, groups: levels.iter().map(|l| format!("{l} callers")).collect(), series }],
    }
    .write_svg(path)
}
