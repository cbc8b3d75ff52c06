//! Apache's cross test, cell by cell: every protocol (binary, compact, multi, multic, the
//! accelerated `accel`, `accelc`, `multia`, `multiac`, the header protocol's `header`,
//! `multih`, and the JSON protocol's `json`, `multij`) × transport (buffered, framed, and HTTP
//! over TCP) × socket (TCP, Unix domain socket); then Apache's TLS and zlib cells: every
//! protocol × buffered, framed and HTTP over TLS (`--ssl`, Apache's `ip-ssl` socket), and ×
//! `--transport=zlib --zlib` over TCP, a Unix domain socket and TLS. Each with our client
//! against our server, our client against Apache's Python test server, Apache's Python test
//! client against our server, and the Python peers against each other. The Python peers are
//! Apache's own `test/py/TestServer.py` and `TestClient.py`, from Apache's source tree, on
//! Apache's library and code Apache's compiler generated from Apache's
//! `test/ThriftTest.thrift`, the file thrift-build generated our side from; the TLS cells use
//! Apache's `test/keys` (our binaries get `--keys-dir`, Apache's find them beside their
//! directory).
//!
//! A cell passes when the client exits 0: every method called, every result exact. Before
//! each client against our server, a connection opens and closes without sending, which
//! the server must shrug off.

mod support;

use std::process::Command;

use support::{
    has_cell, our_client, our_server, run_client, run_matrix, ApachePython, Place, RunningServer, Server, PROTOCOLS,
    TRANSPORTS,
};

/// The transports of the TLS cells: HTTPS too (Apache's `THttpServer` with a certificate,
/// and `THttpClient` on an `https` URL).
const LAYER_TRANSPORTS: [&str; 3] = ["buffered", "framed", "http"];

/// One cell of the matrix: `socket` is `tcp`, `unix` or `ssl` (TLS over TCP).
#[derive(Clone, Copy)]
struct Cell {
    socket: &'static str,
    protocol: &'static str,
    transport: &'static str,
}

impl Cell {
    /// The flags both programs get beyond protocol, transport and place, as Apache's runner
    /// passes them.
    fn layer_args(&self) -> Vec<&'static str> {
        let mut args = Vec::new();
        if self.transport == "zlib" {
            args.push("--zlib");
        }
        if self.socket == "ssl" {
            args.push("--ssl");
        }
        args
    }
}

/// Every cell, plain ones first; only those of the protocols in `CROSS_PROTOCOLS`
/// (comma-separated, e.g. `json,multij`) when it is set, to run part of the matrix.
fn cells() -> Vec<Cell> {
    let only = std::env::var("CROSS_PROTOCOLS").ok();
    let mut cells = all_cells();
    if let Some(only) = only {
        cells.retain(|c| only.split(',').any(|p| p.trim() == c.protocol));
    }
    cells
}

fn all_cells() -> Vec<Cell> {
    let mut cells = Vec::new();
    for socket in ["tcp", "unix"] {
        for protocol in PROTOCOLS {
            for transport in TRANSPORTS.into_iter().filter(|t| has_cell(socket, t)) {
                cells.push(Cell { socket, protocol, transport });
            }
        }
    }
    for protocol in PROTOCOLS {
        for transport in LAYER_TRANSPORTS {
            cells.push(Cell { socket: "ssl", protocol, transport });
        }
    }
    for socket in ["tcp", "unix", "ssl"] {
        for protocol in PROTOCOLS {
            cells.push(Cell { socket, protocol, transport: "zlib" });
        }
    }
    cells
}

/// Whether Apache's Python server can serve `cell`: not HTTPS. Its `THttpServer` wraps its
/// socket with `ssl.create_default_context()`, a client-side context, so every handshake
/// fails (Apache's own matrix lists each `*-py3_*_http-ip-ssl` cell among its known failures,
/// in `test/known_failures_Linux.json`).
fn python_serves(cell: &Cell) -> bool {
    !(cell.socket == "ssl" && cell.transport == "http")
}

/// Runs every cell (that `runs` takes) with a fresh server from `server` and the client from
/// `client`, and fails with a table of the cells when any did not pass.
fn run_cells(
    pairing: &str,
    server: impl Fn() -> Result<Server, String> + Sync,
    client: impl Fn() -> Result<Command, String> + Sync,
    poke_server: bool,
    runs: fn(&Cell) -> bool,
) {
    let (cells, left_out): (Vec<Cell>, Vec<Cell>) = cells().into_iter().partition(runs);
    if !left_out.is_empty() {
        println!(
            "{pairing}: {} cells not run, that Apache's Python server cannot serve (HTTPS: see python_serves)",
            left_out.len()
        );
    }
    let name = |cell: &Cell| format!("{:>4} {:>7} {:>8}", cell.socket, cell.protocol, cell.transport);
    run_matrix(pairing, &cells, 1, name, |cell, name| {
        let Cell { socket, protocol, transport } = *cell;
        let layers = cell.layer_args();
        let mut server = server()?;
        server.command_mut().args(&layers);
        let mut running = match socket {
            "unix" => RunningServer::start_unix(server, protocol, transport, &Place::socket_path(name))?,
            _ => RunningServer::start(server, protocol, transport)?,
        };
        if poke_server {
            running.place.poke()?;
        }
        let mut client = client()?;
        client.args(&layers);
        run_client(client, &running.place, protocol, transport)?.verdict(&mut running)
    });
}

fn apache() -> ApachePython {
    ApachePython::new().unwrap_or_else(|e| panic!("cannot set up Apache's Python test programs: {e}"))
}

#[test]
fn rust_client_against_rust_server() {
    run_cells("rust -> rust  ", || Ok(our_server()), || Ok(our_client()), true, |_| true);
}

#[test]
fn rust_client_against_python_server() {
    let py = apache();
    run_cells("rust -> python", || py.server(), || Ok(our_client()), false, python_serves);
}

#[test]
fn python_client_against_rust_server() {
    let py = apache();
    run_cells("python -> rust", || Ok(our_server()), || py.client(), true, |_| true);
}

/// The Python peers against each other, under Apache's library alone: when a cell above
/// fails, this tells whether the peer or our side is wrong.
#[test]
fn python_client_against_python_server() {
    let py = apache();
    run_cells("python -> python", || py.server(), || py.client(), false, python_serves);
}
