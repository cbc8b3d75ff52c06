//! The walker in its two modes: `skip` over a whole message body (complete mode), a decode
//! whose struct knows only one field, so that the others are skipped as unknown fields (the
//! path a reader on an older schema takes), and the resumable `Scanner` over the whole
//! message at once, for medium and large messages in both protocols.
//!
//! Run: `cargo bench -p thrift-benches --bench skip`.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use thrift_core::{skip, Binary, Compact, Decode, Limits, Protocol, Reader, TType, ThriftStruct};
use thrift_net::codec::{Scan, Scanner};

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Item {
    #[thrift(id = 1)]
    id: i64,
    #[thrift(id = 2)]
    name: String,
    #[thrift(id = 3)]
    score: f64,
    #[thrift(id = 4)]
    active: bool,
    #[thrift(id = 5)]
    tags: Vec<String>,
    #[thrift(id = 6)]
    values: Vec<i32>,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Args {
    #[thrift(id = 1)]
    request_id: i64,
    #[thrift(id = 2)]
    user: String,
    #[thrift(id = 3)]
    items: Vec<Item>,
    #[thrift(id = 4)]
    blob: Bytes,
}

/// What an older reader knows of `Args`: the rest is unknown fields, skipped.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Sparse {
    #[thrift(id = 1)]
    request_id: i64,
}

fn body(items: usize, blob: usize) -> Args {
    Args {
        request_id: 0x1234_5678_9abc,
        user: "alice@example.com".into(),
        items: (0..items)
            .map(|i| Item {
                id: i as i64 * 7_919,
                name: format!("item-{i:05}-{}", "x".repeat(i % 12)),
                score: i as f64 * 1.25,
                active: i % 3 == 0,
                tags: ["red", "green", "blue", "a-much-longer-tag-name"][..1 + i % 4]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                values: (0..8).map(|k| (k * i as i32) - 100).collect(),
            })
            .collect(),
        blob: Bytes::from(vec![0xab; blob]),
    }
}

fn bench<P: Protocol>(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("walk_{}", P::NAME));
    for (name, items, blob) in [("medium", 100, 1024), ("large", 2000, 128 * 1024)] {
        let args = body(items, blob);
        let bytes = thrift_core::to_vec::<P, _>(&args);
        let mut message = Vec::new();
        let header = thrift_core::MessageHeader { name: "bulkUpdate", kind: thrift_core::MessageType::Call, seqid: 7 };
        P::write_message_begin(&mut message, &header);
        message.extend_from_slice(&bytes);
        group.throughput(Throughput::Bytes(bytes.len() as u64));

        group.bench_function(BenchmarkId::new("skip", name), |b| {
            b.iter(|| {
                let mut r = Reader::new(black_box(&bytes));
                skip::<P>(&mut r, TType::Struct).expect("skips");
                r.position()
            })
        });
        group.bench_function(BenchmarkId::new("decode_unknown", name), |b| {
            b.iter(|| Sparse::decode::<P>(&mut Reader::new(black_box(&bytes))).expect("decodes").request_id)
        });
        let mut scanner = Scanner::<P>::new(Limits::default());
        group.bench_function(BenchmarkId::new("scan", name), |b| {
            b.iter(|| {
                scanner.reset();
                match scanner.scan(black_box(&message)) {
                    Ok(Scan::Complete(n)) => n,
                    other => panic!("{other:?}"),
                }
            })
        });
    }
    group.finish();
}

fn walk(c: &mut Criterion) {
    bench::<Binary>(c);
    bench::<Compact>(c);
}

criterion_group! {
    name = benches;
    // 12 cells at about 3 s each.
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2)).sample_size(20);
    targets = walk
}
criterion_main!(benches);
