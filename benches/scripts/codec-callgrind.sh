#!/bin/bash
# Instructions per operation of codec cells under callgrind: bench-summary's untimed
# `--iters` loop (`profiled_loop`) collected alone, divided by the iterations. A same-run
# comparison of libraries that the machine's load cannot skew.
#
#   cargo build --release -p thrift-benches --bin bench-summary
#   benches/scripts/codec-callgrind.sh PROTOCOL OP SHAPE LIBRARY...
#   e.g. benches/scripts/codec-callgrind.sh binary decode medium ours ours-zero-copy ours-shared pilota
#
# BIN=path/to/bench-summary overrides the binary (default: $CARGO_TARGET_DIR or target/,
# release/bench-summary).
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 PROTOCOL OP SHAPE LIBRARY..." >&2; exit 2; }
proto=$1 op=$2 shape=$3
shift 3
bin=${BIN:-${CARGO_TARGET_DIR:-$(dirname "$0")/../../target}/release/bench-summary}
[ -x "$bin" ] || { echo "no $bin: cargo build --release -p thrift-benches --bin bench-summary" >&2; exit 2; }
case $shape in small) n=2000 ;; medium) n=200 ;; *) n=10 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-8s %-7s %-7s %-16s %14s\n" protocol op shape library instr/op
for lib in "$@"; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect='*profiled_loop*' \
        "$bin" --only "$proto" --only "$op" --only "$shape" --only "$lib" --iters "$n" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
    total=$(awk '/^summary:/ {print $2}' "$tmp/out")
    printf "%-8s %-7s %-7s %-16s %14d\n" "$proto" "$op" "$shape" "$lib" $((total / n))
done
