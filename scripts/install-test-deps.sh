#!/usr/bin/env bash
# Installs the external tools the tests use, if they are missing: Apache Thrift's compiler
# and its Python library with the C extension (the reference implementation the interop
# tests compare against), both from Debian so that they are the same release (0.17).
#
# The tests look for the library with /usr/bin/python3, where Debian's python3-thrift
# lives (a pyenv `python3` earlier on the PATH does not see it), or with $THRIFT_TEST_PYTHON.
# PyPI has no thrift 0.17.0, so pip is not used. Last, Apache's source tree is fetched
# (scripts/fetch-apache-src.sh).
set -euo pipefail

python=${THRIFT_TEST_PYTHON:-/usr/bin/python3}
probe="from thrift.protocol import fastbinary"

need=()
command -v thrift >/dev/null 2>&1 || need+=(thrift-compiler)
"$python" -c "$probe" >/dev/null 2>&1 || need+=(python3-thrift)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

thrift --version
if ! "$python" -c "$probe" 2>/dev/null; then
  echo "error: $python cannot import Apache Thrift's Python library with its C extension" \
       "(thrift.protocol.fastbinary); install Debian's python3-thrift or set THRIFT_TEST_PYTHON" >&2
  exit 1
fi
"$python" -c 'import sys, thrift; from thrift.protocol import fastbinary; print("python", sys.version.split()[0], "thrift", thrift.__file__, "fastbinary", fastbinary.__file__)'

# Apache's own source tree (test IDLs, cross-test programs, keys), from Debian's source package.
echo "apache source: $(bash "$(dirname "$0")/fetch-apache-src.sh" | tail -n 1)"
