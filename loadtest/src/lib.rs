//! The seed's client experiments in one command.
//!
//! A Java team calling a Thrift `HelloService` went from a new socket per call (1.5K QPS,
//! then "Address already in use") to a shared client pool (6K QPS) to a reactive client
//! over the pool (10K). This crate runs the same story against this project's server and
//! clients, side by side, on one machine:
//!
//! - [`Strategy::PerCall`]: a new connection per call, closed after it;
//! - [`Strategy::Mutex`]: one connection behind a mutex, one call at a time;
//! - [`Strategy::Pool`]: `thrift-net`'s pool in exclusive mode, a connection per call in
//!   flight;
//! - [`Strategy::Pipelined`]: one pipelined connection carrying every call at once.
//!
//! Each runs at each concurrency level for a fixed time after a warm-up; the report gives
//! QPS, p50/p99/p99.9 latency from an HDR histogram, failed calls by kind, and connections
//! opened, as a table, as JSON, and as an SVG chart.
//!
//! ```sh
//! cargo run --release -p thrift-loadtest                         # defaults: < 1 minute
//! cargo run --release -p thrift-loadtest -- -c 16,64,256 -p large --protocol compact --chart out.svg
//! cargo run --release -p thrift-loadtest -- --tls -s pool,pipelined   # over TLS (rustls)
//! cargo run --release -p thrift-loadtest -- --serve 127.0.0.1:9090   # a server for another process
//! cargo run --release -p thrift-loadtest -- --addr 127.0.0.1:9090 --json
//! ```

pub mod chart;
pub mod drive;
pub mod hello;
pub mod options;
pub mod report;
pub mod run;
pub mod strategy;
pub mod tls;

pub use drive::{drive, histogram, Failure, Load, Stats, Timing, MAX_LATENCY_US};
pub use options::{Options, Payload, ProtocolFlag, Strategy, TransportFlag};
pub use report::{CellResult, Report, RunInfo};
pub use run::{run, run_cell, serve, start_server, start_tls_server, CellSettings};
pub use tls::RunTls;
