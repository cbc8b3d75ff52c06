//! What a run measured, as a table for people and JSON for machines.

use std::fmt::Write as _;

use serde::Serialize;

use crate::drive::Stats;
use crate::options::{Payload, ProtocolFlag, Strategy, TransportFlag};

/// One strategy at one concurrency level.
#[derive(Clone, Debug, Serialize)]
pub struct CellResult {
    /// How calls shared connections.
    pub strategy: Strategy,
    /// Concurrent callers.
    pub concurrency: usize,
    /// What was measured.
    #[serde(flatten)]
    pub stats: Stats,
    /// Connections the strategy opened over the whole cell, warm-up included.
    pub connections_opened: u64,
    /// Whether the cell ended early at the per-call connection cap.
    pub capped: bool,
}

/// The settings a run used, repeated in its report.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// The server loaded, or `in-process`.
    pub target: String,
    /// Seconds per cell, warm-up included.
    pub duration_s: f64,
    /// Seconds of warm-up per cell.
    pub warmup_s: f64,
    /// Request size.
    pub payload: Payload,
    /// Framed or buffered.
    pub transport: TransportFlag,
    /// Binary or compact.
    pub protocol: ProtocolFlag,
    /// Over TLS.
    pub tls: bool,
    /// Cores the machine has.
    pub cores: usize,
}

/// Every cell of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// How it was run.
    pub run: RunInfo,
    /// The cells, in the order they ran.
    pub cells: Vec<CellResult>,
}

impl Report {
    /// The cell of `strategy` at `concurrency`, if it ran.
    pub fn cell(&self, strategy: Strategy, concurrency: usize) -> Option<&CellResult> {
        self.cells.iter().find(|c| c.strategy == strategy && c.concurrency == concurrency)
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The report as a text table, one row per cell, with each strategy's QPS relative to
    /// the connection-per-call strategy at the same concurrency when that ran.
    pub fn to_table(&self) -> String {
        let r = &self.run;
        let mut out = format!(
            "HelloService.sayHello on {}: {:?} payload, {:?} {:?}, {:.1}s per cell ({:.1}s warm-up), {} cores\n\n",
            r.target, r.payload, r.transport, r.protocol, r.duration_s, r.warmup_s, r.cores
        );
        let header = ["strategy", "conc", "QPS", "vs per-call", "p50 µs", "p99 µs", "p999 µs", "conns", "errors"];
        let rows: Vec<[String; 9]> = self
            .cells
            .iter()
            .map(|c| {
                let per_call = self.cell(Strategy::PerCall, c.concurrency).filter(|p| p.stats.qps > 0.0);
                let ratio = per_call.map_or_else(|| "-".into(), |p| format!("{:.1}×", c.stats.qps / p.stats.qps));
                let c_stats = &c.stats;
                let errors = if c_stats.errors.is_empty() {
                    "0".to_string()
                } else {
                    c_stats.errors.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", ")
                };
                let conns = format!("{}{}", c.connections_opened, if c.capped { " (cap)" } else { "" });
                [
                    c.strategy.name().to_string(),
                    c.concurrency.to_string(),
                    format!("{:.0}", c_stats.qps),
                    ratio,
                    c_stats.p50_us.to_string(),
                    c_stats.p99_us.to_string(),
                    c_stats.p999_us.to_string(),
                    conns,
                    errors,
                ]
            })
            .collect();
        let mut widths = header.map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
                let pad = w - cell.chars().count();
                // Names and errors read left to right; numbers line up on the right.
                if i == 0 || i == cells.len() - 1 {
                    let _ = write!(s, "{cell}{}  ", " ".repeat(pad));
                } else {
                    let _ = write!(s, "{}{cell}  ", " ".repeat(pad));
                }
            }
            s.trim_end().to_string() + "\n"
        };
        out += &line(&header.map(String::from));
        out += &line(&widths.map(|w| "-".repeat(w)));
        for row in &rows {
            out += &line(row);
        }
        out
    }
}
