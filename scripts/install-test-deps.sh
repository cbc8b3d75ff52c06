#!/usr/bin/env bash
# Installs the external tools the tests use, if they are missing: Apache Thrift's compiler
# and its Python library (the reference implementation the interop tests compare against).
set -euo pipefail

need=()
command -v thrift >/dev/null 2>&1 || need+=(thrift-compiler)
python3 -c 'import thrift' >/dev/null 2>&1 || need+=(python3-thrift)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
# python3-thrift lands in Debian's python; when python3 is another interpreter, use pip.
if ! python3 -c 'import thrift' >/dev/null 2>&1; then
  python3 -m pip install --quiet 'thrift==0.17.0' || python3 -m pip install --quiet thrift
fi
thrift --version
python3 -c 'import thrift; print("python thrift", thrift.__file__)'
