#!/usr/bin/env bash
# Runs every test of the project on a fresh Debian machine: installs what the tests need
# (Apache's Thrift compiler and Python library for the interop tests), then the suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace
