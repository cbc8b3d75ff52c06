//! Tokio transports, server, client and connection pool for `thrift-core`.
