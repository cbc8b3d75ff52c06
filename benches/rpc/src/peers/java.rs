//! Apache's Java server as the seed ran it: `TNonblockingServer`, framed binary, an
//! `AsyncIface` handler. Built at run time (not by cargo) from Debian's `libthrift-java` and
//! code from `thrift --gen java`, only when a JDK and the library are installed:
//!
//! ```sh
//! apt-get install default-jdk-headless libthrift-java
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where Debian's libthrift-java and libslf4j-java put the jars the server needs.
const JARS: [&str; 3] =
    ["/usr/share/java/thrift.jar", "/usr/share/java/slf4j-api.jar", "/usr/share/java/slf4j-nop.jar"];

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn classpath(classes: &Path) -> Result<String, String> {
    let mut parts = vec![classes.display().to_string()];
    for jar in JARS {
        if !Path::new(jar).exists() {
            return Err(format!("{jar} is missing (apt-get install libthrift-java, which brings slf4j)"));
        }
        parts.push(jar.to_string());
    }
    Ok(parts.join(":"))
}

fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("{what}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(format!("{what} failed: {}", stderr.lines().take(6).collect::<Vec<_>>().join(" / ")))
    }
}

/// Generates and compiles the server under `work`; returns its classes directory, or why
/// it cannot be built here.
pub fn build(work: &Path) -> Result<PathBuf, String> {
    let gen = work.join("gen");
    let classes = work.join("classes");
    for dir in [&gen, &classes] {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let cp = classpath(&classes)?;
    run(
        Command::new("thrift").args(["--gen", "java", "-out"]).arg(&gen).arg(manifest_dir().join("idl/hello.thrift")),
        "thrift --gen java",
    )?;
    let mut sources: Vec<PathBuf> = fs::read_dir(gen.join("hello"))
        .map_err(|e| format!("generated java: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    sources.push(manifest_dir().join("java/HelloServer.java"));
    // Compiler 0.17's code against library 0.16 (Debian ships these two): warnings only.
    run(
        Command::new("javac").arg("-nowarn").arg("-cp").arg(&cp).arg("-d").arg(&classes).args(&sources),
        "javac (apt-get install default-jdk-headless)",
    )?;
    Ok(classes)
}

/// The command that starts the built server on 127.0.0.1:`port`.
pub fn command(classes: &Path, port: u16) -> Result<Command, String> {
    let mut command = Command::new("java");
    command
        .args(["-Xms256m", "-Xmx256m", "-cp"])
        .arg(classpath(classes)?)
        .arg("HelloServer")
        .arg(port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    Ok(command)
}
