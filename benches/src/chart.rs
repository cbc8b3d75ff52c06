//! The summary's chart: throughput per library and shape, one panel per protocol and
//! operation, on a log scale (the shapes differ by three orders of magnitude in size);
//! drawn by `thrift-charts`.

use std::path::Path;

use thrift_charts::{Bar, BarChart, Panel, Scale, Series};

use crate::cases::{Library, Op, Proto, ShapeKind};
use crate::report::Results;

fn color(lib: Library) -> (u8, u8, u8) {
    match lib {
        Library::Ours => (31, 119, 180),
        Library::OursZeroCopy => (23, 190, 207),
        Library::OursShared => (44, 160, 44),
        Library::Pilota => (255, 127, 14),
        Library::Apache => (127, 127, 127),
    }
}

/// Draws the chart of `results` as an SVG file at `path`.
///
/// # Errors
/// When the file cannot be written.
pub fn write_svg(results: &Results, path: &Path, subtitle: &str) -> Result<(), Box<dyn std::error::Error>> {
    let panel = |proto: Proto, op: Op| Panel {
        caption: Some(format!("{} {}", proto.name(), op.name())),
        groups: ShapeKind::ALL.iter().map(|s| s.name().to_string()).collect(),
        series: Library::ALL
            .into_iter()
            .map(|lib| Series {
                name: lib.name().to_string(),
                color: color(lib),
                bars: ShapeKind::ALL
                    .into_iter()
                    .map(|shape| {
                        let m = results.get(lib, shape, proto, op)?;
                        // A cell the library gets wrong is marked where its bar would be.
                        Some(m.mb_per_s().map_or_else(Bar::failed, Bar::new))
                    })
                    .collect(),
            })
            .collect(),
    };
    BarChart {
        title: "Codec throughput, MB/s of encoded message (higher is better; log scale)".into(),
        subtitle: subtitle.into(),
        size: (1200, 820),
        y_desc: "MB/s".into(),
        scale: Scale::Log,
        grid: (2, 2),
        panels: vec![
            panel(Proto::Binary, Op::Encode),
            panel(Proto::Binary, Op::Decode),
            panel(Proto::Compact, Op::Encode),
            panel(Proto::Compact, Op::Decode),
        ],
    }
    .write_svg(path)
}
