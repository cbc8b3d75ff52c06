//! Apache Thrift's ThriftTest server with the cross test's command line:
//! `--port N` (default 9090), `--protocol binary|compact|multi|multic|json|multij` (and the others `--help` lists),
//! `--transport buffered|framed`. Listens on 127.0.0.1 and prints
//! `listening on 127.0.0.1:PORT` once it accepts connections (port 0 picks a free one);
//! SIGINT, SIGTERM or SIGHUP stop it.

use std::process::ExitCode;

use clap::Parser;
use thrift_conformance::cli::{self, ServerArgs};

fn main() -> ExitCode {
    let args = ServerArgs::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(cli::serve(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("thrift-test-server: {e}");
            ExitCode::FAILURE
        }
    }
}
