#!/usr/bin/env bash
# Runs every test of the project on a fresh Debian machine: installs what the tests need
# (Apache's Thrift compiler and Python library, the reference the interop and conformance
# tests compare against; a JDK and the jars Apache's Java cross-test peers are built with),
# checks formatting, lints and docs, builds what is not run here (fuzz targets, benchmarks)
# so it keeps compiling, then runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# One whole build: incremental state would only cost disk (gigabytes of it).
export CARGO_INCREMENTAL=0

bash scripts/install-test-deps.sh

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -q -p thrift-net --all-targets --all-features -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

# Each optional part of the library crates builds alone, so a user who turns the others off
# gets a crate that compiles.
for features in "" derive idl proptest; do
  cargo clippy -q -p thrift-core --no-default-features --features "$features" -- -D warnings
done
for features in "" server client pool zlib http tls https "http,tls" metrics "server,metrics" "pool,metrics" "server,tls,zlib" "client,tls,zlib"; do
  cargo clippy -q -p thrift-net --no-default-features --features "$features" -- -D warnings
done

# Not run here (bounded runs: `bash scripts/fuzz.sh SECONDS`, and the commands in
# BENCHMARKS.md), but they must keep building.
cargo build --manifest-path fuzz/Cargo.toml --bins
cargo bench --workspace --no-run

# Apache's cross-test matrices keep their per-cell tables here; printed after the run.
matrix=target/tmp/cross-matrix
rm -rf "$matrix"
status=0
cargo test --workspace --no-fail-fast || status=$?
cargo test -p thrift-benches --features parquet --test footer || status=$?
if compgen -G "$matrix/*.txt" >/dev/null; then
  echo "== Apache's cross-test matrix, per cell (thrift-test/tests/cross.rs, cross_java.rs)"
  cat "$matrix"/*.txt
  grep -h "cells pass" "$matrix"/*.txt
fi
exit $status
