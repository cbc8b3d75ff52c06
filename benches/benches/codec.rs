//! Criterion benchmarks of encode and decode, every library on every shape in both
//! protocols: the cells of `thrift_benches::cases`, checked before they are timed (a
//! library that fails a check on a cell is reported and skipped there).
//!
//! `cargo bench -p thrift-benches --bench codec` takes about five minutes; a filter
//! narrows it, e.g. `cargo bench -p thrift-benches --bench codec -- binary/decode/medium`.
//! `cargo run --release -p thrift-benches --bin bench-summary` times the same cells faster
//! and writes BENCHMARKS.md.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use thrift_benches::cases::{self, Library, Op, Proto, ShapeKind};
use thrift_benches::data::Values;

fn codec(c: &mut Criterion) {
    let values: &'static Values = Box::leak(Box::new(Values::new()));
    for proto in Proto::ALL {
        for op in Op::ALL {
            for shape in ShapeKind::ALL {
                let mut group = c.benchmark_group(format!("{}/{}/{}", proto.name(), op.name(), shape.name()));
                for lib in Library::ALL {
                    let prepared = cases::prepare(values, lib, shape, proto, op);
                    group.throughput(Throughput::Bytes(prepared.bytes as u64));
                    match prepared.routine {
                        Ok(mut routine) => {
                            group.bench_function(BenchmarkId::from_parameter(lib.name()), |b| b.iter(&mut routine));
                        }
                        Err(e) => eprintln!(
                            "{}/{}/{}/{}: fails, not timed: {e}",
                            proto.name(),
                            op.name(),
                            shape.name(),
                            lib.name()
                        ),
                    }
                }
                group.finish();
            }
        }
    }
}

criterion_group! {
    name = benches;
    // 44 timed cells at about 3.5 s each: about five minutes in all.
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2)).sample_size(20);
    targets = codec
}
criterion_main!(benches);
