//! Apache's cross test against Apache's own Java peers: Apache Thrift 0.17's Java
//! `TestServer` and `TestClient` (`lib/java/src/crossTest` of Apache's source tree, on
//! Apache's Java library of the same release, with code Apache's compiler generated from
//! `test/ThriftTest.thrift`; see `scripts/build-java-cross.sh`) against our binaries, in both
//! roles, for every cell both sides have:
//!
//! - protocols binary, compact, multi, multic;
//! - transports buffered, framed, Java's fastframed (framed on the wire: our side is told
//!   `framed`, as Apache's runner pairs them), zlib (`--transport=zlib --zlib`), each over TCP
//!   and over TLS (`--ssl`, Apache's `test/keys`);
//! - HTTP over TCP with the Java client against our server (Apache's Java cross test has no
//!   HTTP server; `TestTServletServer` needs Tomcat, and Apache's `tests.json` lists HTTP for
//!   the Java client only), through both of `THttpClient`'s HTTP stacks: the JDK's
//!   `HttpURLConnection` (what Apache's runner uses) and, with the client's `--client` flag,
//!   Apache HttpClient 4.
//!
//! Not here, because the Java peers do not have them: Unix domain sockets (neither program
//! takes `--domain-socket`), the header protocol (no THeader in Apache's Java library
//! 0.17), HTTPS (the Java client refuses `--ssl` with HTTP).
//!
//! The TLS cells give the Java programs Apache's `test/keys`, which every other peer uses
//! (the server `server.p12`, the client a truststore of `CA.pem`), not the stores beside
//! them in `lib/java`, whose certificate expired in 2022.
//!
//! A cell passes when the client exits 0: Apache's Java client exits with a bit per failed
//! group of checks, and ours with a nonzero code on any wrong result. Before the Java client
//! runs against our server, a connection opens and closes without sending, as in `cross.rs`.

mod support;

use std::process::Command;

use support::java::ApacheJava;
use support::{our_client, our_server, run_client, run_matrix, RunningServer, Server};

/// The protocols both sides have.
const PROTOCOLS: [&str; 6] = ["binary", "compact", "json", "multi", "multic", "multij"];

/// The transports of socket cells as (ours, Java's) names: Java's `fastframed` puts the same
/// frames on the wire as `framed`.
const TRANSPORTS: [(&str, &str); 4] =
    [("buffered", "buffered"), ("framed", "framed"), ("framed", "fastframed"), ("zlib", "zlib")];

/// How many cells run at once in each role. A cell is a JVM starting, most of its second or
/// two; a few at a time keep the whole matrix short without starving a small machine.
const WORKERS: usize = 3;

/// Which side Apache's Java program takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum JavaRole {
    Server,
    Client,
}

/// One cell: `socket` is `tcp` or `ssl` (TLS over TCP); the transport as each side names it,
/// and flags for the Java program alone.
struct Cell {
    socket: &'static str,
    protocol: &'static str,
    ours: &'static str,
    java: &'static str,
    java_flags: &'static [&'static str],
}

impl Cell {
    /// The flags both programs get beyond protocol, transport and place, as Apache's runner
    /// passes them.
    fn layer_args(&self) -> Vec<&'static str> {
        let mut args = Vec::new();
        if self.ours == "zlib" {
            args.push("--zlib");
        }
        if self.socket == "ssl" {
            args.push("--ssl");
        }
        args
    }
}

/// Every cell of a role: the socket cells, then (Java client only) HTTP.
fn cells(role: JavaRole) -> Vec<Cell> {
    let mut cells = Vec::new();
    for socket in ["tcp", "ssl"] {
        for protocol in PROTOCOLS {
            for (ours, java) in TRANSPORTS {
                cells.push(Cell { socket, protocol, ours, java, java_flags: &[] });
            }
        }
    }
    if role == JavaRole::Client {
        for protocol in PROTOCOLS {
            for java_flags in [&[][..], &["--client"]] {
                cells.push(Cell { socket: "tcp", protocol, ours: "http", java: "http", java_flags });
            }
        }
    }
    cells
}

fn java() -> &'static ApacheJava {
    ApacheJava::get().unwrap_or_else(|e| panic!("cannot build Apache's Java cross-test programs: {e}"))
}

/// Runs every cell of `role` with a fresh server per cell, and fails with a table of the
/// cells when any did not pass.
fn run_cells(pairing: &str, role: JavaRole) {
    let java = java();
    let name = |cell: &Cell| {
        let mut transport =
            if cell.ours == cell.java { cell.ours.to_string() } else { format!("{}/{}", cell.ours, cell.java) };
        for flag in cell.java_flags {
            transport = format!("{transport} {flag}");
        }
        format!("{:>3} {:>7} {:>17}", cell.socket, cell.protocol, transport)
    };
    run_matrix(pairing, &cells(role), WORKERS, name, |cell, _| {
        let layers = cell.layer_args();
        let (mut server, mut client, server_transport, client_transport): (Server, Command, _, _) = match role {
            JavaRole::Server => (java.server(), our_client(), cell.java, cell.ours),
            JavaRole::Client => (our_server(), java.client(), cell.ours, cell.java),
        };
        server.command_mut().args(&layers);
        match role {
            JavaRole::Server => server.command_mut().args(cell.java_flags),
            JavaRole::Client => client.args(cell.java_flags),
        };
        let mut running = RunningServer::start(server, cell.protocol, server_transport)?;
        if role == JavaRole::Client {
            running.place.poke()?;
        }
        client.args(&layers);
        run_client(client, &running.place, cell.protocol, client_transport)?.verdict(&mut running)
    });
}

#[test]
fn rust_client_against_java_server() {
    run_cells("rust -> java", JavaRole::Server);
}

#[test]
fn java_client_against_rust_server() {
    run_cells("java -> rust", JavaRole::Client);
}
