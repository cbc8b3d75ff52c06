#!/bin/bash
# Instructions per operation of the scan bench's cells under callgrind, for one or more builds
# of benches/benches/scan.rs (e.g. this commit's and the commit before the walker's), with
# the ratio of each build to the first: a same-run comparison the machine's load cannot skew.
#
#   cargo bench -p thrift-benches --bench scan --no-run     # in each worktree
#   benches/scripts/scan-callgrind.sh OLD_BIN NEW_BIN [MODE...]
#
# MODE: whole, trickle16, skip, unknown (default: all four).
set -euo pipefail
bins=()
while [ $# -gt 0 ] && [ -x "$1" ]; do bins+=("$1"); shift; done
[ ${#bins[@]} -ge 1 ] || { echo "usage: $0 BIN... [MODE...]" >&2; exit 2; }
modes=${*:-whole trickle16 skip unknown}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # bin protocol shape mode iters -> instructions per iteration
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect='*scan_loop*' \
        "$1" count "$2" "$3" "$4" "$5" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    echo $(( $(awk '/^summary:/ {print $2}' "$tmp/out") / $5 ))
}
printf "%-8s %-12s %-10s" protocol shape mode
for i in "${!bins[@]}"; do printf " %12s" "build$i"; done
for i in "${!bins[@]}"; do [ "$i" -gt 0 ] && printf " %9s" "$i/0"; done
echo
for m in $modes; do for p in binary compact; do for s in small medium large args-medium args-large; do
    case $s in small) n=200 ;; medium | args-medium) n=20 ;; *) n=3 ;; esac
    counts=()
    for b in "${bins[@]}"; do counts+=("$(count "$b" $p $s $m $n)"); done
    printf "%-8s %-12s %-10s" $p $s $m
    for c in "${counts[@]}"; do printf " %12d" "$c"; done
    for i in "${!counts[@]}"; do
        [ "$i" -gt 0 ] && awk -v a="${counts[$i]}" -v b="${counts[0]}" 'BEGIN { printf " %9.3f", a / b }'
    done
    echo
done; done; done
