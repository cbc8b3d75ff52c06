//! Thrift over HTTP, as Apache's `THttpServer` and `THttpClient` speak it: each call is a
//! `POST` whose body is one bare message (binary, compact or JSON, no frame), answered `200 OK`
//! with the reply as the body (`application/x-thrift`); a oneway call is answered with an
//! empty body.
//!
//! - [`HttpService`] is a `tower::Service` of HTTP requests around any [`ThriftService`]: mount it
//!   as a route of an axum `Router` (`route_service("/thrift", HttpService::new(..))`) beside
//!   ordinary handlers, or serve it with hyper.
//! - [`serve_http`] serves one on a TCP listener, with graceful shutdown; `serve_https` (feature
//!   `https`) the same over TLS.
//! - [`HttpClient`] is a [`Channel`](crate::Channel) that posts each call; `HttpClient::with_tls`
//!   (feature `https`) posts them over TLS.
//!
//! What a peer can cost: a body is read up to
//! [`Limits::max_message_len`](thrift_core::Limits::max_message_len) and refused past it
//! (`413`); request headers must arrive within [`HEADER_READ_TIMEOUT`], and over TLS the
//! handshake within [`TLS_HANDSHAKE_TIMEOUT`].
//!
//! [`ThriftService`]: crate::ThriftService

mod client;
mod server;

pub use client::HttpClient;
#[cfg(feature = "https")]
pub use server::serve_https;
pub use server::{serve_http, HttpService, HEADER_READ_TIMEOUT, TLS_HANDSHAKE_TIMEOUT};

/// The content type of Thrift bodies.
pub const CONTENT_TYPE: &str = "application/x-thrift";
