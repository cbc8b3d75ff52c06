//! What a server accepts connections from: TCP listeners and, on Unix, Unix domain socket
//! listeners. The connection code is written once over [`Stream`].

use std::fmt;
use std::future::Future;
use std::io;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tracing::debug;

/// A listener the server accepts connections from.
pub(crate) trait Listener: Send + Sync + 'static {
    /// An accepted connection.
    type Stream: Stream;
    /// The address of a listener and of a peer.
    type Addr: Clone + fmt::Debug + Send + Sync + 'static;

    fn accept(&self) -> impl Future<Output = io::Result<(Self::Stream, Self::Addr)>> + Send;

    fn local_addr(&self) -> io::Result<Self::Addr>;

    /// A peer's address as the connection's spans show it.
    fn peer_name(peer: &Self::Addr) -> String;
}

/// An accepted connection, split into halves the reader and the writer own.
pub(crate) trait Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    type Read: AsyncRead + Unpin + Send + 'static;
    type Write: AsyncWrite + Unpin + Send + 'static;

    /// Sets the socket options a server connection wants.
    fn configure(&self, _keepalive: Option<Duration>) {}

    fn split(self) -> (Self::Read, Self::Write);
}

impl Listener for TcpListener {
    type Stream = TcpStream;
    type Addr = std::net::SocketAddr;

    fn accept(&self) -> impl Future<Output = io::Result<(TcpStream, Self::Addr)>> + Send {
        TcpListener::accept(self)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        TcpListener::local_addr(self)
    }

    fn peer_name(peer: &Self::Addr) -> String {
        peer.to_string()
    }
}

impl Stream for TcpStream {
    type Read = tokio::net::tcp::OwnedReadHalf;
    type Write = tokio::net::tcp::OwnedWriteHalf;

    fn configure(&self, keepalive: Option<Duration>) {
        // Replies are whole messages written at once: don't let Nagle hold them back.
        if let Err(e) = self.set_nodelay(true) {
            debug!(%e, "cannot set TCP_NODELAY");
        }
        if let Err(e) = crate::keepalive::set(self, keepalive) {
            debug!(%e, "cannot set TCP keepalive");
        }
    }

    fn split(self) -> (Self::Read, Self::Write) {
        self.into_split()
    }
}

#[cfg(unix)]
impl Listener for tokio::net::UnixListener {
    type Stream = tokio::net::UnixStream;
    type Addr = tokio::net::unix::SocketAddr;

    fn accept(&self) -> impl Future<Output = io::Result<(Self::Stream, Self::Addr)>> + Send {
        tokio::net::UnixListener::accept(self)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        tokio::net::UnixListener::local_addr(self)
    }

    /// Most Unix peers are unnamed: they connect from no path of their own.
    fn peer_name(peer: &Self::Addr) -> String {
        peer.as_pathname().map_or_else(|| "(unnamed)".to_owned(), |path| path.display().to_string())
    }
}

#[cfg(unix)]
impl Stream for tokio::net::UnixStream {
    type Read = tokio::net::unix::OwnedReadHalf;
    type Write = tokio::net::unix::OwnedWriteHalf;

    fn split(self) -> (Self::Read, Self::Write) {
        self.into_split()
    }
}
