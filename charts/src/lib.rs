//! The one chart this project draws, in its variants: bars grouped along the x axis (by
//! concurrency, by message shape), one bar per series in each group, optionally a label
//! above each bar; one panel or a grid of them; a linear or a log scale. The main job
//! (`thrift-loadtest`), the codec summary (`bench-summary`) and the RPC comparison
//! (`rpc-compare`) describe their data as a [`BarChart`] and call [`BarChart::write_svg`].
//!
//! ```
//! use thrift_charts::{Bar, BarChart, Panel, Scale, Series};
//!
//! let chart = BarChart {
//!     title: "calls per second".into(),
//!     subtitle: "a test".into(),
//!     size: (640, 400),
//!     y_desc: "calls per second".into(),
//!     scale: Scale::Linear,
//!     grid: (1, 1),
//!     panels: vec![Panel {
//!         caption: None,
//!         groups: vec!["1 caller".into(), "8 callers".into()],
//!         series: vec![Series {
//!             name: "pool".into(),
//!             color: (44, 160, 44),
//!             bars: vec![Some(Bar::new(900.0).label("p99 40 µs")), None],
//!         }],
//!     }],
//! };
//! let path = std::env::temp_dir().join(format!("chart-doc-{}.svg", std::process::id()));
//! chart.write_svg(&path).unwrap();
//! let svg = std::fs::read_to_string(&path).unwrap();
//! std::fs::remove_file(&path).ok();
//! assert!(svg.contains("p99 40 µs") && svg.contains("8 callers"));
//! ```

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

/// A chart of grouped bars, in one panel or a grid of them.
#[derive(Clone, Debug)]
pub struct BarChart {
    /// The line at the top.
    pub title: String,
    /// The grey line under it: what was measured, where, how long.
    pub subtitle: String,
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// What the y axis counts.
    pub y_desc: String,
    /// How values map to heights (the same in every panel, so panels compare).
    pub scale: Scale,
    /// Rows and columns of panels; `panels` fills it row by row.
    pub grid: (usize, usize),
    /// The panels.
    pub panels: Vec<Panel>,
}

/// How bar heights are scaled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// From zero to a little above the highest bar.
    Linear,
    /// Logarithmic, between whole powers of ten around the values (for data spanning
    /// orders of magnitude).
    Log,
}

/// One panel: its groups along the x axis and the series drawn in each.
#[derive(Clone, Debug)]
pub struct Panel {
    /// The panel's own title (none for a chart of one panel).
    pub caption: Option<String>,
    /// The groups' names, left to right.
    pub groups: Vec<String>,
    /// The series, each a bar (or none) per group, drawn side by side within a group.
    pub series: Vec<Series>,
}

/// One series: a name and color for the legend, a bar per group.
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend's name.
    pub name: String,
    /// The bars' color, RGB.
    pub color: (u8, u8, u8),
    /// A bar per group of the panel (`None`: nothing measured there).
    pub bars: Vec<Option<Bar>>,
}

/// One bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Its height.
    pub value: f64,
    /// Text written above it (a p99 latency, "no calls").
    pub label: Option<String>,
    /// Whether the measurement failed: the bar is replaced by a red "fails".
    pub failed: bool,
}

impl Bar {
    /// A bar of height `value`.
    pub fn new(value: f64) -> Bar {
        Bar { value, label: None, failed: false }
    }

    /// A failed measurement, marked where its bar would be.
    pub fn failed() -> Bar {
        Bar { value: 0.0, label: None, failed: true }
    }

    /// The same bar with `text` above it.
    pub fn label(mut self, text: impl Into<String>) -> Bar {
        self.label = Some(text.into());
        self
    }
}

const HEADER: u32 = 60;
const GREY: RGBColor = RGBColor(90, 90, 90);

impl BarChart {
    /// Draws the chart as an SVG file at `path`.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write_svg(&self, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(path, self.size).into_drawing_area();
        root.fill(&WHITE)?;
        let (head, body) = root.split_vertically(HEADER);
        head.draw_text(&self.title, &("sans-serif", 20).into_text_style(&head), (16, 8))?;
        head.draw_text(&self.subtitle, &("sans-serif", 13).into_text_style(&head).color(&GREY), (16, 36))?;
        let several = self.panels.len() > 1;
        if several {
            self.draw_header_legend(&head)?;
        }
        let (low, high) = self.range();
        let areas = body.split_evenly(self.grid);
        for (area, panel) in areas.iter().zip(&self.panels) {
            self.draw_panel(area, panel, (low, high), !several)?;
        }
        root.present()?;
        Ok(())
    }

    /// The y range every panel shares.
    fn range(&self) -> (f64, f64) {
        let values = self.panels.iter().flat_map(|p| &p.series).flat_map(|s| s.bars.iter().flatten());
        let (min, max) = values
            .filter(|b| !b.failed && b.value > 0.0)
            .fold((f64::MAX, 1.0f64), |(lo, hi), b| (lo.min(b.value), hi.max(b.value)));
        match self.scale {
            // Room above the highest bar for its label.
            Scale::Linear => (0.0, max * 1.15),
            Scale::Log => {
                let min = if min == f64::MAX { 1.0 } else { min };
                (10f64.powf((min / 2.0).log10().floor()), 10f64.powf((max * 1.5).log10().ceil()))
            }
        }
    }

    /// Every series name once, in the header's right half, for a grid of panels.
    fn draw_header_legend(&self, head: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), Box<dyn std::error::Error>> {
        let mut seen: Vec<(&str, (u8, u8, u8))> = Vec::new();
        for series in self.panels.iter().flat_map(|p| &p.series) {
            if !seen.iter().any(|(name, _)| *name == series.name) {
                seen.push((&series.name, series.color));
            }
        }
        // Up to three rows of three under the header's right half.
        let left = self.size.0 as i32 - 470;
        for (i, (name, (r, g, b))) in seen.into_iter().enumerate() {
            let (x, y) = (left + 150 * (i as i32 % 3), 6 + 17 * (i as i32 / 3));
            head.draw(&Rectangle::new([(x, y), (x + 14, y + 12)], RGBColor(r, g, b).filled()))?;
            head.draw_text(name, &("sans-serif", 14).into_text_style(head), (x + 20, y))?;
        }
        Ok(())
    }

    fn draw_panel(
        &self,
        area: &DrawingArea<SVGBackend<'_>, Shift>,
        panel: &Panel,
        (low, high): (f64, f64),
        legend: bool,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let groups = panel.groups.len().max(1);
        let mut builder = ChartBuilder::on(area);
        if let Some(caption) = &panel.caption {
            builder.caption(caption, ("sans-serif", 18));
        }
        builder.margin(14).x_label_area_size(36).y_label_area_size(64);
        let x = 0f64..groups as f64;
        let width = 0.84 / panel.series.len().max(1) as f64;
        let mut bars = Vec::new();
        for (si, series) in panel.series.iter().enumerate() {
            for (gi, bar) in series.bars.iter().enumerate() {
                if let Some(bar) = bar {
                    bars.push((gi as f64 + 0.08 + si as f64 * width, si, bar));
                }
            }
        }
        let label_above = |v: f64| match self.scale {
            Scale::Linear => v + (high - low) * 0.02,
            Scale::Log => v * 1.12,
        };
        // Two coordinate types (linear, log) with the same drawing: one generic body.
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .disable_x_mesh()
                    .x_labels(groups * 2 + 1)
                    .x_label_formatter(&|x| group_label(*x, &panel.groups))
                    .y_desc(&self.y_desc)
                    .y_label_formatter(&|y| format!("{y:.0}"))
                    .draw()?;
                for (si, series) in panel.series.iter().enumerate() {
                    let (r, g, b) = series.color;
                    let color = RGBColor(r, g, b);
                    let rects = bars.iter().filter(|(_, s, bar)| *s == si && !bar.failed).map(|&(x0, _, bar)| {
                        Rectangle::new([(x0, low), (x0 + width * 0.9, bar.value.max(low))], color.filled())
                    });
                    let drawn = chart.draw_series(rects)?;
                    if legend {
                        drawn
                            .label(series.name.as_str())
                            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
                    }
                }
                let texts = bars.iter().filter_map(|&(x0, _, bar)| match (bar.failed, &bar.label) {
                    (true, _) => Some(Text::new(
                        "fails".to_string(),
                        (x0, label_above(low)),
                        ("sans-serif", 12).into_font().color(&RED),
                    )),
                    (false, Some(text)) => Some(Text::new(
                        text.clone(),
                        (x0, label_above(bar.value.max(low))),
                        ("sans-serif", 10).into_font(),
                    )),
                    (false, None) => None,
                });
                chart.draw_series(texts)?;
                if legend {
                    chart
                        .configure_series_labels()
                        .position(SeriesLabelPosition::UpperLeft)
                        .background_style(WHITE.mix(0.85))
                        .border_style(BLACK.mix(0.3))
                        .draw()?;
                }
            }};
        }
        match self.scale {
            Scale::Linear => draw!(builder.build_cartesian_2d(x, low..high)?),
            Scale::Log => draw!(builder.build_cartesian_2d(x, (low..high).log_scale())?),
        }
        Ok(())
    }
}

/// The label under a group of bars: its name at the group's centre (0.5, 1.5, ...), nothing
/// at the other tick positions.
fn group_label(x: f64, groups: &[String]) -> String {
    let i = (x - 0.5).round();
    if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < groups.len() {
        groups[i as usize].clone()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(scale: Scale, panels: usize) -> BarChart {
        let panel = |i: usize| Panel {
            caption: (panels > 1).then(|| format!("panel {i}")),
            groups: vec!["small".into(), "large".into()],
            series: vec![
                Series {
                    name: "ours".into(),
                    color: (31, 119, 180),
                    bars: vec![Some(Bar::new(10.0)), Some(Bar::new(5000.0).label("top"))],
                },
                Series { name: "peer".into(), color: (255, 127, 14), bars: vec![Some(Bar::failed()), None] },
            ],
        };
        BarChart {
            title: "title".into(),
            subtitle: "subtitle".into(),
            size: (800, 500),
            y_desc: "MB/s".into(),
            scale,
            grid: if panels > 1 { (2, 2) } else { (1, 1) },
            panels: (0..panels).map(panel).collect(),
        }
    }

    fn svg(chart: &BarChart) -> String {
        let path = std::env::temp_dir().join(format!(
            "chart-test-{}-{:?}-{}.svg",
            std::process::id(),
            chart.scale,
            chart.panels.len()
        ));
        chart.write_svg(&path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).ok();
        svg
    }

    #[test]
    fn every_series_group_label_and_failure_is_drawn() {
        for (scale, panels) in [(Scale::Linear, 1), (Scale::Log, 4)] {
            let svg = svg(&chart(scale, panels));
            assert!(svg.starts_with("<svg"), "{svg:.60}");
            for text in ["title", "subtitle", "ours", "peer", "small", "large", "top", "fails", "MB/s"] {
                assert!(svg.contains(text), "{text} missing ({scale:?}, {panels} panels)");
            }
            assert_eq!(svg.matches("panel ").count(), if panels > 1 { 4 } else { 0 });
        }
    }

    #[test]
    fn a_log_scale_spans_whole_powers_of_ten_around_the_values() {
        assert_eq!(chart(Scale::Log, 1).range(), (1.0, 10_000.0));
        let (low, high) = chart(Scale::Linear, 1).range();
        assert!(low == 0.0 && high > 5000.0);
    }
}
