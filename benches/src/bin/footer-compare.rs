//! Parquet footer decode, this project's derived decoder against arrow-rs's own, on
//! footers arrow-rs writes of 20, 100 and 1,000 leaf columns (see `thrift_benches::footer`).
//!
//! ```text
//! cargo build --release -p thrift-benches --features parquet --bin footer-compare
//! target/release/footer-compare                      # the timing table, about 10 s
//! target/release/footer-compare --columns 1000       # one footer size (repeatable)
//! target/release/footer-compare --alloc              # allocations per decode
//! # For a profiler: one decoder, a fixed number of times, untimed, in `profiled_loop`.
//! target/release/footer-compare --only ours-borrowed --columns 1000 --iters 20
//! benches/scripts/footer-callgrind.sh                # instructions per decode
//! ```
//!
//! Before anything is timed, each footer is decoded by every decoder and the results are
//! checked to agree (`footer::assert_agrees`): a mismatch panics. Times are the thread's
//! CPU time, libraries interleaved batch by batch over several rounds, the fastest batch
//! kept. arrow-rs's `decode_metadata` also builds its schema descriptor and converts the
//! statistics, so it does more than a pure Thrift decode.

use std::env;
use std::hint::black_box;

use bytes::Bytes;
use cpu_time::ThreadTime;
use parquet::file::metadata::ParquetMetaDataReader;
use thrift_benches::footer::{self, Footer, HeapSize, LazyFooter, OwnedFooter, SharedFooter};
use thrift_core::Compact;

/// The system allocator, counting calls and bytes while [`counting::ON`] is set.
#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// A counting global allocator: allocations, reallocations and bytes requested, counted
/// only while `ON` is set (one relaxed load per call otherwise, for every library alike).
mod counting {
    // A global allocator can only be written with `unsafe`; the lint is denied workspace-wide.
    #![allow(unsafe_code)]

    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

    /// Whether calls are counted.
    pub static ON: AtomicBool = AtomicBool::new(false);
    static ALLOCS: AtomicUsize = AtomicUsize::new(0);
    static REALLOCS: AtomicUsize = AtomicUsize::new(0);
    static BYTES: AtomicUsize = AtomicUsize::new(0);

    /// What the allocator was asked for while counting.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Counts {
        /// `alloc` and `alloc_zeroed` calls.
        pub allocs: usize,
        /// `realloc` calls.
        pub reallocs: usize,
        /// Bytes requested: allocations' sizes, and reallocations' growth.
        pub bytes: usize,
    }

    /// Runs `f` with counting on; what it allocated (on any thread: the bin has one).
    pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Counts) {
        for c in [&ALLOCS, &REALLOCS, &BYTES] {
            c.store(0, Relaxed);
        }
        ON.store(true, Relaxed);
        let out = f();
        ON.store(false, Relaxed);
        (out, Counts { allocs: ALLOCS.load(Relaxed), reallocs: REALLOCS.load(Relaxed), bytes: BYTES.load(Relaxed) })
    }

    /// The counting allocator.
    pub struct Counting;

    // SAFETY: every call is forwarded unchanged to `System`; counting touches only atomics.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if ON.load(Relaxed) {
                ALLOCS.fetch_add(1, Relaxed);
                BYTES.fetch_add(layout.size(), Relaxed);
            }
            // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if ON.load(Relaxed) {
                ALLOCS.fetch_add(1, Relaxed);
                BYTES.fetch_add(layout.size(), Relaxed);
            }
            // SAFETY: as for `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if ON.load(Relaxed) {
                REALLOCS.fetch_add(1, Relaxed);
                BYTES.fetch_add(new_size.saturating_sub(layout.size()), Relaxed);
            }
            // SAFETY: `ptr` and `layout` come from this allocator, which is `System`'s.
            unsafe { System.realloc(ptr, layout, new_size) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` and `layout` come from this allocator, which is `System`'s.
            unsafe { System.dealloc(ptr, layout) }
        }
    }
}

/// The decoders compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lib {
    /// `thrift_core::from_slice` into [`Footer`]: strings and binaries borrowed.
    OursBorrowed,
    /// `thrift_core::from_slice` into [`LazyFooter`]: borrowed, and the column chunks' paths
    /// and encodings `LazyList`s.
    OursLazy,
    /// `thrift_core::from_slice` into [`OwnedFooter`]: strings and binaries copied.
    OursOwned,
    /// `thrift_core::from_bytes` into [`SharedFooter`]: strings and binaries share the input.
    OursShared,
    /// `ParquetMetaDataReader::decode_metadata`.
    Arrow,
}

const LIBS: [Lib; 5] = [Lib::OursBorrowed, Lib::OursLazy, Lib::OursOwned, Lib::OursShared, Lib::Arrow];

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::OursBorrowed => "ours-borrowed",
            Lib::OursLazy => "ours-lazy",
            Lib::OursOwned => "ours-owned",
            Lib::OursShared => "ours-shared",
            Lib::Arrow => "arrow-rs",
        }
    }

    fn parse(name: &str) -> Option<Lib> {
        LIBS.into_iter().find(|lib| lib.name() == name)
    }
}

/// Decodes `footer` once with `lib` and drops the result (dropping is part of the cost).
#[inline]
fn decode_once(lib: Lib, footer: &Bytes) {
    match lib {
        Lib::OursBorrowed => {
            black_box(
                thrift_core::from_slice::<Compact, Footer<'_>>(black_box(footer)).expect("ours-borrowed decodes"),
            );
        }
        Lib::OursLazy => {
            black_box(
                thrift_core::from_slice::<Compact, LazyFooter<'_>>(black_box(footer)).expect("ours-lazy decodes"),
            );
        }
        Lib::OursOwned => {
            black_box(thrift_core::from_slice::<Compact, OwnedFooter>(black_box(footer)).expect("ours-owned decodes"));
        }
        Lib::OursShared => {
            black_box(
                thrift_core::from_bytes::<Compact, SharedFooter>(black_box(footer)).expect("ours-shared decodes"),
            );
        }
        Lib::Arrow => {
            black_box(ParquetMetaDataReader::decode_metadata(black_box(footer)).expect("arrow-rs decodes"));
        }
    }
}

/// The untimed loop a profiler looks at (`--toggle-collect='*profiled_loop*'`).
#[inline(never)]
fn profiled_loop(lib: Lib, footer: &Bytes, iters: u64) {
    for _ in 0..iters {
        decode_once(lib, footer);
    }
}

/// Decodes `footer` with every decoder and panics unless they all agree with arrow-rs.
fn check(footer: &Bytes) {
    let arrow = ParquetMetaDataReader::decode_metadata(footer).expect("arrow-rs decodes");
    let borrowed = thrift_core::from_slice::<Compact, Footer<'_>>(footer).expect("ours-borrowed decodes");
    footer::assert_agrees(&borrowed, &arrow);
    let lazy = thrift_core::from_slice::<Compact, LazyFooter<'_>>(footer).expect("ours-lazy decodes");
    footer::assert_agrees(&lazy, &arrow);
    let owned = thrift_core::from_slice::<Compact, OwnedFooter>(footer).expect("ours-owned decodes");
    footer::assert_agrees(&owned, &arrow);
    let shared = thrift_core::from_bytes::<Compact, SharedFooter>(footer).expect("ours-shared decodes");
    footer::assert_agrees(&shared, &arrow);
}

/// Seconds of thread CPU time per decode of `lib`, timing `iters` decodes.
fn batch(lib: Lib, footer: &Bytes, iters: u64) -> f64 {
    let t = ThreadTime::now();
    for _ in 0..iters {
        decode_once(lib, footer);
    }
    t.elapsed().as_secs_f64() / iters as f64
}

/// Per decoder, the fastest batch's µs per decode: a warm-up sizes each decoder's batches
/// to about `batch_ms`, then `rounds` rounds each time one batch of every decoder in turn.
fn time_interleaved(footer: &Bytes, rounds: u32, batch_ms: f64) -> Vec<f64> {
    let iters: Vec<u64> = LIBS
        .iter()
        .map(|&lib| {
            let warm = ThreadTime::now();
            let mut n = 0u64;
            while n == 0 || warm.elapsed().as_secs_f64() < 0.05 {
                decode_once(lib, footer);
                n += 1;
            }
            let per_op = warm.elapsed().as_secs_f64() / n as f64;
            ((batch_ms / 1e3 / per_op) as u64).max(1)
        })
        .collect();
    let mut best = vec![f64::INFINITY; LIBS.len()];
    for _ in 0..rounds {
        for (i, &lib) in LIBS.iter().enumerate() {
            best[i] = best[i].min(batch(lib, footer, iters[i]) * 1e6);
        }
    }
    best
}

/// The table of µs per decode.
fn timing(columns: &[usize], rounds: u32, batch_ms: f64) {
    println!(
        "µs per decode (thread CPU time, fastest of {rounds} interleaved batches of ~{batch_ms} ms); \
         arrow-rs also builds its schema descriptor and converts statistics, more than a pure Thrift decode"
    );
    print!("{:>7} {:>12}", "columns", "footer bytes");
    for lib in LIBS {
        print!(" {:>14}", lib.name());
    }
    println!(" {:>15} {:>11} {:>12} {:>13}", "arrow/borrowed", "arrow/lazy", "arrow/owned", "arrow/shared");
    for &n in columns {
        let footer = Bytes::from(footer::footer(n));
        check(&footer);
        let us = time_interleaved(&footer, rounds, batch_ms);
        print!("{n:>7} {:>12}", footer.len());
        for t in &us {
            print!(" {t:>14.2}");
        }
        let arrow = us[4];
        println!(" {:>15.2} {:>11.2} {:>12.2} {:>13.2}", arrow / us[0], arrow / us[1], arrow / us[2], arrow / us[3]);
    }
}

/// Allocations per decode, and for ours the bytes requested against the decoded value's heap.
fn allocations(columns: &[usize]) {
    println!("allocations per decode (one decode after a warm-up; bytes requested = sizes + reallocations' growth)");
    println!(
        "{:>7} {:>14} {:>8} {:>9} {:>15} {:>13} {:>14}",
        "columns", "library", "allocs", "reallocs", "bytes requested", "value heap", "requested/heap"
    );
    for &n in columns {
        let footer = Bytes::from(footer::footer(n));
        check(&footer);
        for lib in LIBS {
            decode_once(lib, &footer);
            let (heap, c) = match lib {
                Lib::OursBorrowed => {
                    let (v, c) = counting::measure(|| thrift_core::from_slice::<Compact, Footer<'_>>(&footer).unwrap());
                    (v.heap_size(), c)
                }
                Lib::OursLazy => {
                    let (v, c) =
                        counting::measure(|| thrift_core::from_slice::<Compact, LazyFooter<'_>>(&footer).unwrap());
                    (v.heap_size(), c)
                }
                Lib::OursOwned => {
                    let (v, c) =
                        counting::measure(|| thrift_core::from_slice::<Compact, OwnedFooter>(&footer).unwrap());
                    (v.heap_size(), c)
                }
                Lib::OursShared => {
                    let (v, c) =
                        counting::measure(|| thrift_core::from_bytes::<Compact, SharedFooter>(&footer).unwrap());
                    (v.heap_size(), c)
                }
                Lib::Arrow => {
                    let (v, c) = counting::measure(|| ParquetMetaDataReader::decode_metadata(&footer).unwrap());
                    // arrow-rs's own estimate of its value's heap (`memory_size`), for scale.
                    (v.memory_size(), c)
                }
            };
            let ratio = if heap == 0 { "-".to_string() } else { format!("{:.3}", c.bytes as f64 / heap as f64) };
            println!(
                "{n:>7} {:>14} {:>8} {:>9} {:>15} {:>13} {:>14}",
                lib.name(),
                c.allocs,
                c.reallocs,
                c.bytes,
                heap,
                ratio
            );
        }
    }
    println!("(arrow-rs's value heap is its own `ParquetMetaData::memory_size` estimate)");
    println!(
        "sizes (borrowed): ColumnChunk {} B, ColumnMetaData {} B, Statistics {} B, RowGroup {} B, SchemaElement {} B",
        size_of::<footer::ColumnChunk<&str, &[u8]>>(),
        size_of::<footer::ColumnMetaData<&str, &[u8]>>(),
        size_of::<footer::Statistics<&[u8]>>(),
        size_of::<footer::RowGroup<&str, &[u8]>>(),
        size_of::<footer::SchemaElement<&str>>(),
    );
}

fn main() {
    let mut columns = Vec::new();
    let mut only = None;
    let mut iters = None;
    let mut alloc = false;
    let mut rounds = 15u32;
    let mut batch_ms = 20.0;
    let mut args = env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{arg} needs a value")));
        match arg.as_str() {
            "--columns" => columns.push(value().parse().unwrap_or_else(|_| usage("--columns takes a number"))),
            "--only" => {
                let name = value();
                only = Some(Lib::parse(&name).unwrap_or_else(|| usage(&format!("no library {name:?}"))));
            }
            "--iters" => iters = Some(value().parse().unwrap_or_else(|_| usage("--iters takes a number"))),
            "--rounds" => rounds = value().parse().unwrap_or_else(|_| usage("--rounds takes a number")),
            "--batch-ms" => batch_ms = value().parse().unwrap_or_else(|_| usage("--batch-ms takes a number")),
            "--alloc" => alloc = true,
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    if columns.is_empty() {
        columns = vec![20, 100, 1000];
    }
    match (only, iters) {
        (Some(lib), Some(iters)) => {
            for &n in &columns {
                let footer = Bytes::from(footer::footer(n));
                check(&footer);
                profiled_loop(lib, &footer, iters);
            }
        }
        (None, None) if alloc => allocations(&columns),
        (None, None) => timing(&columns, rounds, batch_ms),
        _ => usage("--only and --iters go together"),
    }
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "{problem}\nusage: footer-compare [--columns N]... [--rounds R] [--batch-ms MS] | --alloc [--columns N]... \
         | --only LIB --columns N --iters K\n  LIB: {}",
        LIBS.map(Lib::name).join(", ")
    );
    std::process::exit(2);
}
