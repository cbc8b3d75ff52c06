#!/bin/bash
# Instructions per RPC call under callgrind, one side alone: the side measured runs under
# callgrind, the other natively, and the total is divided by the calls the client made.
# Instructions do not move with the machine's load, so two builds compare in any run.
#
#   cargo build --release -p thrift-rpc-bench --bin rpc-compare
#   benches/scripts/rpc-callgrind.sh server|client [CLIENT [SERVER]]
#       (CLIENT default: ours-pool; SERVER default: ours, or raw-codec, raw)
#
# `server`: `rpc-compare serve SERVER` under callgrind, its counters zeroed once it listens
# (startup left out), loaded by CLIENT natively. `client`: `rpc-compare load CLIENT` under
# callgrind against a native `serve SERVER` (its connection setup is counted too, spread over
# the calls). The Thrift floor, for instance: `server raw-codec raw-codec`. 16 callers, 5 s. BIN=path/to/rpc-compare overrides the binary (default:
# $CARGO_TARGET_DIR or target/, release/rpc-compare); KEEP=dir keeps the callgrind output there.
set -euo pipefail
side=${1:?usage: rpc-callgrind.sh server|client [CLIENT [SERVER]]}
client=${2:-ours-pool}
server_kind=${3:-ours}
bin=${BIN:-${CARGO_TARGET_DIR:-$(dirname "$0")/../../target}/release/rpc-compare}
[ -x "$bin" ] || { echo "no $bin: cargo build --release -p thrift-rpc-bench --bin rpc-compare" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000))
callgrind=(valgrind --tool=callgrind --compress-strings=no --compress-pos=no --callgrind-out-file="$tmp/callgrind.%p")

listening() {
    for _ in $(seq 1 300); do
        (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && return 0
        sleep 0.2
    done
    echo "the server did not listen on 127.0.0.1:$port" >&2
    exit 1
}

load() {
    "$@" load "$client" --addr 127.0.0.1:$port -c 16 -d 5s --warmup 0s >"$tmp/load.json"
}

case $side in
server)
    "${callgrind[@]}" "$bin" serve "$server_kind" --addr 127.0.0.1:$port >/dev/null 2>&1 &
    server=$!
    listening
    callgrind_control -z "$server" >/dev/null 2>&1
    load "$bin"
    callgrind_control -d "$server" >/dev/null 2>&1
    kill "$server"
    wait "$server" 2>/dev/null || true
    ;;
client)
    "$bin" serve "$server_kind" --addr 127.0.0.1:$port >/dev/null 2>&1 &
    listening
    load "${callgrind[@]}" "$bin" 2>/dev/null
    ;;
*)
    echo "usage: rpc-callgrind.sh server|client [CLIENT [SERVER]]" >&2
    exit 2
    ;;
esac

calls=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['calls'])" "$tmp/load.json")
instructions=$(cat "$tmp"/callgrind.* | awk '/^summary:/ { s += $2 } END { print s }')
[ "$calls" -gt 0 ] || { echo "the client made no call" >&2; exit 1; }
echo "$side ($client against $server_kind, 16 callers): $calls calls, $((instructions / calls)) instructions per call"
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    cp "$tmp"/callgrind.* "$KEEP"/
fi
