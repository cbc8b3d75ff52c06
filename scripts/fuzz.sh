#!/usr/bin/env bash
# Fuzzes every decoder: builds the libFuzzer targets in fuzz/ with coverage instrumentation on
# the stable toolchain (no sanitizer, so no nightly needed: see fuzz/README.md), writes the
# seed corpora, runs each target for SECONDS seconds, and prints executions and findings per
# target. A finding (crash, failed invariant, timeout, out-of-memory) is saved under
# fuzz/artifacts/TARGET/; the target then restarts for the time left, so one finding does not
# end its run.
#
#   scripts/fuzz.sh SECONDS [TARGET...]     (FUZZ_JOBS=2 runs two targets at once)
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
all=(decode_binary decode_compact roundtrip skip envelope buffered framed idl json)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi
jobs=${FUZZ_JOBS:-1}

# What `cargo fuzz build --sanitizer none` passes, without needing cargo-fuzz installed.
# --target keeps the flags off build scripts and proc-macros (the derive), which must not be
# instrumented.
host=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
-Cllvm-args=-sanitizer-coverage-stack-depth --cfg fuzzing -Cdebug-assertions -Coverflow-checks -Ccodegen-units=1"
bins=()
for t in "${targets[@]}"; do bins+=(--bin "$t"); done
cargo build --quiet --manifest-path fuzz/Cargo.toml --release --target "$host" "${bins[@]}"
bin=fuzz/target/$host/release
# The seed writer is an ordinary program: built without the instrumentation (which only
# links against libFuzzer's runtime).
RUSTFLAGS="" cargo build --quiet --manifest-path fuzz/Cargo.toml --release --bin seeds
fuzz/target/release/seeds fuzz/corpus >/dev/null
# The IDL target starts from the repository's own test IDLs.
mkdir -p fuzz/corpus/idl
cp thrift-build/tests/snapshots/*.thrift fuzz/corpus/idl/
mkdir -p fuzz/logs

# Runs one target for $secs seconds in total, restarting after each finding (at most 20).
run() {
  local t=$1 left=$secs execs=0 findings=0 restarts=0 start log n rc
  mkdir -p "fuzz/artifacts/$t"
  log=fuzz/logs/$t.log
  : >"$log"
  while [ "$left" -gt 0 ] && [ "$restarts" -le 20 ]; do
    start=$(date +%s)
    rc=0
    "$bin/$t" "fuzz/corpus/$t" -max_total_time="$left" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 >>"$log.run" 2>&1 || rc=$?
    # Executions: the final stats line, or the last status line when the run was cut short.
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.run" | tail -1)
    [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$log.run" | tail -1 | tr -d '#')
    execs=$((execs + ${n:-0}))
    cat "$log.run" >>"$log"
    rm -f "$log.run"
    if [ "$rc" -ne 0 ]; then
      findings=$((findings + 1))
      restarts=$((restarts + 1))
    fi
    left=$((left - ($(date +%s) - start)))
    [ "$rc" -ne 0 ] || break
  done
  printf '%-16s %12s executions %3s findings  (%s)\n' "$t" "$execs" "$findings" "$log"
}

echo "target           executions           findings"
running=0
for t in "${targets[@]}"; do
  run "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
if ls fuzz/artifacts/*/* >/dev/null 2>&1; then
  echo "findings saved:"
  ls fuzz/artifacts/*/*
fi
