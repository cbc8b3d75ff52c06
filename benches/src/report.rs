//! The summary's table and target check, as markdown.

use std::fmt::Write;

use crate::cases::{Library, Op, Proto, ShapeKind};

/// The time of one cell, or why it could not be timed.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Who.
    pub lib: Library,
    /// On what.
    pub shape: ShapeKind,
    /// In which protocol.
    pub proto: Proto,
    /// Doing what.
    pub op: Op,
    /// The encoded size of the shape in this protocol.
    pub bytes: usize,
    /// Nanoseconds per operation, or what the correctness check found.
    pub ns: Result<f64, String>,
}

impl Measurement {
    /// Throughput in MB/s (10^6 bytes of encoded message per second).
    pub fn mb_per_s(&self) -> Option<f64> {
        self.ns.as_ref().ok().map(|ns| self.bytes as f64 / ns * 1e3)
    }
}

/// All measurements, looked up by cell.
pub struct Results(pub Vec<Measurement>);

impl Results {
    /// The measurement of one cell.
    pub fn get(&self, lib: Library, shape: ShapeKind, proto: Proto, op: Op) -> Option<&Measurement> {
        self.0.iter().find(|m| m.lib == lib && m.shape == shape && m.proto == proto && m.op == op)
    }

    /// How many times faster `lib` is than `base` on a cell (`base` time / `lib` time).
    pub fn speedup(&self, lib: Library, base: Library, shape: ShapeKind, proto: Proto, op: Op) -> Result<f64, String> {
        let ns = |l| match self.get(l, shape, proto, op).map(|m| &m.ns) {
            Some(Ok(ns)) => Ok(*ns),
            Some(Err(e)) => Err(format!("{} {e}", l.name())),
            None => Err(format!("{} not measured", l.name())),
        };
        Ok(ns(base)? / ns(lib)?)
    }

    /// The table: one section per protocol, one row per shape, operation and library.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for proto in Proto::ALL {
            let _ = writeln!(out, "#### {} protocol\n", proto.name());
            out.push_str("| shape | op | library | ns/op | MB/s | × pilota | × Apache |\n");
            out.push_str("| --- | --- | --- | ---: | ---: | ---: | ---: |\n");
            for shape in ShapeKind::ALL {
                for op in Op::ALL {
                    for lib in Library::ALL {
                        let Some(m) = self.get(lib, shape, proto, op) else { continue };
                        let shape_cell = format!("{} ({} B)", shape.name(), m.bytes);
                        let (ns, mbs) = match &m.ns {
                            Ok(ns) => (format_ns(*ns), format!("{:.0}", m.mb_per_s().unwrap_or_default())),
                            Err(e) => (format!("**fails**: {e}"), "—".into()),
                        };
                        let ratio = |base| match self.speedup(lib, base, shape, proto, op) {
                            Ok(r) => format!("{r:.2}"),
                            Err(_) => "—".into(),
                        };
                        let _ = writeln!(
                            out,
                            "| {shape_cell} | {} | {} | {ns} | {mbs} | {} | {} |",
                            op.name(),
                            lib.name(),
                            ratio(Library::Pilota),
                            ratio(Library::Apache)
                        );
                    }
                }
            }
            out.push('\n');
        }
        out
    }

    /// The targets, each with its measured ratio and whether it is met.
    pub fn targets(&self) -> String {
        let mut out = String::new();
        out.push_str("| target | shape | protocol | op | ours | ours-zero-copy | met |\n");
        out.push_str("| --- | --- | --- | --- | ---: | ---: | --- |\n");
        // `zero_copy_only`: a target on the zero-copy types alone.
        let mut row =
            |name: &str, base: Library, min: f64, shape: ShapeKind, proto: Proto, op: Op, zero_copy_only: bool| {
                let cell = |lib| match self.speedup(lib, base, shape, proto, op) {
                    Ok(r) => (format!("{r:.2}×"), Some(r >= min)),
                    Err(_) => (format!("n/a ({} fails)", base.name()), None),
                };
                let ((owned, owned_met), (zero, zero_met)) = (cell(Library::Ours), cell(Library::OursZeroCopy));
                let met = match (owned_met, zero_met) {
                    (_, Some(true)) if zero_copy_only => "yes",
                    (_, Some(false)) if zero_copy_only => "**no**",
                    (Some(true), Some(true)) => "yes",
                    (Some(false), Some(true)) => "zero-copy only",
                    (Some(_), Some(_)) => "**no**",
                    _ => "n/a",
                };
                let _ = writeln!(
                    out,
                    "| {name} | {} | {} | {} | {owned} | {zero} | {met} |",
                    shape.name(),
                    proto.name(),
                    op.name()
                );
            };
        for (base, min) in [(Library::Pilota, 1.3), (Library::Apache, 3.0)] {
            for proto in Proto::ALL {
                for shape in [ShapeKind::Medium, ShapeKind::Large] {
                    for op in Op::ALL {
                        row(&format!("≥ {min}× {}", base.name()), base, min, shape, proto, op, false);
                    }
                }
            }
        }
        // The string-heavy shape: about a hundred strings in 5.5 KB.
        for proto in Proto::ALL {
            row(
                "zero-copy decode ≥ 2× pilota (string-heavy)",
                Library::Pilota,
                2.0,
                ShapeKind::Medium,
                proto,
                Op::Decode,
                true,
            );
        }
        out
    }
}

fn format_ns(ns: f64) -> String {
    if ns >= 100.0 {
        format!("{ns:.0}")
    } else {
        format!("{ns:.1}")
    }
}
