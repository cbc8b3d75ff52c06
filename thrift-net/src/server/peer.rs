//! Where a request came from.

use std::fmt;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

/// The other end of a connection: where a request came from, or where a call went.
///
/// ```
/// use thrift_net::server::Peer;
///
/// let peer = Peer::Tcp("127.0.0.1:4000".parse().unwrap());
/// assert_eq!(peer.socket_addr().map(|a| a.port()), Some(4000));
/// assert_eq!(peer.to_string(), "127.0.0.1:4000");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Peer {
    /// A TCP peer (in the clear, over TLS, or over HTTP when the server knows the address).
    Tcp(SocketAddr),
    /// A Unix domain socket peer, with its path when it bound one (most connect unnamed).
    Unix(Option<Arc<Path>>),
    /// An HTTP endpoint, by its URL: where an HTTP client's calls go.
    Http(Arc<str>),
    /// No socket: an in-process channel, a request built by hand, or an HTTP request whose
    /// server did not say where it came from.
    Local,
}

impl Peer {
    /// The address of a TCP peer.
    pub fn socket_addr(&self) -> Option<SocketAddr> {
        match self {
            Peer::Tcp(addr) => Some(*addr),
            _ => None,
        }
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Peer::Tcp(addr) => write!(f, "{addr}"),
            Peer::Unix(Some(path)) => write!(f, "{}", path.display()),
            Peer::Unix(None) => f.write_str("(unnamed)"),
            Peer::Http(url) => f.write_str(url),
            Peer::Local => f.write_str("(local)"),
        }
    }
}
