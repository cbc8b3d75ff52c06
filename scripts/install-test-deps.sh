#!/usr/bin/env bash
# Installs the external tools the tests use, if they are missing: Apache Thrift's compiler
# and its Python library with the C extension (the reference implementation the interop
# tests compare against), both from Debian so that they are the same release (0.17).
#
# The tests look for the library with /usr/bin/python3, where Debian's python3-thrift
# lives (a pyenv `python3` earlier on the PATH does not see it), or with $THRIFT_TEST_PYTHON.
# PyPI has no thrift 0.17.0, so pip is not used.
#
# For Apache's own Java cross-test peers (thrift-test/tests/cross_java.rs), a JDK and the jars
# Debian packages for what Apache's Java library 0.17 and its TestServer/TestClient import:
# scripts/build-java-cross.sh compiles them from Apache's source with javac (no gradle, no
# Maven). Last, Apache's source tree is fetched (scripts/fetch-apache-src.sh) and the Java
# peers are built from it (cached).
set -euo pipefail

python=${THRIFT_TEST_PYTHON:-/usr/bin/python3}
probe="from thrift.protocol import fastbinary"

need=()
command -v thrift >/dev/null 2>&1 || need+=(thrift-compiler)
"$python" -c "$probe" >/dev/null 2>&1 || need+=(python3-thrift)
command -v javac >/dev/null 2>&1 && command -v keytool >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
# npm fetches the npm packages of the IDL corpus (scripts/fetch-idl-corpus.sh).
command -v npm >/dev/null 2>&1 || need+=(npm)
# Each jar build-java-cross.sh uses, and its package.
for jar in slf4j-api:libslf4j-java slf4j-nop:libslf4j-java httpclient:libhttpclient-java \
  httpcore:libhttpcore-java commons-logging:libcommons-logging-java commons-codec:libcommons-codec-java \
  servlet-api:libservlet-api-java commons-lang3:libcommons-lang3-java \
  geronimo-annotation-1.3-spec:libgeronimo-annotation-1.3-spec-java junit-jupiter-api:junit5 \
  opentest4j:libopentest4j-java apiguardian-api:libapiguardian-java; do
  [ -f "/usr/share/java/${jar%%:*}.jar" ] || need+=("${jar#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  echo "installing ${need[*]}"
  # Slim Debian images leave out /usr/share/man, where the JDK's postinst links its man pages.
  $sudo mkdir -p /usr/share/man/man1
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

javac -version 2>&1

# Apache's own source tree (test IDLs, cross-test programs, keys), from Debian's source package.
src=$(bash "$(dirname "$0")/fetch-apache-src.sh" | tail -n 1)
echo "apache source: $src"
# Apache's Java cross-test peers, built from it (once; the tests reuse the cached build).
echo "apache java peers: $(bash "$(dirname "$0")/build-java-cross.sh" "$src" | tail -n 1)"
# The IDL corpus thrift-build is tested on: the .thrift files six other projects publish on
# crates.io and npm (cached).
echo "idl corpus: $(bash "$(dirname "$0")/fetch-idl-corpus.sh" | tail -n 1)"
