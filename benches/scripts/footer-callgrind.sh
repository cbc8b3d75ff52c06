#!/bin/bash
# Instructions per Parquet footer decode under callgrind, per decoder and footer size:
# footer-compare's untimed `--iters` loop (`profiled_loop`) collected alone, divided by the
# iterations. A same-run comparison of the decoders that the machine's load cannot skew.
#
#   cargo build --release -p thrift-benches --features parquet --bin footer-compare
#   benches/scripts/footer-callgrind.sh [COLUMNS...]      (default: 20 100 1000)
#
# LIBS="ours-borrowed arrow-rs" picks the decoders (default: all four); BIN=path/to/footer-compare
# overrides the binary (default: $CARGO_TARGET_DIR or target/, release/footer-compare);
# KEEP=dir keeps each run's callgrind output there as callgrind.LIB.COLUMNS, for
# callgrind_annotate.
set -euo pipefail
columns=("$@")
[ ${#columns[@]} -gt 0 ] || columns=(20 100 1000)
read -r -a libs <<<"${LIBS:-ours-borrowed ours-owned ours-shared arrow-rs}"
bin=${BIN:-${CARGO_TARGET_DIR:-$(dirname "$0")/../../target}/release/footer-compare}
[ -x "$bin" ] || { echo "no $bin: cargo build --release -p thrift-benches --features parquet --bin footer-compare" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-8s %-14s %14s\n" columns library instr/decode
for n in "${columns[@]}"; do
    # About the same collected work per run: fewer iterations of the bigger footers.
    iters=$((20000 / n))
    [ "$iters" -ge 5 ] || iters=5
    for lib in "${libs[@]}"; do
        out="$tmp/out"
        [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP"; out="$KEEP/callgrind.$lib.$n"; }
        valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*profiled_loop*' \
            "$bin" --only "$lib" --columns "$n" --iters "$iters" >/dev/null 2>"$tmp/err" ||
            { cat "$tmp/err" >&2; exit 1; }
        total=$(awk '/^summary:/ {print $2}' "$out")
        printf "%-8s %-14s %14d\n" "$n" "$lib" $((total / iters))
    done
done
