#!/usr/bin/env bash
# Fetches the IDL corpus thrift-build is tested on: the `.thrift` files that published
# packages of six projects besides Apache's own ship, each from its own registry with that
# registry's ordinary client, at a pinned version. Apache's own test IDLs come from
# fetch-apache-src.sh.
#
#   hive      crates.io  hive_metastore 0.2.0         Apache Hive's metastore IDL (hms.thrift)
#   parquet   crates.io  parquet-format 4.0.0         Apache Parquet's footer IDL
#   pilota    crates.io  pilota-build 0.13.12         CloudWeGo pilota's generator test IDLs
#   jaeger    npm        jaeger-client 3.19.0         Jaeger's IDL (agent, jaeger, zipkincore...)
#   zipkin    npm        zipkin-encoder-thrift 0.22.0 OpenZipkin's zipkinCore.thrift
#   thriftrw  npm        thriftrw 3.12.0              Uber thriftrw's test IDLs (and a newer
#                                                     copy of Apache's compiler test IDLs)
#
# The repository keeps no copy of these files. Prints the corpus folder on its last line:
# $THRIFT_IDL_CORPUS if set, else ~/.cache/thrift-rs/idl-corpus-v1, one folder a project
# with the package's own paths below it (see tests/src/idl_corpus.rs).
set -euo pipefail

dest=${THRIFT_IDL_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/thrift-rs/idl-corpus-v1}
if [ -f "$dest/.complete" ]; then
  echo "$dest"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"

# Copies every .thrift file under $2 into project folder $1, keeping the paths below $2.
keep() {
  local project=$1 root=$2 count
  count=$(cd "$root" && find . -name '*.thrift' | wc -l)
  [ "$count" -gt 0 ] || { echo "error: $root holds no .thrift file for $project" >&2; exit 1; }
  (cd "$root" && find . -name '*.thrift' -print0 | xargs -0 -I{} cp --parents {} "$work/corpus/$project/")
}

# crates.io: a throwaway manifest that depends on each crate; cargo fetches them and
# `cargo metadata` says where each one's source was unpacked.
mkdir -p "$work/crates/src"
touch "$work/crates/src/lib.rs"
cat > "$work/crates/Cargo.toml" <<'TOML'
[package]
name = "idl-corpus-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
hive_metastore = "=0.2.0"
parquet-format = "=4.0.0"
pilota-build = "=0.13.12"
TOML
cargo metadata --quiet --format-version 1 --manifest-path "$work/crates/Cargo.toml" > "$work/metadata.json"
for pair in hive:hive_metastore parquet:parquet-format pilota:pilota-build; do
  project=${pair%%:*} crate=${pair#*:}
  dir=$(python3 -c 'import json, os, sys
meta = json.load(open(sys.argv[1]))
print(next(os.path.dirname(p["manifest_path"]) for p in meta["packages"] if p["name"] == sys.argv[2]))' \
    "$work/metadata.json" "$crate")
  mkdir -p "$work/corpus/$project"
  keep "$project" "$dir"
done

# npm: the package tarballs themselves (no install, so no scripts run).
for pair in jaeger:jaeger-client@3.19.0 zipkin:zipkin-encoder-thrift@0.22.0 thriftrw:thriftrw@3.12.0; do
  project=${pair%%:*} package=${pair#*:}
  mkdir -p "$work/npm/$project" "$work/corpus/$project"
  (cd "$work/npm/$project" && npm pack --silent "$package" >/dev/null)
  tar -xzf "$work/npm/$project"/*.tgz -C "$work/npm/$project"
  keep "$project" "$work/npm/$project/package"
done

touch "$work/corpus/.complete"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$work/corpus" "$dest"
echo "$dest"
