//! What an accept loop does with an accept error: the server's and the HTTP server's alike.

use std::io;
use std::time::Duration;

/// After an accept error that is not the peer's (out of file descriptors, say), wait this
/// long before accepting again rather than spin.
pub(crate) const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Whether the error is the peer's: it gave up between connecting and the accept, and
/// there is nothing to do but accept the next one.
pub(crate) fn is_peers(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset)
}
