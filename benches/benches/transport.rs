//! The transports: the buffered path (skip-scan to find the message's end, then decode) against
//! the framed path (length prefix, then decode), for small, medium and large messages in both
//! protocols; and the buffered scanner fed in chunks of 1, 16 and 4096 bytes, whose cost per
//! byte must stay flat (a scanner that re-walked on every chunk would grow with the message).
//!
//! Run: `cargo bench -p thrift-benches --bench transport`. After criterion, a summary prints
//! the buffered/framed throughput ratio per shape and the scanner's ns/byte per chunk size,
//! from its own timing loop (thread CPU time, best of many short alternating rounds).

use std::hint::black_box;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use cpu_time::ThreadTime;
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use thrift_core::{Binary, Compact, Limits, MessageHeader, MessageType, Protocol, ThriftStruct};
use thrift_net::codec::{decode_message, BufferedCodec, FramedCodec, Message};
use tokio_util::codec::{Decoder, Encoder};

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Item<'a> {
    #[thrift(id = 1)]
    id: i64,
    #[thrift(id = 2)]
    name: &'a str,
    #[thrift(id = 3)]
    score: f64,
    #[thrift(id = 4)]
    active: bool,
    #[thrift(id = 5)]
    tags: Vec<&'a str>,
    #[thrift(id = 6)]
    values: Vec<i32>,
}

/// The args struct of a call: every string borrowed, the blob a slice of the message.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Args<'a> {
    #[thrift(id = 1)]
    request_id: i64,
    #[thrift(id = 2)]
    user: &'a str,
    #[thrift(id = 3)]
    items: Vec<Item<'a>>,
    #[thrift(id = 4)]
    blob: Bytes,
}

const TAGS: [&str; 4] = ["red", "green", "blue", "a-much-longer-tag-name"];

fn args(items: usize, blob: usize, names: &[String]) -> Args<'_> {
    Args {
        request_id: 0x1234_5678_9abc,
        user: "alice@example.com",
        items: (0..items)
            .map(|i| Item {
                id: i as i64 * 7_919,
                name: &names[i],
                score: i as f64 * 1.25,
                active: i % 3 == 0,
                tags: TAGS[..1 + i % 4].to_vec(),
                values: (0..8).map(|k| (k * i as i32) - 100).collect(),
            })
            .collect(),
        blob: Bytes::from(vec![0xab; blob]),
    }
}

/// A message shape: a name and its encoded forms.
struct Shape {
    name: &'static str,
    /// The message alone, as the buffered transport sends it.
    message: Vec<u8>,
    /// The message with its length prefix.
    frame: Vec<u8>,
}

fn shapes<P: Protocol>() -> Vec<Shape> {
    let names: Vec<String> = (0..2000).map(|i| format!("item-{i:05}-{}", "x".repeat(i % 12))).collect();
    let header = MessageHeader { name: "bulkUpdate", kind: MessageType::Call, seqid: 42 };
    [("small", 1, 0), ("medium", 100, 1024), ("large", 2000, 128 * 1024)]
        .into_iter()
        .map(|(name, items, blob)| {
            let body = args(items, blob, &names);
            let mut message = BytesMut::new();
            BufferedCodec::<P>::new().encode(Message::new(header, &body), &mut message).expect("encodes");
            let mut frame = BytesMut::new();
            FramedCodec::<P>::new().encode(Message::new(header, &body), &mut frame).expect("encodes");
            Shape { name, message: message.to_vec(), frame: frame.to_vec() }
        })
        .collect()
}

/// The framed path: split the frame off the read buffer, decode the args from it.
#[inline]
fn framed_path<P: Protocol>(codec: &mut FramedCodec<P>, buf: &mut BytesMut, limits: &Limits) -> usize {
    let msg = codec.decode(buf).expect("a frame").expect("whole");
    let (_, args): (_, Args<'_>) = decode_message::<P, _>(&msg, limits).expect("decodes");
    black_box(&args);
    args.items.len()
}

/// The buffered path: scan to the message's end, split it off, decode the args from it.
#[inline]
fn buffered_path<P: Protocol>(codec: &mut BufferedCodec<P>, buf: &mut BytesMut, limits: &Limits) -> usize {
    let msg = codec.decode(buf).expect("a message").expect("whole");
    let (_, args): (_, Args<'_>) = decode_message::<P, _>(&msg, limits).expect("decodes");
    black_box(&args);
    args.items.len()
}

fn bench_paths<P: Protocol>(c: &mut Criterion) {
    let limits = Limits::default();
    let mut group = c.benchmark_group(format!("transport_{}", P::NAME));
    for shape in shapes::<P>() {
        group.throughput(Throughput::Bytes(shape.message.len() as u64));
        let batch = if shape.message.len() > 64 * 1024 { BatchSize::LargeInput } else { BatchSize::SmallInput };
        let mut framed = FramedCodec::<P>::new();
        group.bench_function(BenchmarkId::new("framed", shape.name), |b| {
            b.iter_batched(
                || BytesMut::from(&shape.frame[..]),
                |mut buf| framed_path(&mut framed, &mut buf, &limits),
                batch,
            )
        });
        let mut buffered = BufferedCodec::<P>::new();
        group.bench_function(BenchmarkId::new("buffered", shape.name), |b| {
            b.iter_batched(
                || BytesMut::from(&shape.message[..]),
                |mut buf| buffered_path(&mut buffered, &mut buf, &limits),
                batch,
            )
        });
    }
    group.finish();
}

/// Feeds `message` to a buffered codec `chunk` bytes at a time, as a socket would.
fn trickle<P: Protocol>(codec: &mut BufferedCodec<P>, message: &[u8], chunk: usize) -> Bytes {
    let mut buf = BytesMut::new();
    for piece in message.chunks(chunk) {
        buf.extend_from_slice(piece);
        if let Some(msg) = codec.decode(&mut buf).expect("scans") {
            return msg;
        }
    }
    panic!("the message never completed")
}

fn bench_chunks(c: &mut Criterion) {
    let mut group = c.benchmark_group("buffered_scan_chunked_compact");
    for shape in shapes::<Compact>().into_iter().filter(|s| s.name != "small") {
        group.throughput(Throughput::Bytes(shape.message.len() as u64));
        for chunk in [1, 16, 4096] {
            let mut codec = BufferedCodec::<Compact>::new();
            group.bench_function(BenchmarkId::new(shape.name, chunk), |b| {
                b.iter(|| trickle(&mut codec, &shape.message, chunk).len())
            });
        }
    }
    group.finish();
}

/// The best of `rounds` timings of `f` over fresh inputs made by `make` (not timed), in this
/// thread's CPU time, which other processes on the machine do not inflate.
fn best_of<I>(rounds: usize, n: usize, mut make: impl FnMut() -> I, mut f: impl FnMut(I)) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let inputs: Vec<I> = (0..n).map(|_| make()).collect();
        let start = ThreadTime::now();
        inputs.into_iter().for_each(&mut f);
        best = best.min(start.elapsed());
    }
    best / n as u32
}

/// Rounds of the summary's own timing loop.
const ROUNDS: usize = 151;

fn summary_paths<P: Protocol>() {
    let limits = Limits::default();
    for shape in shapes::<P>() {
        // Rounds well under a scheduler time slice, so that some run undisturbed.
        let n = (400_000 / shape.message.len()).clamp(1, 2_000);
        let (mut framed, mut buffered) = (FramedCodec::<P>::new(), BufferedCodec::<P>::new());
        let (mut tf, mut tb) = (Duration::MAX, Duration::MAX);
        // Alternate the two in short rounds and keep each one's best, so that other load on
        // the machine (which only ever adds time) hits both alike.
        for _ in 0..ROUNDS {
            tf = tf.min(best_of(
                1,
                n,
                || BytesMut::from(&shape.frame[..]),
                |mut b| {
                    black_box(framed_path(&mut framed, &mut b, &limits));
                },
            ));
            tb = tb.min(best_of(
                1,
                n,
                || BytesMut::from(&shape.message[..]),
                |mut b| {
                    black_box(buffered_path(&mut buffered, &mut b, &limits));
                },
            ));
        }
        let mb = |t: Duration| shape.message.len() as f64 / t.as_secs_f64() / 1e6;
        println!(
            "{:<8} {:<7} {:>8} B  framed {:>10.0?} {:>8.0} MB/s  buffered {:>10.0?} {:>8.0} MB/s  buffered/framed {:.2}x",
            P::NAME,
            shape.name,
            shape.message.len(),
            tf,
            mb(tf),
            tb,
            mb(tb),
            tf.as_secs_f64() / tb.as_secs_f64()
        );
    }
}

fn summary_chunks<P: Protocol>() {
    for shape in shapes::<P>().into_iter().filter(|s| s.name != "small") {
        let mut line = format!("{:<8} {:<7} {:>8} B  scan ns/byte:", P::NAME, shape.name, shape.message.len());
        for chunk in [1, 16, 4096] {
            let mut codec = BufferedCodec::<P>::new();
            let n = (400_000 / shape.message.len()).max(1);
            let t = best_of(
                ROUNDS / 4,
                n,
                || (),
                |()| {
                    black_box(trickle(&mut codec, &shape.message, chunk));
                },
            );
            line += &format!("  {chunk:>4}-byte chunks {:.2}", t.as_nanos() as f64 / shape.message.len() as f64);
        }
        println!("{line}");
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .configure_from_args();
    bench_paths::<Binary>(&mut c);
    bench_paths::<Compact>(&mut c);
    bench_chunks(&mut c);
    c.final_summary();

    // `cargo test --benches` runs each benchmark once with --test: no summary then.
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    println!("\nsummary (own loop, thread CPU time, best of {ROUNDS} alternating rounds; ratio = buffered/framed throughput)");
    summary_paths::<Binary>();
    summary_paths::<Compact>();
    summary_chunks::<Binary>();
    summary_chunks::<Compact>();
}
