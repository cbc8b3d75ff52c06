//! The header transports: Apache's THeader (magic `0x0FFF`, spoken by fbthrift and by
//! Apache's C++, Java, Python and Go header clients) and CloudWeGo's TTHeader (magic
//! `0x1000`, volo-thrift's and Kitex's header transport). Each message travels in a frame
//! that also carries its protocol (binary or compact), its sequence id, optional zlib
//! compression (THeader) and key/value [`Headers`].
//!
//! A [`Server`](crate::Server) recognises both from a connection's first bytes and answers
//! in kind; [`Request::headers`](crate::Request::headers) shows a request's headers. A
//! [`Client`](crate::Client) speaks them when its
//! [`ClientConfig::transport`](crate::ClientConfig::transport) says so, sending the headers of
//! [`Client::with_headers`](crate::Client::with_headers) with each call.

#[cfg(any(feature = "server", feature = "client"))]
mod codec;
mod frame;
mod headers;
mod section;

#[cfg(any(feature = "server", feature = "http"))]
pub(crate) use codec::HeaderCodec;
#[cfg(feature = "client")]
pub(crate) use codec::ReplyCodec;
#[cfg(feature = "client")]
pub(crate) use frame::encode_headers;
#[cfg(test)]
pub(crate) use frame::write;
pub(crate) use frame::{protocol_of, write_into, Format, FrameInfo, FIXED_LEN};
pub use headers::{ttheader_keys, Headers};

#[cfg(test)]
mod tests;
