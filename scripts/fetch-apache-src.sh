#!/usr/bin/env bash
# Fetches Apache Thrift 0.17's full source from Debian's source package of `thrift` (the same
# release as the compiler and Python library that install-test-deps.sh installs) and unpacks it
# once into a cache, for the tests that use Apache's own files: test/ThriftTest.thrift, the
# cross-test programs test/py/*.py, test/keys/, the compiler's test IDLs test/*.thrift, lib/java.
#
# The repository keeps no copy of Apache's files. Prints the unpacked folder's path on its last
# line. The folder is $THRIFT_APACHE_SRC if set, else ~/.cache/thrift-rs/thrift-0.17; the tests
# look in the same place (see tests/src/apache_src.rs).
set -euo pipefail

dest=${THRIFT_APACHE_SRC:-${XDG_CACHE_HOME:-$HOME/.cache}/thrift-rs/thrift-0.17}
if [ -f "$dest/test/ThriftTest.thrift" ]; then
  echo "$dest"
  exit 0
fi

# apt's own sources and lists stay untouched: a private SourceParts folder holds one deb-src
# entry, and its package lists go to a private folder too. Downloading a source package needs
# neither root nor dpkg-dev (dpkg-source only unpacks, which tar does here).
parts=$(mktemp -d)
trap 'rm -rf "$parts" "${work:-}"' EXIT
# Same suite and mirror as the machine's own deb entry for Debian's main archive.
suite=$( . /etc/os-release && echo "$VERSION_CODENAME")
uri=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 2>/dev/null | grep -v -- -security | head -n 1)
[ -n "$uri" ] || uri="http://deb.debian.org/debian/"
cat > "$parts/thrift-src.sources" <<SRC
Types: deb-src
URIs: $uri
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
opts=(-o "Dir::Etc::SourceParts=$parts" -o "Dir::Etc::SourceList=/dev/null"
      -o "Dir::State::Lists=$parts/lists" -o "Dir::Cache=$parts/cache")
mkdir -p "$parts/lists/partial" "$parts/cache/archives/partial"
apt-get "${opts[@]}" update -qq
work=$(mktemp -d)
(cd "$work" && apt-get "${opts[@]}" source --download-only thrift >/dev/null)
tarball=$(ls "$work"/thrift_*.orig.tar.* | head -n 1)
[ -n "$tarball" ] || { echo "error: apt-get source thrift fetched no orig tarball" >&2; exit 1; }

mkdir -p "$(dirname "$dest")"
tmp=$(mktemp -d "$(dirname "$dest")/.unpack.XXXXXX")
tar -xf "$tarball" -C "$tmp"
top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -f "$top/test/ThriftTest.thrift" ] || { echo "error: $tarball holds no test/ThriftTest.thrift" >&2; exit 1; }
rm -rf "$dest"
mv "$top" "$dest"
rm -rf "$tmp"
echo "$dest"
