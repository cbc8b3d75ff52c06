//! The names of the metrics the server and the pool emit through the
//! [`metrics`](https://docs.rs/metrics) facade (feature `metrics`), for dashboards and alerts.
//!
//! Install any `metrics` recorder (a Prometheus exporter, say) and the server and pool
//! report to it; without one the facade does nothing. Each metric moves exactly where the
//! matching field of [`Metrics`](crate::server::Metrics) or [`EndpointMetrics`](crate::pool::EndpointMetrics)
//! moves. Every server metric carries the labels of
//! [`ServerBuilder::metrics_labels`](crate::ServerBuilder::metrics_labels); every pool
//! metric carries `endpoint` (the socket address) and the labels of
//! [`PoolConfig::metrics_labels`](crate::PoolConfig::metrics_labels).
//!
//! | name | type | labels | meaning |
//! | --- | --- | --- | --- |
//! | `thrift_server_connections` | gauge | | connections open now |
//! | `thrift_server_connections_accepted_total` | counter | | connections accepted |
//! | `thrift_server_connections_rejected_total` | counter | | connections turned away at the connection limit |
//! | `thrift_server_requests_total` | counter | | requests received (including ones then refused during a drain, which the snapshot takes back) |
//! | `thrift_server_in_flight` | gauge | | requests being handled now |
//! | `thrift_server_errors_total` | counter | | requests answered with a `TApplicationException`, panicking oneway handlers, connections dropped for bytes that are not Thrift |
//! | `thrift_server_requests_refused_total` | counter | | requests answered `SHUTTING_DOWN` during a drain |
//! | `thrift_server_handler_timeouts_total` | counter | | handlers cancelled past the handler timeout |
//! | `thrift_server_handlers_cancelled_total` | counter | | handlers cancelled because their peer left |
//! | `thrift_server_write_timeouts_total` | counter | | connections closed because a write made no progress |
//! | `thrift_server_receive_budget_exceeded_total` | counter | | connections closed past the server's receiving budget |
//! | `thrift_server_received_bytes_total` | counter | | bytes read from sockets |
//! | `thrift_server_sent_bytes_total` | counter | | bytes written to sockets |
//! | `thrift_server_pending_bytes` | gauge | | bytes held in requests being handled and replies not yet written |
//! | `thrift_server_receiving_bytes` | gauge | | bytes held in messages partly received |
//! | `thrift_server_request_duration_seconds` | histogram | `method` | from a handler's start until its reply is queued for writing (or it is abandoned); past 256 distinct names, `method="other"` |
//! | `thrift_pool_connections_open` | gauge | `endpoint` | connections open (both modes) |
//! | `thrift_pool_connections_active` | gauge | `endpoint` | exclusive mode: connections checked out (shared mode: not emitted, the snapshot derives it) |
//! | `thrift_pool_connections_idle` | gauge | `endpoint` | exclusive mode: connections in the idle queue (shared mode: not emitted) |
//! | `thrift_pool_calls_waiting` | gauge | `endpoint` | calls waiting for a connection |
//! | `thrift_pool_calls_in_flight` | gauge | `endpoint` | calls routed to the endpoint and not finished |
//! | `thrift_pool_connections_created_total` | counter | `endpoint` | connections opened |
//! | `thrift_pool_connections_destroyed_total` | counter | `endpoint` | connections closed |
//! | `thrift_pool_connect_failures_total` | counter | `endpoint` | connection attempts that failed |
//! | `thrift_pool_timeouts_total` | counter | `endpoint` | calls that timed out waiting for a connection or a reply |
//! | `thrift_pool_ejections_total` | counter | `endpoint` | times the endpoint was ejected |

/// Gauge: connections open now.
pub const SERVER_CONNECTIONS: &str = "thrift_server_connections";
/// Counter: connections accepted.
pub const SERVER_CONNECTIONS_ACCEPTED_TOTAL: &str = "thrift_server_connections_accepted_total";
/// Counter: connections turned away at the connection limit.
pub const SERVER_CONNECTIONS_REJECTED_TOTAL: &str = "thrift_server_connections_rejected_total";
/// Counter: requests received.
pub const SERVER_REQUESTS_TOTAL: &str = "thrift_server_requests_total";
/// Gauge: requests being handled now.
pub const SERVER_IN_FLIGHT: &str = "thrift_server_in_flight";
/// Counter: requests answered with an exception, and other errors (see the table).
pub const SERVER_ERRORS_TOTAL: &str = "thrift_server_errors_total";
/// Counter: requests refused during a drain.
pub const SERVER_REQUESTS_REFUSED_TOTAL: &str = "thrift_server_requests_refused_total";
/// Counter: handlers cancelled past the handler timeout.
pub const SERVER_HANDLER_TIMEOUTS_TOTAL: &str = "thrift_server_handler_timeouts_total";
/// Counter: handlers cancelled because their peer left.
pub const SERVER_HANDLERS_CANCELLED_TOTAL: &str = "thrift_server_handlers_cancelled_total";
/// Counter: connections closed by the write timeout.
pub const SERVER_WRITE_TIMEOUTS_TOTAL: &str = "thrift_server_write_timeouts_total";
/// Counter: connections closed past the receiving budget.
pub const SERVER_RECEIVE_BUDGET_EXCEEDED_TOTAL: &str = "thrift_server_receive_budget_exceeded_total";
/// Counter: bytes read from sockets.
pub const SERVER_RECEIVED_BYTES_TOTAL: &str = "thrift_server_received_bytes_total";
/// Counter: bytes written to sockets.
pub const SERVER_SENT_BYTES_TOTAL: &str = "thrift_server_sent_bytes_total";
/// Gauge: bytes held in requests being handled and replies not yet written.
pub const SERVER_PENDING_BYTES: &str = "thrift_server_pending_bytes";
/// Gauge: bytes held in messages partly received.
pub const SERVER_RECEIVING_BYTES: &str = "thrift_server_receiving_bytes";
/// Histogram, label `method`: request durations in seconds.
pub const SERVER_REQUEST_DURATION_SECONDS: &str = "thrift_server_request_duration_seconds";
/// The `method` label's value once a server has seen too many distinct method names.
pub const OTHER_METHOD: &str = "other";

/// Gauge, label `endpoint`: connections open.
pub const POOL_CONNECTIONS_OPEN: &str = "thrift_pool_connections_open";
/// Gauge, label `endpoint`: exclusive mode's checked-out connections.
pub const POOL_CONNECTIONS_ACTIVE: &str = "thrift_pool_connections_active";
/// Gauge, label `endpoint`: exclusive mode's idle connections.
pub const POOL_CONNECTIONS_IDLE: &str = "thrift_pool_connections_idle";
/// Gauge, label `endpoint`: calls waiting for a connection.
pub const POOL_CALLS_WAITING: &str = "thrift_pool_calls_waiting";
/// Gauge, label `endpoint`: calls in flight.
pub const POOL_CALLS_IN_FLIGHT: &str = "thrift_pool_calls_in_flight";
/// Counter, label `endpoint`: connections opened.
pub const POOL_CONNECTIONS_CREATED_TOTAL: &str = "thrift_pool_connections_created_total";
/// Counter, label `endpoint`: connections closed.
pub const POOL_CONNECTIONS_DESTROYED_TOTAL: &str = "thrift_pool_connections_destroyed_total";
/// Counter, label `endpoint`: failed connection attempts.
pub const POOL_CONNECT_FAILURES_TOTAL: &str = "thrift_pool_connect_failures_total";
/// Counter, label `endpoint`: calls timed out.
pub const POOL_TIMEOUTS_TOTAL: &str = "thrift_pool_timeouts_total";
/// Counter, label `endpoint`: ejections.
pub const POOL_EJECTIONS_TOTAL: &str = "thrift_pool_ejections_total";
