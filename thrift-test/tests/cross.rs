//! Apache's cross test, cell by cell: every protocol (binary, compact, multi, multic, the
//! accelerated `accel`, `accelc`, `multia`, `multiac`, and the header protocol's `header`,
//! `multih`) × transport (buffered, framed, and HTTP over TCP) ×
//! socket (TCP, Unix domain socket), with our client against our server, our client against Apache's Python test server, and
//! Apache's Python test client against our server. The Python peers are Apache's own
//! `test/py/TestServer.py` and `TestClient.py`, from Apache's source tree, on Apache's
//! library and code Apache's compiler generated from Apache's `test/ThriftTest.thrift`, the
//! file thrift-build generated our side from.
//!
//! A cell passes when the client exits 0: every method called, every result exact. Before
//! each client against our server, a connection opens and closes without sending, which
//! the server must shrug off.

mod support;

use std::fmt::Write as _;
use std::process::Command;

use support::{
    has_cell, run_client, rust_client, rust_server, ApachePython, Place, RunningServer, Server, PROTOCOLS, TRANSPORTS,
};

/// Runs every cell with a fresh server from `server` and the client from `client`, and
/// fails with a table of the cells when any did not pass.
fn run_cells(
    pairing: &str,
    server: impl Fn() -> Result<Server, String>,
    client: impl Fn() -> Result<Command, String>,
    poke_server: bool,
) {
    let mut table = String::new();
    let mut failures = Vec::new();
    for socket in ["tcp", "unix"] {
        for protocol in PROTOCOLS {
            for transport in TRANSPORTS.into_iter().filter(|t| has_cell(socket, protocol, t)) {
                let cell = format!("{pairing} {socket:>4} {protocol:>7} {transport:>8}");
                let outcome = (|| {
                    let mut running = match socket {
                        "tcp" => RunningServer::start(server()?, protocol, transport)?,
                        _ => RunningServer::start_unix(server()?, protocol, transport, &Place::socket_path(&cell))?,
                    };
                    if poke_server {
                        running.place.poke()?;
                    }
                    let run = run_client(client()?, &running.place, protocol, transport)?;
                    match run.code {
                        Some(0) => Ok(run.took),
                        Some(code) => {
                            Err(format!("client exited {code}:\n{}\nserver stderr:\n{}", run.output, running.stderr()))
                        }
                        None => Err(format!("client killed after {:?}:\n{}", run.took, run.output)),
                    }
                })();
                match outcome {
                    Ok(took) => writeln!(table, "{cell}  pass ({} ms)", took.as_millis()).unwrap(),
                    Err(why) => {
                        writeln!(table, "{cell}  FAIL").unwrap();
                        failures.push(format!("--- {cell}\n{why}"));
                    }
                }
            }
        }
    }
    println!("{table}");
    assert!(failures.is_empty(), "cells failed:\n{table}\n{}", failures.join("\n"));
}

fn apache() -> ApachePython {
    ApachePython::new().unwrap_or_else(|e| panic!("cannot set up Apache's Python test programs: {e}"))
}

#[test]
fn rust_client_against_rust_server() {
    run_cells("rust -> rust  ", || Ok(Server::Ours(rust_server())), || Ok(rust_client()), true);
}

#[test]
fn rust_client_against_python_server() {
    let py = apache();
    run_cells("rust -> python", || py.server(), || Ok(rust_client()), false);
}

#[test]
fn python_client_against_rust_server() {
    let py = apache();
    run_cells("python -> rust", || Ok(Server::Ours(rust_server())), || py.client(), true);
}

/// The Python peers against each other, under Apache's library alone: when a cell above
/// fails, this tells whether the peer or our side is wrong.
#[test]
fn python_client_against_python_server() {
    let py = apache();
    run_cells("python -> python", || py.server(), || py.client(), false);
}
