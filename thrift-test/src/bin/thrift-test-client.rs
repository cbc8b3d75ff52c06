//! Apache Thrift's ThriftTest client with the cross test's command line: `--host`,
//! `--port N`, `--protocol binary|compact|multi|multic|json|multij` (and the others `--help` lists), `--transport buffered|framed`.
//! Calls every method, checks each result, and exits with Apache's bitmask: 0 when every
//! check passed, else 1 base types, 2 structs, 4 containers, 8 exceptions, 64 setup or
//! broken connection, 128 timeout.

use std::process::ExitCode;

use clap::Parser;
use thrift_conformance::checks::UNKNOWN;
use thrift_conformance::cli::{self, ClientArgs};

fn main() -> ExitCode {
    let args = match ClientArgs::try_parse() {
        Ok(args) => args,
        // --help and --version succeed; a bad flag is a setup failure.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(UNKNOWN);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the runtime: {e}");
            return ExitCode::from(UNKNOWN);
        }
    };
    ExitCode::from(runtime.block_on(cli::run_client(args)))
}
