//! docs/bench-rpc.svg: QPS per pair, grouped by concurrency, each bar's p99 written on it.

use std::path::Path;

use plotters::prelude::*;

use crate::compare::{PairKind, Results};

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 620;
/// The bottom of the log scale: below the slowest pair (Nagle's, a few hundred QPS).
const MIN_QPS: f64 = 100.0;

fn color(pair: PairKind) -> RGBColor {
    match pair {
        PairKind::OursPipelined => RGBColor(31, 119, 180),
        PairKind::OursPool => RGBColor(23, 190, 207),
        PairKind::OursPerCall => RGBColor(214, 39, 40),
        PairKind::Volo => RGBColor(255, 127, 14),
        PairKind::VoloMultiplex => RGBColor(255, 187, 120),
        PairKind::Apache => RGBColor(127, 127, 127),
        PairKind::ApacheNagle => RGBColor(199, 199, 199),
        PairKind::Java => RGBColor(148, 103, 189),
        PairKind::JavaOursPool => RGBColor(197, 176, 213),
        PairKind::Raw => RGBColor(44, 160, 44),
        PairKind::RawPipelined => RGBColor(152, 223, 138),
        PairKind::OursHeader => RGBColor(174, 199, 232),
        PairKind::OursTtheader => RGBColor(158, 218, 229),
        PairKind::VoloToOurs => RGBColor(140, 86, 75),
        PairKind::OursTtheaderToVolo => RGBColor(196, 156, 148),
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
    let max_qps =
        results.rows.iter().filter_map(|r| r.outcome.as_ref().ok()).map(|s| s.qps).fold(1000.0, f64::max) * 3.0;

    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (head, body) = root.split_vertically(56);
    head.draw_text(
        "HelloService.sayHello over loopback: calls per second, log scale (p99 µs on each bar)",
        &("sans-serif", 20).into_text_style(&head),
        (16, 8),
    )?;
    let subtitle = format!(
        "server and client in separate processes on one {}-core machine; {:?} payload; {:.0}s per cell",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        results.args.payload,
        results.args.duration.as_secs_f64()
    );
    head.draw_text(&subtitle, &("sans-serif", 13).into_text_style(&head).color(&RGBColor(90, 90, 90)), (16, 34))?;

    let mut chart = ChartBuilder::on(&body)
        .margin(14)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..levels.len().max(1) as f64, (MIN_QPS..max_qps).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(levels.len() * 2 + 1)
        .x_label_formatter(&|x| thrift_loadtest::chart::group_label(*x, levels, "concurrent callers"))
        .y_desc("calls per second")
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;

    let width = 0.84 / pairs.len().max(1) as f64;
    for (pi, &pair) in pairs.iter().enumerate() {
        let name = pair.pair().name;
        let cells: Vec<(f64, f64, u64)> = levels
            .iter()
            .enumerate()
            .filter_map(|(li, &c)| {
                let s = results.stats(pair, c)?;
                Some((li as f64 + 0.08 + pi as f64 * width, s.qps, s.p99_us))
            })
            .collect();
        chart
            .draw_series(cells.iter().map(|&(x0, qps, _)| {
                Rectangle::new([(x0, MIN_QPS), (x0 + width * 0.9, qps.max(MIN_QPS))], color(pair).filled())
            }))?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color(pair).filled()));
        chart.draw_series(cells.iter().map(|&(x0, qps, p99)| {
            Text::new(format!("{p99}"), (x0, qps.max(MIN_QPS) * 1.12), ("sans-serif", 10).into_font())
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    root.present()?;
    Ok(())
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
