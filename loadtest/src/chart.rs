//! The run as a bar chart: QPS per strategy, grouped by concurrency, with each bar's p99
//! written above it.

use std::path::Path;

use plotters::prelude::*;

use crate::options::Strategy;
use crate::report::Report;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 560;

fn color(strategy: Strategy) -> RGBColor {
    match strategy {
        Strategy::PerCall => RGBColor(214, 39, 40),
        Strategy::Mutex => RGBColor(127, 127, 127),
        Strategy::Pool => RGBColor(44, 160, 44),
        Strategy::Pipelined => RGBColor(31, 119, 180),
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
    let max_qps = report.cells.iter().map(|c| c.stats.qps).fold(1.0, f64::max) * 1.15;

    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (head, body) = root.split_vertically(56);
    let r = &report.run;
    head.draw_text(
        "HelloService.sayHello: calls per second by client strategy (p99 latency above each bar)",
        &("sans-serif", 20).into_text_style(&head),
        (16, 8),
    )?;
    let subtitle = format!(
        "{}; {:?} payload, {:?} {:?}; {:.1}s per cell; {} cores",
        r.target, r.payload, r.transport, r.protocol, r.duration_s, r.cores
    );
    head.draw_text(&subtitle, &("sans-serif", 13).into_text_style(&head).color(&RGBColor(90, 90, 90)), (16, 34))?;

    let groups = levels.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&body)
        .margin(14)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..groups, 0f64..max_qps)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(levels.len() * 2 + 1)
        .x_label_formatter(&|x| group_label(*x, &levels, "callers"))
        .y_desc("calls per second")
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;

    let width = 0.8 / strategies.len().max(1) as f64;
    for (si, &strategy) in strategies.iter().enumerate() {
        let bars: Vec<_> = levels
            .iter()
            .enumerate()
            .filter_map(|(li, &level)| {
                let cell = report.cell(strategy, level)?;
                let x0 = li as f64 + 0.1 + si as f64 * width;
                Some(Rectangle::new([(x0, 0.0), (x0 + width * 0.9, cell.stats.qps)], color(strategy).filled()))
            })
            .collect();
        chart
            .draw_series(bars)?
            .label(strategy.name())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color(strategy).filled()));
        let labels: Vec<_> = levels
            .iter()
            .enumerate()
            .filter_map(|(li, &level)| {
                let cell = report.cell(strategy, level)?;
                let x0 = li as f64 + 0.1 + si as f64 * width;
                let text = if cell.stats.calls == 0 {
                    "no calls".to_string()
                } else {
                    format!("p99 {} µs", cell.stats.p99_us)
                };
                Some(Text::new(text, (x0, cell.stats.qps + max_qps * 0.02), ("sans-serif", 11).into_font()))
            })
            .collect();
        chart.draw_series(labels)?;
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

/// The label under a group of bars: `"{level} {unit}"` at a group's centre (0.5, 1.5, ...),
/// nothing at the other tick positions.
pub fn group_label(x: f64, levels: &[usize], unit: &str) -> String {
    let i = (x - 0.5).round();
    if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < levels.len() {
        format!("{} {unit}", levels[i as usize])
    } else {
        String::new()
    }
}
