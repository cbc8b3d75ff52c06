#!/usr/bin/env bash
# Builds Apache Thrift 0.17's own Java cross-test peers, lib/java/src/crossTest's TestServer and
# TestClient, with javac alone (Apache builds them with gradle, which would download its
# plugins and Maven dependencies): from the source tree scripts/fetch-apache-src.sh unpacks and
# the jars Debian packages (scripts/install-test-deps.sh installs them).
#
#   1. Apache's Java library at the same release, lib/java/src/main/java, compiled against
#      slf4j, httpclient/httpcore, the servlet API and commons-lang3. (Debian's libthrift-java
#      is 0.16; its jar is not used.)
#   2. thrift --gen java of Apache's test/ThriftTest.thrift, as Apache's gradle build runs it.
#      Its @javax.annotation.Generated needs the javax.annotation API, gone from the JDK since
#      11: Debian's geronimo-annotation-1.3-spec (Apache's build uses javax.annotation-api 1.3.2).
#   3. The servers' handler, ServerTestBase.TestHandler of lib/java/src/test (a JUnit 5 test
#      class; junit-jupiter-api is on the classpath to compile it, not to run anything), and
#      TestServer.java and TestClient.java, unchanged.
#   4. TLS material from test/keys, the files every other language's peer uses: the server's
#      keystore is a copy of test/keys/server.p12 as it is; the client's truststore is made here from
#      test/keys/CA.pem with keytool. Apache's lib/java/src/crossTest/resources/.keystore and
#      .truststore hold another certificate, one that expired in 2022.
#
# The output is cached under ${XDG_CACHE_HOME:-~/.cache}/thrift-rs/java-cross/<key>, the key a
# hash of every input (this script, Apache's files, the jars, javac's and thrift's versions),
# so a rerun prints the path at once. Prints the folder on its last line; in it `classpath`
# holds the runtime classpath and `java-args` the JVM flags (TLS system properties) for both
# programs. Usage: build-java-cross.sh [APACHE_SOURCE_DIR] (default: $THRIFT_APACHE_SRC, else
# the fetch script's folder).
set -euo pipefail

src=${1:-${THRIFT_APACHE_SRC:-${XDG_CACHE_HOME:-$HOME/.cache}/thrift-rs/thrift-0.17}}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/thrift-rs/java-cross
jars=/usr/share/java

fail() {
  echo "error: cannot build Apache's Java cross-test peers: $*" >&2
  exit 1
}

# What is needed, and the Debian package that brings it.
for tool in javac:openjdk-17-jdk-headless java:openjdk-17-jdk-headless keytool:openjdk-17-jdk-headless \
  thrift:thrift-compiler; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || fail "${tool%%:*} is missing (apt-get install ${tool#*:})"
done
compile_jars=(slf4j-api:libslf4j-java httpclient:libhttpclient-java httpcore:libhttpcore-java
  servlet-api:libservlet-api-java commons-lang3:libcommons-lang3-java
  geronimo-annotation-1.3-spec:libgeronimo-annotation-1.3-spec-java junit-jupiter-api:junit5
  opentest4j:libopentest4j-java apiguardian-api:libapiguardian-java)
# At run time: a logger binding that keeps slf4j quiet, and what httpclient loads.
run_jars=(slf4j-api:libslf4j-java slf4j-nop:libslf4j-java httpclient:libhttpclient-java
  httpcore:libhttpcore-java commons-logging:libcommons-logging-java commons-codec:libcommons-codec-java)
jar_path() {
  local jar=$jars/${1%%:*}.jar
  [ -f "$jar" ] || fail "$jar is missing (apt-get install ${1#*:})"
  echo "$jar"
}
compile_cp=$(for j in "${compile_jars[@]}"; do jar_path "$j"; done | paste -sd:)
run_cp=$(for j in "${run_jars[@]}"; do jar_path "$j"; done | paste -sd:)

java_src=$src/lib/java/src
lib_sources=$java_src/main/java
handler=$java_src/test/java/org/apache/thrift/server/ServerTestBase.java
programs=("$java_src/crossTest/java/org/apache/thrift/test/TestServer.java"
  "$java_src/crossTest/java/org/apache/thrift/test/TestClient.java")
idl=$src/test/ThriftTest.thrift
keys=$src/test/keys
for f in "$handler" "${programs[@]}" "$idl" "$keys/server.p12" "$keys/CA.pem"; do
  [ -f "$f" ] || fail "$f is missing (is $src Apache Thrift 0.17's source? see scripts/fetch-apache-src.sh)"
done
[ -d "$lib_sources/org/apache/thrift" ] || fail "$lib_sources holds no Apache Thrift Java library"

key=$({
  sha256sum <"$0"
  find "$lib_sources" -type f -name '*.java' -print0 | sort -z | xargs -0 sha256sum
  sha256sum "$handler" "${programs[@]}" "$idl" "$keys/server.p12" "$keys/CA.pem"
  for j in ${compile_cp//:/ } ${run_cp//:/ }; do echo "$(readlink -f "$j")"; done
  javac -version 2>&1
  thrift --version
} | sed "s|$src|SRC|g" | sha256sum | cut -c1-16)
out=$cache/$key
if [ -f "$out/classpath" ]; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/log
run() {
  "$@" >>"$log" 2>&1 || fail "$(basename "$1") failed ($*):"$'\n'"$(tail -n 20 "$log")"
}
mkdir -p "$work/lib" "$work/gen" "$work/classes"
echo "building Apache's Java cross-test peers in $out" >&2
mapfile -t lib_files < <(find "$lib_sources" -name '*.java' | sort)
run javac -nowarn -encoding UTF-8 -d "$work/lib" -cp "$compile_cp" "${lib_files[@]}"
run thrift --gen java -out "$work/gen" "$idl"
mapfile -t gen_files < <(find "$work/gen" -name '*.java' | sort)
run javac -nowarn -encoding UTF-8 -d "$work/classes" -cp "$work/lib:$compile_cp" \
  "${gen_files[@]}" "$handler" "${programs[@]}"
run keytool -importcert -noprompt -alias thrift-ca -file "$keys/CA.pem" -keystore "$work/truststore.p12" \
  -storetype PKCS12 -storepass thrift
cp "$keys/server.p12" "$work/keystore.p12"
rm -rf "$work/gen"

# The final paths, as the programs will see them once the folder is moved into place.
echo "$out/lib:$out/classes:$run_cp" >"$work/classpath"
cat >"$work/java-args" <<ARGS
-Djavax.net.ssl.keyStore=$out/keystore.p12
-Djavax.net.ssl.keyStoreType=PKCS12
-Djavax.net.ssl.keyStorePassword=thrift
-Djavax.net.ssl.trustStore=$out/truststore.p12
-Djavax.net.ssl.trustStoreType=PKCS12
-Djavax.net.ssl.trustStorePassword=thrift
ARGS
rm -f "$log"
# Another build of the same key may have won the race; either copy is whole.
mv -T "$work" "$out" 2>/dev/null || rm -rf "$work"
trap - EXIT
echo "$out"
