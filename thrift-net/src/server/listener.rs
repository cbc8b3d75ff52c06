//! What a server accepts connections from: TCP listeners, TLS over TCP (feature `tls`) and,
//! on Unix, Unix domain socket listeners. The connection code is written once over
//! [`Stream`]. The HTTP server (feature `http`) accepts through [`Listener`] too.

// With `http` alone, only accepting and opening are used: not the split halves, not Unix.
#![cfg_attr(not(feature = "server"), allow(dead_code))]

use std::fmt;
use std::future::Future;
use std::io;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tracing::debug;

use super::Peer;

/// How long a TLS handshake may take by default: the [`Server`](crate::Server)'s unless set
/// otherwise, and the HTTP server's.
pub(crate) const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A listener the server accepts connections from.
pub(crate) trait Listener: Send + Sync + 'static {
    /// A connection as accepted, before any handshake.
    type Accepted: Send + 'static;
    /// An accepted connection, ready to carry Thrift.
    type Stream: Stream;
    /// The address of a listener and of a peer.
    type Addr: Clone + fmt::Debug + Send + Sync + 'static;

    fn accept(&self) -> impl Future<Output = io::Result<(Self::Accepted, Self::Addr)>> + Send;

    /// Makes an accepted connection ready: nothing to do for TCP and Unix sockets, the TLS
    /// handshake for TLS. Runs in the connection's own task (never holding up accepting),
    /// bounded by the server's handshake timeout.
    fn open(&self, accepted: Self::Accepted) -> impl Future<Output = io::Result<Self::Stream>> + Send + 'static;

    fn local_addr(&self) -> io::Result<Self::Addr>;

    /// A peer's address as requests carry it.
    fn peer(peer: &Self::Addr) -> Peer;
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
    type Accepted = TcpStream;
    type Stream = TcpStream;
    type Addr = std::net::SocketAddr;

    fn accept(&self) -> impl Future<Output = io::Result<(TcpStream, Self::Addr)>> + Send {
        TcpListener::accept(self)
    }

    fn open(&self, accepted: TcpStream) -> impl Future<Output = io::Result<TcpStream>> + Send + 'static {
        std::future::ready(Ok(accepted))
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        TcpListener::local_addr(self)
    }

    fn peer(peer: &Self::Addr) -> Peer {
        Peer::Tcp(*peer)
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
    type Accepted = tokio::net::UnixStream;
    type Stream = tokio::net::UnixStream;
    type Addr = tokio::net::unix::SocketAddr;

    fn accept(&self) -> impl Future<Output = io::Result<(Self::Stream, Self::Addr)>> + Send {
        tokio::net::UnixListener::accept(self)
    }

    fn open(&self, accepted: Self::Accepted) -> impl Future<Output = io::Result<Self::Stream>> + Send + 'static {
        std::future::ready(Ok(accepted))
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        tokio::net::UnixListener::local_addr(self)
    }

    /// Most Unix peers are unnamed: they connect from no path of their own.
    fn peer(peer: &Self::Addr) -> Peer {
        Peer::Unix(peer.as_pathname().map(Into::into))
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

/// TLS over TCP: a TCP listener and the acceptor that runs each connection's handshake.
#[cfg(feature = "tls")]
pub(crate) struct TlsListener {
    pub tcp: TcpListener,
    pub acceptor: tokio_rustls::TlsAcceptor,
}

#[cfg(feature = "tls")]
impl Listener for TlsListener {
    type Accepted = TcpStream;
    type Stream = tokio_rustls::server::TlsStream<TcpStream>;
    type Addr = std::net::SocketAddr;

    fn accept(&self) -> impl Future<Output = io::Result<(TcpStream, Self::Addr)>> + Send {
        self.tcp.accept()
    }

    fn open(&self, accepted: TcpStream) -> impl Future<Output = io::Result<Self::Stream>> + Send + 'static {
        // The handshake is a few flights each way: don't let Nagle hold them back.
        if let Err(e) = accepted.set_nodelay(true) {
            debug!(%e, "cannot set TCP_NODELAY");
        }
        self.acceptor.accept(accepted)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.tcp.local_addr()
    }

    fn peer(peer: &Self::Addr) -> Peer {
        Peer::Tcp(*peer)
    }
}

#[cfg(feature = "tls")]
impl Stream for tokio_rustls::server::TlsStream<TcpStream> {
    type Read = tokio::io::ReadHalf<Self>;
    type Write = tokio::io::WriteHalf<Self>;

    fn configure(&self, keepalive: Option<Duration>) {
        self.get_ref().0.configure(keepalive);
    }

    fn split(self) -> (Self::Read, Self::Write) {
        tokio::io::split(self)
    }
}

/// Zlib over any stream: each half inflates or deflates its own direction.
#[cfg(feature = "zlib")]
impl<S: Stream> Stream for crate::zlib::ZlibStream<S> {
    type Read = crate::zlib::ZlibReader<S::Read>;
    type Write = crate::zlib::ZlibWriter<S::Write>;

    fn configure(&self, keepalive: Option<Duration>) {
        self.get_ref().configure(keepalive);
    }

    /// The server wraps each connection before any byte moves, so there is no zlib state
    /// to carry over: each half starts its stream afresh.
    fn split(self) -> (Self::Read, Self::Write) {
        let (rd, wr) = self.into_inner().split();
        (crate::zlib::ZlibReader::new(rd), crate::zlib::ZlibWriter::new(wr))
    }
}
