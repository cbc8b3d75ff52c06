//! Apache's own Java cross-test programs, `lib/java/src/crossTest`'s `TestServer` and
//! `TestClient` of Apache's source tree, built by `scripts/build-java-cross.sh` (javac, on
//! Apache's Java library of the same release compiled from the same tree, and Debian's jars).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::Server;

/// JVM flags for short runs: each program lives a second or two, so the quick compiler
/// alone and the serial collector start it sooner.
const JVM_FLAGS: [&str; 3] = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m"];

/// The built Java peers.
pub struct ApacheJava {
    classpath: String,
    /// The TLS system properties (keystore for the server, truststore for the client).
    jvm_args: Vec<String>,
}

impl ApacheJava {
    /// Builds the peers once per process (cached across runs by the script), or says why it
    /// cannot.
    pub fn get() -> Result<&'static ApacheJava, String> {
        static JAVA: OnceLock<Result<ApacheJava, String>> = OnceLock::new();
        JAVA.get_or_init(ApacheJava::build).as_ref().map_err(Clone::clone)
    }

    fn build() -> Result<ApacheJava, String> {
        let source = thrift_tests::apache_src::apache_source()?;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/build-java-cross.sh");
        let out = Command::new("bash")
            .arg(&script)
            .arg(source)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "{} failed ({}); run it by hand (bash scripts/install-test-deps.sh installs what it needs):\n{}",
                script.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let dir = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
        let read = |name: &str| {
            std::fs::read_to_string(dir.join(name))
                .map_err(|e| format!("{} left no {}: {e}", script.display(), dir.join(name).display()))
        };
        let classpath = read("classpath")?.trim().to_string();
        let jvm_args = read("java-args")?.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
        Ok(ApacheJava { classpath, jvm_args })
    }

    fn program(&self, class: &str) -> Command {
        let mut command = Command::new("java");
        command.args(JVM_FLAGS).args(&self.jvm_args).arg("-cp").arg(&self.classpath).arg(class);
        command
    }

    /// Apache's Java ThriftTest server (`TThreadPoolServer`, its default).
    pub fn server(&self) -> Server {
        Server::Java(self.program("org.apache.thrift.test.TestServer"))
    }

    /// Apache's Java ThriftTest client.
    pub fn client(&self) -> Command {
        self.program("org.apache.thrift.test.TestClient")
    }
}
