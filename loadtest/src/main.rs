//! `thrift-loadtest`: the seed's client strategies side by side; see the crate docs.

use std::process::ExitCode;

use clap::Parser;
use thrift_loadtest::{chart, run, serve, Options};

fn main() -> ExitCode {
    let options = Options::parse();
    if let Some(addr) = options.serve {
        return match serve(addr, options.serve_for, options.server_threads) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("thrift-loadtest: serving on {addr}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let report = match run(&options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("thrift-loadtest: {e}");
            return ExitCode::FAILURE;
        }
    };
    if options.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_table());
    }
    if let Some(path) = &options.chart {
        if let Err(e) = chart::write_svg(&report, path) {
            eprintln!("thrift-loadtest: writing the chart {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("chart written to {}", path.display());
    }
    ExitCode::SUCCESS
}
