//! Tokio transports, server, client and connection pool for `thrift-core`.
//!
//! The transports are tokio-util codecs that turn a byte stream into whole messages, each a
//! [`bytes::Bytes`] the derived code decodes zero-copy (see [`decode_message`]):
//!
//! - [`FramedCodec`]: Apache's framed transport, a 4-byte big-endian length before each
//!   message, checked against the maximum frame size from the prefix alone.
//! - [`BufferedCodec`]: Apache's buffered transport, messages back to back with no length.
//!   A resumable skip-decoding [`Scanner`] walks the protocol to find where each message
//!   ends, without decoding values and without re-walking when bytes trickle in.
//! - [`detect`] tells which of the two, and which protocol, a connection speaks from its first
//!   bytes.
//!
//! Errors are [`TransportError`]s naming the phase and the place:
//! `skip-decoder: invalid field type 0x1f at offset 1234, depth 3 (field id 7)`.

#![forbid(unsafe_code)]

mod buffered;
mod channel;
mod client;
mod detect;
mod error;
mod framed;
mod incoming;
mod message;
mod scan;
mod server;

pub use buffered::BufferedCodec;
pub use channel::{CallError, Channel, Reply};
pub use client::{Client, ClientConfig, RawRequest};
pub use detect::{detect, Detection, ProtocolKind, Transport, Wire, DETECT_MAX_NAME_LEN};
pub use error::{Phase, TransportError, TransportErrorKind};
pub use framed::FramedCodec;
pub use incoming::{Incoming, Outgoing, Service};
pub use message::{decode_message, Message};
pub use scan::{Scan, Scanner};
pub use server::{Metrics, Multiplexed, MultiplexedBuilder, Server, ServerBuilder, ServerHandle, Shutdown};

/// The wire format this crate carries; generated service code refers to it through here.
pub use thrift_core;
/// Turns a trait of `async fn`s into a Thrift service; see the crate documentation.
pub use thrift_derive::service;
