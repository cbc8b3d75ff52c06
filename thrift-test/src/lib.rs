//! Apache Thrift's cross-language test service, `ThriftTest`, written with this project's
//! derives and `#[service]` macro: every type of Apache's `ThriftTest.thrift` ([`types`]),
//! the `ThriftTest` and `SecondService` services ([`services`]), the server's answers
//! ([`handler`]), the client's checks with Apache's exit-code bitmask ([`checks`]) and the
//! command line Apache's cross test drives ([`cli`]).
//!
//! The binaries `thrift-test-server` and `thrift-test-client` take Apache's flags:
//! `--port N`, `--protocol binary|compact|multi|multic`, `--transport buffered|framed`,
//! and for the client `--host`.

pub mod checks;
pub mod cli;
pub mod handler;
mod idl;
pub mod services;
pub mod types;

pub use handler::TestHandler;
pub use idl::idl;
pub use services::{
    MultiExceptionThrows, SecondService, SecondServiceClient, SecondServiceDefinition, SecondServiceServer,
    TestExceptionThrows, ThriftTest, ThriftTestClient, ThriftTestDefinition, ThriftTestServer,
};
