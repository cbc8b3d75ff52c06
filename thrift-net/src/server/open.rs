//! From an accepted connection to one served (or turned away): its handshake (TLS) within
//! the server's handshake timeout, then zlib if the server speaks it.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;
use tracing::debug;

use super::bind::Shared;
use super::listener::Stream;
use super::{connection, reject};
use super::{Peer, ThriftService};

/// The longest a connection turned away at the connection limit may take over its
/// handshake: it is answered within a second anyway.
const REJECT_HANDSHAKE: Duration = Duration::from_secs(1);

/// Completes `opening` and serves the connection. `place` is its place under the
/// connection limit, held from the start of the handshake.
pub(crate) async fn serve<S: ThriftService, IO: Stream>(
    opening: impl Future<Output = io::Result<IO>>,
    peer: Peer,
    shared: Arc<Shared>,
    service: S,
    place: OwnedSemaphorePermit,
) {
    let Some(stream) = handshake(opening, &shared, shared.config.handshake_timeout).await else { return };
    #[cfg(feature = "zlib")]
    if shared.config.zlib {
        return connection::serve(crate::zlib::ZlibStream::new(stream), peer, shared, service, place).await;
    }
    connection::serve(stream, peer, shared, service, place).await
}

/// Completes `opening` and turns the connection away with an answer (see
/// [`reject::at_capacity`]).
pub(crate) async fn reject<IO: Stream>(
    opening: impl Future<Output = io::Result<IO>>,
    shared: Arc<Shared>,
    slot: OwnedSemaphorePermit,
) {
    let limit = shared.config.handshake_timeout.min(REJECT_HANDSHAKE);
    let Some(stream) = handshake(opening, &shared, limit).await else { return };
    #[cfg(feature = "zlib")]
    if shared.config.zlib {
        return reject::at_capacity(crate::zlib::ZlibStream::new(stream), shared, slot).await;
    }
    reject::at_capacity(stream, shared, slot).await
}

/// Awaits the handshake for at most `limit`, or until the server stops; `None` when it
/// failed, ran out of time or was cut short (the connection is then dropped, closing it).
async fn handshake<IO>(opening: impl Future<Output = io::Result<IO>>, shared: &Shared, limit: Duration) -> Option<IO> {
    let opened = tokio::select! {
        biased;
        _ = shared.stop.cancelled() => return None,
        opened = tokio::time::timeout(limit, opening) => opened,
    };
    match opened {
        Ok(Ok(stream)) => Some(stream),
        Ok(Err(e)) => {
            debug!(%e, "handshake failed; closing");
            None
        }
        Err(_) => {
            debug!(?limit, "no handshake within the handshake timeout; closing");
            None
        }
    }
}
