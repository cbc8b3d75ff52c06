//! The summary's chart: throughput per library and shape, one panel per protocol and
//! operation, on a log scale (the shapes differ by three orders of magnitude in size).

use std::path::Path;

use plotters::prelude::*;

use crate::cases::{Library, Op, Proto, ShapeKind};
use crate::report::Results;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 820;

fn color(lib: Library) -> RGBColor {
    match lib {
        Library::Ours => RGBColor(31, 119, 180),
        Library::OursZeroCopy => RGBColor(23, 190, 207),
        Library::OursShared => RGBColor(44, 160, 44),
        Library::Pilota => RGBColor(255, 127, 14),
        Library::Apache => RGBColor(127, 127, 127),
    }
}

/// Draws the chart of `results` as an SVG file at `path`.
pub fn write_svg(results: &Results, path: &Path, subtitle: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (head, body) = root.split_vertically(60);
    head.draw_text(
        "Codec throughput, MB/s of encoded message (higher is better; log scale)",
        &("sans-serif", 22).into_text_style(&head),
        (20, 10),
    )?;
    head.draw_text(subtitle, &("sans-serif", 14).into_text_style(&head).color(&RGBColor(90, 90, 90)), (20, 38))?;

    // One legend for all panels, in the header.
    for (i, lib) in Library::ALL.into_iter().enumerate() {
        let x = 700 + 150 * (i as i32 % 3);
        let y = 12 + 20 * (i as i32 / 3);
        head.draw(&Rectangle::new([(x, y), (x + 14, y + 12)], color(lib).filled()))?;
        head.draw_text(lib.name(), &("sans-serif", 14).into_text_style(&head), (x + 20, y))?;
    }

    // Whole powers of ten around the data, so that every bar's height can be compared.
    let rates = results.0.iter().filter_map(|m| m.mb_per_s());
    let (min, max) = rates.fold((f64::MAX, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (low, high) = (10f64.powf((min / 2.0).log10().floor()), 10f64.powf((max * 1.2).log10().ceil()));
    let panels = body.split_evenly((2, 2));
    let cells = [
        (Proto::Binary, Op::Encode),
        (Proto::Binary, Op::Decode),
        (Proto::Compact, Op::Encode),
        (Proto::Compact, Op::Decode),
    ];
    for (panel, (proto, op)) in panels.iter().zip(cells) {
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{} {}", proto.name(), op.name()), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(28)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..3f64, (low..high).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(7)
            .x_label_formatter(&|x| {
                // Group centres are at 0.5, 1.5, 2.5.
                let i = (x - 0.5).round();
                if (x - 0.5 - i).abs() < 1e-6 && (0.0..3.0).contains(&i) {
                    ShapeKind::ALL[i as usize].name().to_string()
                } else {
                    String::new()
                }
            })
            .y_desc("MB/s")
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        for (li, lib) in Library::ALL.into_iter().enumerate() {
            let bars: Vec<_> = ShapeKind::ALL
                .into_iter()
                .enumerate()
                .filter_map(|(si, shape)| {
                    let x0 = si as f64 + 0.1 + li as f64 * 0.2;
                    let v = results.get(lib, shape, proto, op)?.mb_per_s()?;
                    Some(Rectangle::new([(x0, low), (x0 + 0.18, v)], color(lib).filled()))
                })
                .collect();
            chart.draw_series(bars)?;
            // A cell the library gets wrong is marked where its bar would be.
            let failures: Vec<_> = ShapeKind::ALL
                .into_iter()
                .enumerate()
                .filter(|&(_, shape)| results.get(lib, shape, proto, op).is_some_and(|m| m.ns.is_err()))
                .map(|(si, _)| {
                    let x0 = si as f64 + 0.1 + li as f64 * 0.2;
                    Text::new("fails", (x0, low * 1.5), ("sans-serif", 12).into_font().color(&RED))
                })
                .collect();
            chart.draw_series(failures)?;
        }
    }
    root.present()?;
    Ok(())
}
