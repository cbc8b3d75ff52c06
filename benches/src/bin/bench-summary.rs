//! Times every (library, shape, protocol, operation) cell, prints the table, and writes
//! BENCHMARKS.md and docs/bench-codec.svg at the repository root.
//!
//! ```text
//! cargo run --release -p thrift-benches --bin bench-summary            # about a minute
//! cargo run --release -p thrift-benches --bin bench-summary -- --quick --no-write   # smoke run
//! cargo run --release -p thrift-benches --bin bench-summary -- --only medium --no-write
//! # For a profiler: run the selected cells a fixed number of times, untimed.
//! valgrind --tool=callgrind target/release/bench-summary --only binary --only decode --only medium --only ours --iters 200
//! # Instructions per op of chosen cells, the loop alone (see the script).
//! benches/scripts/codec-callgrind.sh binary decode medium ours ours-shared pilota
//! # Every library on mimalloc instead of the system allocator.
//! cargo run --release -p thrift-benches --features mimalloc --bin bench-summary -- --no-write
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};
use std::{env, fs};

use thrift_benches::cases::{self, Library, Op, Proto, ShapeKind};
use thrift_benches::chart;
use thrift_benches::data::Values;
use thrift_benches::measure::{self, Budget};
use thrift_benches::report::{Measurement, Results};

const COMMAND: &str = "cargo run --release -p thrift-benches --bin bench-summary";

/// With `--features mimalloc`, every cell runs on mimalloc: owned decoding is mostly the
/// allocator's time with glibc's, and this shows how much.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Args {
    budget: Budget,
    /// Run each cell this many times without timing or writing anything (for profilers).
    iters: Option<u64>,
    write: bool,
    only: Vec<String>,
    /// Time this one cell and print the result for the parent process (internal).
    cell: Option<String>,
}

fn args() -> Args {
    let mut args = Args { budget: Budget::FULL, iters: None, write: true, only: Vec::new(), cell: None };
    let mut it = env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => args.budget = Budget::QUICK,
            "--no-write" => args.write = false,
            "--only" => args.only.push(it.next().unwrap_or_default()),
            "--iters" => args.iters = it.next().and_then(|n| n.parse().ok()),
            "--cell" => args.cell = it.next(),
            other => {
                eprintln!("unknown argument {other:?}; expected --quick, --no-write, --only <word>, --iters <n>");
                std::process::exit(2);
            }
        }
    }
    args
}

/// Every cell, in table order, as `protocol/op/shape/library`.
fn cells() -> Vec<(String, Library, ShapeKind, Proto, Op)> {
    let mut out = Vec::new();
    for proto in Proto::ALL {
        for shape in ShapeKind::ALL {
            for op in Op::ALL {
                for lib in Library::ALL {
                    let id = format!("{}/{}/{}/{}", proto.name(), op.name(), shape.name(), lib.name());
                    out.push((id, lib, shape, proto, op));
                }
            }
        }
    }
    out
}

fn main() {
    let args = args();
    let selected: Vec<_> =
        cells().into_iter().filter(|(id, ..)| args.only.iter().all(|w| id.split('/').any(|part| part == w))).collect();
    if let Some(cell) = &args.cell {
        let Some(&(_, lib, shape, proto, op)) = selected.iter().find(|(id, ..)| id == cell) else {
            eprintln!("no cell {cell:?}");
            std::process::exit(2);
        };
        let values: &'static Values = Box::leak(Box::new(Values::new()));
        let prepared = cases::prepare(values, lib, shape, proto, op);
        match prepared.routine {
            Ok(mut routine) => println!("ok {} {}", prepared.bytes, measure::ns_per_op(&mut routine, args.budget)),
            Err(e) => println!("fails {} {e}", prepared.bytes),
        }
        return;
    }
    if let Some(n) = args.iters {
        let values: &'static Values = Box::leak(Box::new(Values::new()));
        for (id, lib, shape, proto, op) in selected {
            match cases::prepare(values, lib, shape, proto, op).routine {
                Ok(mut routine) => profiled_loop(&mut routine, n),
                Err(e) => eprintln!("{id} fails: {e}"),
            }
        }
        return;
    }
    // Each cell in a fresh process: the allocator's state after one cell (glibc adapts its
    // mmap threshold to what was freed) otherwise changes the next cell's time by up to 40%.
    let results: Vec<Measurement> = selected
        .into_iter()
        .map(|(id, lib, shape, proto, op)| {
            let (bytes, ns) = run_cell(&id, args.budget);
            match &ns {
                Ok(ns) => eprintln!("{id:<40} {ns:>12.1} ns/op"),
                Err(e) => eprintln!("{id:<40} fails: {e}"),
            }
            Measurement { lib, shape, proto, op, bytes, ns }
        })
        .collect();
    let results = Results(results);
    let machine = machine();
    let table = results.table();
    let targets = results.targets();
    println!("\n{machine}\n\n{table}\n### Targets\n\n{targets}");
    if args.write {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("benches/ is in the workspace").to_path_buf();
        write(&root, &results, &machine, &table, &targets, args.budget);
    }
}

/// The untimed loop of `--iters`, by name, for a profiler to collect it alone
/// (`valgrind --tool=callgrind --toggle-collect='*profiled_loop*'`, as
/// `benches/scripts/codec-callgrind.sh` does).
#[inline(never)]
fn profiled_loop(routine: &mut cases::Routine, n: u64) {
    for _ in 0..n {
        routine();
    }
}

/// Times one cell in a child process: its encoded size and its time, or why it fails.
fn run_cell(id: &str, budget: Budget) -> (usize, Result<f64, String>) {
    let exe = env::current_exe().expect("the summary's own path");
    let mut cmd = Command::new(exe);
    cmd.args(["--cell", id]);
    if budget.measure < Budget::FULL.measure {
        cmd.arg("--quick");
    }
    let out = cmd.output().expect("run the summary for one cell");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut words = stdout.trim().splitn(3, ' ');
    let (status, bytes, rest) = (words.next(), words.next().and_then(|b| b.parse().ok()), words.next());
    match (status, bytes, rest) {
        (Some("ok"), Some(bytes), Some(ns)) => (bytes, ns.parse().map_err(|_| format!("bad time {ns:?}"))),
        (Some("fails"), Some(bytes), Some(why)) => (bytes, Err(why.to_string())),
        _ => panic!("{id}: the child said {stdout:?} ({})", String::from_utf8_lossy(&out.stderr)),
    }
}

fn write(root: &Path, results: &Results, machine: &str, table: &str, targets: &str, budget: Budget) {
    let chart_path: PathBuf = root.join("docs/bench-codec.svg");
    fs::create_dir_all(chart_path.parent().expect("docs/")).expect("create docs/");
    chart::write_svg(results, &chart_path, machine).expect("write the chart");
    let quick = if budget.measure < Budget::FULL.measure { " (quick mode: indicative only)" } else { "" };
    let section = format!(
        "{BEGIN}\n\
         # Benchmarks\n\n\
         ## Codec\n\n\
         Written by `{COMMAND}`{quick} on {machine}.\n\n\
         ![throughput per library and shape](docs/bench-codec.svg)\n\n\
         {METHOD}\n\
         ### Targets (issue 7)\n\n\
         Ratios are speedups: the peer's time divided by ours.\n\n\
         {targets}\n\
         ### Results\n\n\
         ns/op is the fastest of {batches} batches after a warm-up, in CPU time of the benchmarking \
         thread (the machine is shared: interference only adds time); MB/s counts the encoded message. \
         × pilota and × Apache: the peer's time divided by the row's (above 1: faster than the peer).\n\n\
         {table}\
         {PROFILE}\
         {PEERS}\
         {END}\n",
        batches = budget.batches,
    );
    let path = root.join("BENCHMARKS.md");
    let doc = replace_section(&fs::read_to_string(&path).unwrap_or_default(), &section);
    fs::write(&path, doc).expect("write BENCHMARKS.md");
    eprintln!("wrote {} and {}", path.display(), chart_path.display());
}

const BEGIN: &str =
    "<!-- codec-summary:begin (written by bench-summary; edits between these markers are overwritten) -->";
const END: &str = "<!-- codec-summary:end -->";

/// `doc` with this summary's section replaced by `section`, keeping what other tools wrote
/// (BENCHMARKS.md is shared: the RPC comparison writes its own marked section). Without
/// markers, everything before the first other marked section is taken to be this one's.
fn replace_section(doc: &str, section: &str) -> String {
    match (doc.find(BEGIN), doc.find(END)) {
        (Some(begin), Some(end)) if begin < end => {
            let rest = doc[end + END.len()..].trim_start_matches('\n');
            format!("{}{section}{}{rest}", &doc[..begin], if rest.is_empty() { "" } else { "\n" })
        }
        _ => match doc.find("\n<!-- ") {
            Some(other) => format!("{section}\n{}", doc[other..].trim_start_matches('\n')),
            None => section.to_string(),
        },
    }
}

const METHOD: &str = "\
### What is measured

Three shapes from `benches/idl/shapes.thrift`, the same data for every library (seeded
generators in `benches/src/data.rs`): **small** (ten scalars, two short strings, a short
binary), **medium** (256 `i64`s, 48 strings, a 16-entry string map, a 32-element set, ten
smalls, optional fields), **large** (thirty mediums and a 64 KiB binary).

- **ours**: this project's derives with owned fields (`String`, `Vec<u8>`, B-tree maps and sets).
- **ours-zero-copy**: the same structs with `&str`, `&[u8]` and (the large blob) `Bytes`
  fields, decoded with `thrift_core::from_bytes` from a `Bytes`.
- **ours-shared**: the same structs with owned `thrift_core::SharedStr` and `Bytes` fields
  (`'static`: long strings and binaries are slices of the input, short strings inline),
  decoded with `thrift_core::from_bytes` from a `Bytes`.
- **pilota**: pilota 0.13.1, types generated by pilota-build 0.13.12 from the same IDL,
  with its safe `TBinaryProtocol` / `TCompact*Protocol` over `BytesMut` / `Bytes` (what Volo
  uses unless its `unsafe-codec` feature is on). Its strings are `FastStr` and its binaries
  `Bytes`, sliced from the input (no copy), and its maps and sets are hashed.
- **apache**: Apache's `thrift` crate 0.17 with code from Apache's compiler 0.17
  (`thrift --gen rs`), protocols over `&[u8]` and `Vec<u8>`.

**Encode** is a value to a new buffer holding its bytes: ours computes the exact size and
writes into one allocation (`thrift_core::to_vec`); pilota computes its size and writes into a
`BytesMut` of that size, as Volo's codec does; Apache (which cannot compute sizes) writes into a
`Vec` given the right capacity. **Decode** is a complete message in memory to a value,
dropping the value included.

Checked before anything is timed (`benches/src/cases.rs`): the owned and zero-copy types write
the same bytes and read them back equal; Apache's bytes are identical to ours in both protocols
and it reads ours back equal; pilota's maps and sets come out in a per-process hashed order, so
its bytes are compared by decoding them with ours, and its decoding of ours by converting the
result. A library that fails a check is reported as failing in that cell, not timed.

The criterion version of the same cells: `cargo bench -p thrift-benches --bench codec`.

";

const PROFILE: &str = "\
### Where the time goes

Profiles (`perf record` on `target/release/bench-summary --only <protocol> --only <op> --only <shape>
--only <library> --iters <n>`, which runs one cell untimed; `valgrind --tool=callgrind` works the same way):

- **Owned decode** spends about half of its time in glibc's `malloc` and `free`: one allocation
  per `String` (about a hundred per medium) and its release, which is why the decode targets are
  met by the zero-copy types and not by the owned ones. pilota's strings are `FastStr` slices of
  the input `Bytes` (no allocation); Apache's crate allocates as ours does. The same cells with
  `--features mimalloc` (every library on mimalloc) cut owned decode of the medium shape by about
  a third, to about 1.5× pilota's speed: the gap is glibc's allocator, not the decoder.
- **UTF-8 validation** (`core::str::from_utf8`) is the largest single item of zero-copy decode,
  about a third of it on these mostly-ASCII strings with the odd accented letter. pilota does not
  validate strings at all (it accepts invalid UTF-8); this project must, and `from_utf8` on short
  strings is as fast as the SIMD validators, which fall back to it below 64 bytes.
- **Compact encode** sizes the message exactly before writing it (one allocation of the right
  size), which costs a `leading_zeros` per varint (`bsr`, slow on this CPU without `lzcnt`), then
  writes runs of integers through a stack buffer. On the large shape both passes walk 230 KB of
  scattered heap data, which is what keeps it under 3× Apache's single pass.
- Optimizations this issue made in `thrift-core`, measured here: maps and sets built in bulk from
  a vector (a sorted bulk build instead of a search per insert), runs of fixed-width numbers read
  with one bounds check, runs of varints written through a stack buffer, hash containers sized
  once, a cheaper varint length. Tried and dropped because they measured slower: wider varint
  writes (a jump on the length), eight-bytes-at-once varint reads, trying fields in id order before
  the `match` in derived decoders (4%: not worth the extra generated code).

";

const PEERS: &str = "\
### Known peer failures

pilota 0.13.1's compact protocol is broken, so its compact cells fail their checks instead of
being timed: its decoder panics on structs with bool fields and loses field ids after a nested
struct, and its encoder writes doubles big-endian (the compact protocol's doubles are
little-endian). `tests/tests/pilota_compact_cases.rs` pins each of the three cases in this
project's compact protocol with golden bytes.
";

/// The machine line: CPU model, cores, compiler, date.
fn machine() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("{cpu}, {cores} cores (nproc), {}, {}", env!("BENCH_RUSTC_VERSION"), today())
}

/// Today's UTC date as YYYY-MM-DD (days since the epoch to the civil calendar).
fn today() -> String {
    let days = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() / 86_400).unwrap_or(0) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::{replace_section, BEGIN, END};

    const OTHER: &str = "<!-- rpc:begin -->\n## RPC\n<!-- rpc:end -->\n";

    #[test]
    fn the_section_replaces_only_its_own_part() {
        let old = format!("{BEGIN}\nold\n{END}\n\n{OTHER}");
        let new = format!("{BEGIN}\nnew\n{END}\n");
        assert_eq!(replace_section(&old, &new), format!("{new}\n{OTHER}"));
        // Written where it stands, even when another section comes first.
        let old = format!("{OTHER}\n{BEGIN}\nold\n{END}\n");
        assert_eq!(replace_section(&old, &new), format!("{OTHER}\n{new}"));
    }

    #[test]
    fn without_markers_the_text_before_other_sections_is_replaced() {
        let new = format!("{BEGIN}\nnew\n{END}\n");
        assert_eq!(replace_section(&format!("# old summary\n\n{OTHER}"), &new), format!("{new}\n{OTHER}"));
        assert_eq!(replace_section("# old summary\n", &new), new);
        assert_eq!(replace_section("", &new), new);
    }
}
