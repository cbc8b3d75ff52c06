//! The walker's callers on their own: the resumable `Scanner` over whole messages in one
//! call and over the same messages fed 16 bytes at a time (a growing buffer, as a socket
//! fills it), `skip` over the message's struct, and a decode whose struct knows one field of
//! the message (the rest skipped as unknown fields), for the codec's three shapes (`small`,
//! `medium`, `large` from `benches/src/data.rs`) and the transport bench's call arguments
//! (`args-medium`, `args-large`), in both protocols.
//!
//! It uses only `thrift_net::{Scan, Scanner}`, `thrift_core::{skip, to_vec}` and the derives,
//! which are the same before and after the walker moved into thrift-core (#15), so the same
//! file builds against either commit for a same-run comparison.
//!
//! Run: `cargo bench -p thrift-benches --bench scan` prints ns per message for every cell (thread
//! CPU time, best of many short rounds). For instruction counts, run the built binary under
//! callgrind with one cell and collect only the timed loop:
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*scan_loop*' target/release/deps/scan-HASH \
//!     count compact large whole 20
//! ```
//!
//! (modes: `whole`, `trickle16`, `skip`, `unknown`)
//!
//! and divide the total by the iterations (`count` prints the message length and cell);
//! `benches/scripts/scan-callgrind.sh OLD_BIN NEW_BIN` does that for every cell.
//! `time PROTOCOL SHAPE MODE` times one cell alone.

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use cpu_time::ThreadTime;
use thrift_benches::data::Values;
use thrift_core::{
    skip, Binary, Compact, Decode, Encode, Limits, MessageHeader, MessageType, Protocol, Reader, TType, ThriftStruct,
};
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

/// The transport and skip benches' call arguments.
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

/// A reader that knows none of any shape's fields: all of them are skipped as unknown.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Sparse {
    #[thrift(id = 100)]
    other: Option<i64>,
}

fn args(items: usize, blob: usize) -> Args {
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

/// `body` as one call message: the envelope, then the struct.
fn message<P: Protocol, T: Encode>(body: &T) -> Vec<u8> {
    let mut message = Vec::new();
    let header = MessageHeader { name: "bulkUpdate", kind: MessageType::Call, seqid: 7 };
    P::write_message_begin(&mut message, &header);
    message.extend_from_slice(&thrift_core::to_vec::<P, _>(body));
    message
}

/// The messages of every shape in protocol `P`.
fn shapes<P: Protocol>() -> Vec<(&'static str, Vec<u8>)> {
    let v = Values::new();
    vec![
        ("small", message::<P, _>(&v.small)),
        ("medium", message::<P, _>(&v.medium)),
        ("large", message::<P, _>(&v.large)),
        ("args-medium", message::<P, _>(&args(100, 1024))),
        ("args-large", message::<P, _>(&args(2000, 128 * 1024))),
    ]
}

/// What is timed.
#[derive(Clone, Copy)]
enum Mode {
    /// The scanner over all of the message in one call.
    Whole,
    /// The scanner over a buffer growing 16 bytes at a time, scanned after each growth.
    Trickle16,
    /// `skip` over the message's struct.
    Skip,
    /// A decode of the message's struct into [`Sparse`], which skips every field.
    Unknown,
}

const MODES: [Mode; 4] = [Mode::Whole, Mode::Trickle16, Mode::Skip, Mode::Unknown];

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Whole => "whole",
            Mode::Trickle16 => "trickle16",
            Mode::Skip => "skip",
            Mode::Unknown => "unknown",
        }
    }
}

/// The length of the envelope `message` starts with.
fn envelope_len<P: Protocol>(message: &[u8]) -> usize {
    let mut r = Reader::new(message);
    P::read_message_begin(&mut r).expect("an envelope");
    r.position()
}

/// Walks `message` (whose struct starts at `body`) once in `mode`; its length.
#[inline(always)]
fn scan_once<P: Protocol>(scanner: &mut Scanner<P>, message: &[u8], body: usize, mode: Mode) -> usize {
    scanner.reset();
    match mode {
        Mode::Skip => {
            let mut r = Reader::new(black_box(&message[body..]));
            skip::<P>(&mut r, TType::Struct).expect("skips");
            body + r.position()
        }
        Mode::Unknown => {
            let mut r = Reader::new(black_box(&message[body..]));
            black_box(Sparse::decode::<P>(&mut r).expect("decodes"));
            body + r.position()
        }
        Mode::Whole => match scanner.scan(black_box(message)) {
            Ok(Scan::Complete(n)) => n,
            other => panic!("{other:?}"),
        },
        Mode::Trickle16 => {
            let mut have = 0;
            loop {
                have = (have + 16).min(message.len());
                match scanner.scan(black_box(&message[..have])) {
                    Ok(Scan::Complete(n)) => return n,
                    Ok(Scan::NeedMore(_)) if have < message.len() => {}
                    other => panic!("{other:?}"),
                }
            }
        }
    }
}

/// The timed loop (its name is what callgrind's `--toggle-collect` matches).
#[inline(never)]
fn scan_loop<P: Protocol>(scanner: &mut Scanner<P>, message: &[u8], mode: Mode, iters: usize) -> usize {
    let body = envelope_len::<P>(message);
    let mut total = 0;
    for _ in 0..iters {
        total += scan_once(scanner, message, body, mode);
    }
    total
}

/// ns per message of the best of `rounds` rounds, in this thread's CPU time.
fn time<P: Protocol>(message: &[u8], mode: Mode, rounds: usize) -> f64 {
    let mut scanner = Scanner::<P>::new(Limits::default());
    // Rounds well under a scheduler time slice, so that some run undisturbed.
    let n = (200_000 / message.len()).clamp(1, 2_000);
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let start = ThreadTime::now();
        black_box(scan_loop(&mut scanner, message, mode, n));
        best = best.min(start.elapsed());
    }
    best.as_nanos() as f64 / n as f64
}

/// One cell: `iters` runs of it (for callgrind), or without `iters` its time.
fn one<P: Protocol>(shape: &str, mode: Mode, iters: Option<usize>) {
    let (name, message) = shapes::<P>().into_iter().find(|(n, _)| *n == shape).expect("a known shape");
    let Some(iters) = iters else {
        println!("{} {name} {} {} B {:.1} ns", P::NAME, mode.name(), message.len(), time::<P>(&message, mode, 1001));
        return;
    };
    let mut scanner = Scanner::<P>::new(Limits::default());
    let total = scan_loop(&mut scanner, &message, mode, iters);
    assert_eq!(total, message.len() * iters);
    println!("{} {name} {} {} B x {iters}", P::NAME, mode.name(), message.len());
}

fn summary<P: Protocol>(rounds: usize) {
    for (name, message) in shapes::<P>() {
        let mut line = format!("{:<8} {:<12} {:>8} B", P::NAME, name, message.len());
        for mode in MODES {
            line += &format!("  {} {:>10.1}", mode.name(), time::<P>(&message, mode, rounds));
        }
        println!("{line}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    // `cargo test --benches` runs each benchmark with --test: one pass of every cell then.
    if args.iter().any(|a| a == "--test" || a == "--list") {
        for mode in MODES {
            for (_, m) in shapes::<Binary>() {
                scan_loop(&mut Scanner::<Binary>::new(Limits::default()), &m, mode, 1);
            }
            for (_, m) in shapes::<Compact>() {
                scan_loop(&mut Scanner::<Compact>::new(Limits::default()), &m, mode, 1);
            }
        }
        return;
    }
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["count", protocol, shape, mode, ref iters @ ..] | ["time", protocol, shape, mode, ref iters @ ..]
            if iters.len() == usize::from(args[0] == "count") =>
        {
            let mode = MODES.into_iter().find(|m| m.name() == mode).expect("mode: whole, trickle16, skip or unknown");
            let iters = iters.first().map(|n| n.parse().expect("iterations"));
            match protocol {
                "binary" => one::<Binary>(shape, mode, iters),
                "compact" => one::<Compact>(shape, mode, iters),
                _ => panic!("protocol: binary or compact"),
            }
        }
        _ => {
            let rounds = 301;
            println!("scan: ns per message, thread CPU time, best of {rounds} rounds");
            summary::<Binary>(rounds);
            summary::<Compact>(rounds);
        }
    }
}
