//! Codec benchmarks (being written).
use criterion::{criterion_group, criterion_main, Criterion};
fn codec(_c: &mut Criterion) {}
criterion_group!(benches, codec);
criterion_main!(benches);
