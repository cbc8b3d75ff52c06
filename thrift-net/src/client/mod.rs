//! The pipelining client: one connection carries many concurrent calls, matched to their
//! replies by sequence id.

mod config;
mod connection;
#[cfg(feature = "pool")]
mod direct;
mod tower;

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use thrift_core::{MessageHeader, MessageType};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, ToSocketAddrs};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

pub use config::ClientConfig;

use crate::channel::{Call, CallError, CallSite, Reply};
use crate::error::TransportError;
use crate::framing::Framing;
use crate::header::{FrameInfo, Headers};
use crate::message::call_name;
use crate::server::Peer;
use crate::wire::Transport;
use connection::{Outbound, Shared};
#[cfg(feature = "pool")]
pub(crate) use direct::Direct;

/// A client connection that carries many calls at once.
///
/// Calls are written as they are made and replies matched to them by sequence id in
/// whatever order they come, so one connection serves any number of concurrent callers.
/// It is cheap to clone (clones share the connection), `Send` and `Sync`; it is a
/// [`tower::Service`](tower_service::Service) of [`Call`]s, so it is a
/// [`Channel`](crate::Channel) for the typed clients `#[service]` generates and tower's
/// timeout, retry, rate-limit and balance layers wrap it.
///
/// - Each call has the [`ClientConfig::call_timeout`]; a call that times out (or whose future
///   is dropped) is forgotten, and a late reply to it is dropped.
/// - When the connection breaks, every waiting call fails at once with
///   [`CallError::Transport`] (it may have run), and every later call with
///   [`CallError::NotSent`] (it did not): [`Client::is_closed`] tells, and a pool makes a
///   new connection. No call ever hangs past its timeout or receives another call's reply.
/// - When a write fails, the calls already written still get the replies the server sends;
///   the calls not yet written fail as [`CallError::NotSent`].
/// - When the server answers a call with [`SHUTTING_DOWN`](crate::server::SHUTTING_DOWN), the
///   connection takes no new calls and closes after the replies still owed.
/// - A reply must name its call's method (else `WRONG_METHOD_NAME`) and be a reply or an
///   exception (else `INVALID_MESSAGE_TYPE`); a reply with a sequence id no call was given,
///   or an unreadable envelope ([`CallError::Protocol`]), closes the connection.
/// - The connection closes when the last clone is dropped, or on [`Client::close`].
/// - Each call runs in a `tracing` span `thrift_call` with its `method` and `seqid` (a
///   [`Pool`](crate::Pool)'s attempts in `thrift_pool_call`, with `endpoint` and `attempt`).
///
/// ```
/// use thrift_net::{service, Client, ClientConfig, Server};
///
/// #[service(name = "Echo")]
/// trait Echo {
///     async fn echo(&self, #[thrift(id = 1)] s: String) -> String;
/// }
/// struct Parrot;
/// impl Echo for Parrot {
///     async fn echo(&self, s: String) -> String { s }
/// }
///
/// # fn main() {
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::new().bind("127.0.0.1:0", echo::Server::new(Parrot)).await?;
/// let client = echo::Client::new(Client::connect(server.local_addr(), ClientConfig::default()).await?);
/// // Two calls in flight at once on one connection.
/// let (a, b) = tokio::join!(client.echo("a".into()), client.echo("b".into()));
/// assert_eq!((a?, b?), ("a".to_string(), "b".to_string()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// # }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Handle>,
    /// Sent with every call on a header transport ([`Client::with_headers`]), the call's
    /// timeout among them.
    headers: Option<Arc<Headers>>,
    /// How long each call of this handle may take ([`Client::with_timeout`]).
    timeout: Option<Duration>,
}

/// Shared by the clones of one client; dropping the last one closes the connection.
struct Handle {
    shared: Arc<Shared>,
    tx: mpsc::Sender<Outbound>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.close(io::ErrorKind::NotConnected, "the client was dropped");
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.inner.shared.config)
            .field("closed", &self.is_closed())
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

/// Awaits `connecting` for at most [`ClientConfig::connect_timeout`].
async fn within_connect_timeout<T>(
    config: &ClientConfig,
    connecting: impl std::future::Future<Output = io::Result<T>>,
) -> io::Result<T> {
    match config.connect_timeout {
        Some(limit) => tokio::time::timeout(limit, connecting)
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, format!("no connection within {limit:?}")))?,
        None => connecting.await,
    }
}

/// A TCP connection to `addr` made within [`ClientConfig::connect_timeout`], set up for
/// calls (no Nagle delay, the keepalive), and its peer.
pub(crate) async fn dial(
    addr: impl ToSocketAddrs,
    config: &ClientConfig,
) -> Result<(TcpStream, Option<Peer>), TransportError> {
    let stream = within_connect_timeout(config, TcpStream::connect(addr)).await?;
    setup(&stream, config)?;
    let peer = stream.peer_addr().ok().map(Peer::Tcp);
    Ok((stream, peer))
}

/// Calls are whole messages written at once: don't let Nagle hold them back.
fn setup(stream: &TcpStream, config: &ClientConfig) -> io::Result<()> {
    stream.set_nodelay(true)?;
    crate::keepalive::set(stream, config.tcp_keepalive)
}

/// A TLS connection to `addr` (within [`ClientConfig::connect_timeout`], the handshake
/// included) whose certificate is valid for `server_name`, and its peer.
#[cfg(feature = "tls")]
pub(crate) async fn dial_tls(
    addr: impl ToSocketAddrs,
    server_name: &str,
    connector: crate::tls::TlsConnector,
    config: &ClientConfig,
) -> Result<(tokio_rustls::client::TlsStream<TcpStream>, Option<Peer>), TransportError> {
    use tokio_rustls::rustls::pki_types::ServerName;
    let name = ServerName::try_from(server_name.to_owned()).map_err(|e| {
        io::Error::new(io::ErrorKind::InvalidInput, format!("TLS: {server_name:?} is not a server name: {e}"))
    })?;
    let connecting = async {
        let stream = TcpStream::connect(addr).await?;
        setup(&stream, config)?;
        let peer = stream.peer_addr().ok().map(Peer::Tcp);
        let stream = connector
            .connect(name, stream)
            .await
            .map_err(|e| io::Error::new(e.kind(), format!("TLS handshake with {server_name:?} failed: {e}")))?;
        Ok::<_, io::Error>((stream, peer))
    };
    Ok(within_connect_timeout(config, connecting).await?)
}

impl Client {
    /// Connects to `addr` (within [`ClientConfig::connect_timeout`]) and starts the
    /// connection's reader and writer tasks on the current tokio runtime.
    ///
    /// # Errors
    /// When the connection cannot be made in time.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub async fn connect(addr: impl ToSocketAddrs, config: ClientConfig) -> Result<Client, TransportError> {
        let (stream, peer) = dial(addr, &config).await?;
        let (rd, wr) = stream.into_split();
        Ok(Client::from_halves(rd, wr, config, peer))
    }

    /// Connects to the Unix domain socket at `path` (within
    /// [`ClientConfig::connect_timeout`]); otherwise as [`Client::connect`]
    /// ([`ClientConfig::tcp_keepalive`] does not apply).
    ///
    /// # Errors
    /// When the connection cannot be made in time.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    #[cfg(unix)]
    pub async fn connect_unix(
        path: impl AsRef<std::path::Path>,
        config: ClientConfig,
    ) -> Result<Client, TransportError> {
        let path = path.as_ref();
        let stream = within_connect_timeout(&config, tokio::net::UnixStream::connect(path)).await?;
        let (rd, wr) = stream.into_split();
        Ok(Client::from_halves(rd, wr, config, Some(Peer::Unix(Some(path.into())))))
    }

    /// Connects to `addr` over TLS (within [`ClientConfig::connect_timeout`], the handshake
    /// included), checking that the server's certificate is valid for `server_name` (a DNS
    /// name or an IP address); otherwise as [`Client::connect`]. `tls` is a
    /// [`TlsConnector`](crate::tls::TlsConnector) or an `Arc<rustls::ClientConfig>` (see
    /// [`tls::client_config`](crate::tls::client_config)).
    ///
    /// # Errors
    /// When `server_name` is not a valid name, the connection cannot be made in time, or
    /// the handshake fails: the error says which, and rustls's reason (an unknown issuer,
    /// a certificate for another name, a server that does not speak TLS...).
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use thrift_net::{tls, Client, ClientConfig};
    /// let tls = tls::client_config("ca.pem", None)?;
    /// let client = Client::connect_tls("service.internal:9443", "service.internal", tls, ClientConfig::default()).await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "tls")]
    pub async fn connect_tls(
        addr: impl ToSocketAddrs,
        server_name: &str,
        tls: impl Into<crate::tls::TlsConnector>,
        config: ClientConfig,
    ) -> Result<Client, TransportError> {
        let (stream, peer) = dial_tls(addr, server_name, tls.into(), &config).await?;
        let (rd, wr) = tokio::io::split(stream);
        Ok(Client::from_halves(rd, wr, config, peer))
    }

    /// A client over an established byte stream (a TLS stream, an in-memory pipe...);
    /// [`ClientConfig::connect_timeout`] does not apply. Its errors name no endpoint: it
    /// does not know the stream's.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub fn new<T>(io: T, config: ClientConfig) -> Client
    where
        T: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (rd, wr) = tokio::io::split(io);
        Client::from_halves(rd, wr, config, None)
    }

    fn from_halves<R, W>(rd: R, wr: W, config: ClientConfig, peer: Option<Peer>) -> Client
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        #[cfg(feature = "zlib")]
        if config.zlib {
            let (rd, wr) = (crate::zlib::ZlibReader::new(rd), crate::zlib::ZlibWriter::new(wr));
            return Client::spawn(rd, wr, config, peer);
        }
        Client::spawn(rd, wr, config, peer)
    }

    fn spawn<R, W>(rd: R, wr: W, config: ClientConfig, peer: Option<Peer>) -> Client
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let timeout = config.call_timeout;
        let shared = Arc::new(Shared::new(config, peer));
        let tx = connection::spawn(rd, wr, shared.clone());
        Client { inner: Arc::new(Handle { shared, tx }), headers: None, timeout }.with_timeout(timeout)
    }

    /// A handle to the same connection whose calls each wait at most `timeout` for their
    /// reply (`None`: forever), instead of [`ClientConfig::call_timeout`]: a deadline per
    /// call, or per caller. On a header transport the server learns it too, as the
    /// request's [deadline](crate::Request::deadline): a TTHeader call carries it as
    /// `RPC_TIMEOUT`, a THeader call as `client_timeout` (milliseconds, as Kitex and
    /// fbthrift send them).
    ///
    /// ```
    /// use std::time::Duration;
    /// use thrift_net::{service, CallError, Client, ClientConfig, Server};
    ///
    /// #[service]
    /// trait Slow {
    ///     async fn nap(&self, #[thrift(id = 1)] ms: i64);
    /// }
    /// struct Napper;
    /// impl Slow for Napper {
    ///     async fn nap(&self, ms: i64) {
    ///         tokio::time::sleep(Duration::from_millis(ms as u64)).await
    ///     }
    /// }
    ///
    /// # fn main() {
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let server = Server::new().bind("127.0.0.1:0", slow::Server::new(Napper)).await?;
    /// let connection = Client::connect(server.local_addr(), ClientConfig::default()).await?;
    /// let hasty = slow::Client::new(connection.with_timeout(Duration::from_millis(50)));
    /// assert!(matches!(hasty.nap(10_000).await, Err(CallError::Timeout(..))));
    /// // The connection is not spoiled for the patient.
    /// slow::Client::new(connection).nap(1).await?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// # }
    /// ```
    pub fn with_timeout(&self, timeout: impl Into<Option<Duration>>) -> Client {
        let timeout = timeout.into();
        let headers = with_deadline(self.config(), self.headers.as_deref(), timeout);
        Client { inner: self.inner.clone(), headers, timeout }
    }

    /// A handle to the same connection whose calls also carry `headers`, on the
    /// [`Transport::Header`] and [`Transport::TTHeader`] transports (other transports have
    /// nowhere to put them, and send none). Headers already set on this handle stay, unless
    /// `headers` sets the same keys.
    ///
    /// ```
    /// use thrift_net::{service, Client, ClientConfig, Headers, Request, ProtocolKind, Server, Transport};
    ///
    /// #[service(name = "Whoami")]
    /// trait Whoami {
    ///     async fn caller(&self) -> String;
    /// }
    /// # fn main() {
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// // A raw service answers with the request's `caller` header.
    /// #[derive(thrift_core::ThriftStruct)]
    /// struct Success { #[thrift(id = 0)] success: Option<String> }
    /// let echo = tower::service_fn(|request: Request| async move {
    ///     let caller = request.headers().get("caller").map(str::to_owned);
    ///     Ok::<_, std::convert::Infallible>(request.reply(&Success { success: caller }))
    /// });
    /// let server = Server::new().bind("127.0.0.1:0", echo).await?;
    /// let config = ClientConfig::new(Transport::Header, ProtocolKind::Compact);
    /// let client = Client::connect(server.local_addr(), config).await?;
    /// let mut headers = Headers::new();
    /// headers.insert("caller", "billing");
    /// let whoami = whoami::Client::new(client.with_headers(headers));
    /// assert_eq!(whoami.caller().await?, "billing");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// # }
    /// ```
    pub fn with_headers(&self, headers: Headers) -> Client {
        let mut all = self.headers.as_deref().cloned().unwrap_or_default();
        all.extend(&headers);
        Client { inner: self.inner.clone(), headers: Some(encoded(self.config(), all)), timeout: self.timeout }
    }

    /// The headers this handle sends with each call on a header transport.
    pub fn headers(&self) -> &Headers {
        self.headers.as_deref().unwrap_or(Headers::none())
    }

    /// The settings of this connection.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.shared.config
    }

    /// Whether the connection takes no new calls: closed (broken, or by [`Client::close`]),
    /// or finishing the calls it sent after a write failed or the server said it is shutting
    /// down. Every new call on it fails at once with [`CallError::NotSent`]. A cheap check,
    /// for pools.
    pub fn is_closed(&self) -> bool {
        self.inner.shared.is_closed()
    }

    /// Calls waiting for their replies now.
    pub fn in_flight(&self) -> usize {
        self.inner.shared.in_flight()
    }

    /// Replies received that matched no waiting call: late replies of calls that timed out
    /// or were dropped (each also logged at `warn`). A reply with a sequence id no call was
    /// ever given closes the connection instead: the server is confused.
    pub fn stray_replies(&self) -> u64 {
        self.inner.shared.stray_replies()
    }

    /// Completes once the connection is closed.
    pub async fn closed(&self) {
        self.inner.shared.wait_closed().await;
    }

    /// Closes the connection for every clone: waiting calls fail at once with a transport
    /// error.
    pub fn close(&self) {
        self.inner.shared.close(io::ErrorKind::ConnectionAborted, "the client closed the connection");
    }

    /// Sends `call` and waits for its reply (`None` for a oneway message, once written):
    /// what the [`tower::Service`](tower_service::Service) implementation does, without
    /// the `&mut self`.
    ///
    /// # Errors
    /// The [`CallError`]s listed above; never [`CallError::Exception`], which the typed
    /// client decodes from the reply.
    pub async fn send(&self, call: &Call) -> Result<Option<Reply>, CallError> {
        let peer = self.inner.shared.peer.as_ref();
        let sent = match call.is_oneway() {
            true => self.send_oneway(call).await.map(|()| None),
            false => self.send_call(call).await.map(|reply| Some(reply.with_known_peer(peer))),
        };
        sent.map_err(|e| e.located(&call.site().at_known(peer)))
    }

    /// The other end of the connection, when known (not for [`Client::new`]'s streams).
    pub fn peer(&self) -> Option<&Peer> {
        self.inner.shared.peer.as_ref()
    }

    async fn send_call(&self, call: &Call) -> Result<Reply, CallError> {
        let shared = &self.inner.shared;
        let method = call.method();
        let (seqid, reply) = shared.register(call.names())?;
        // Takes the call out of the table however this ends: timeout, error, or the caller
        // dropping the future. (A no-op when the reply came: the reader took it out.)
        let _forget = Forget { shared, seqid };
        let bytes = self.encode(call, MessageType::Call, seqid)?;
        let exchange = self.timed(async {
            let call = Outbound { bytes, written: None, seqid: Some(seqid) };
            self.inner.tx.send(call).await.map_err(|_| shared.not_sent_error())?;
            reply.await.unwrap_or_else(|_| Err(shared.closed_error()))
        });
        exchange.instrument(tracing::debug_span!("thrift_call", method, seqid)).await
    }

    async fn send_oneway(&self, call: &Call) -> Result<(), CallError> {
        let shared = &self.inner.shared;
        let seqid = shared.oneway_seqid()?;
        let bytes = self.encode(call, MessageType::Oneway, seqid)?;
        let (ack, written) = oneshot::channel();
        self.timed(async {
            let message = Outbound { bytes, written: Some(ack), seqid: None };
            self.inner.tx.send(message).await.map_err(|_| shared.not_sent_error())?;
            written.await.map_err(|_| shared.closed_error())
        })
        .await
    }

    /// Runs `exchange` within the call timeout.
    async fn timed<T>(&self, exchange: impl Future<Output = Result<T, CallError>>) -> Result<T, CallError> {
        match self.timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .unwrap_or(Err(CallError::Timeout(Some(limit), CallSite::default()))),
            None => exchange.await,
        }
    }

    /// `call` in a buffer of its own, handed to the writer task.
    fn encode(&self, call: &Call, kind: MessageType, seqid: i32) -> Result<Bytes, CallError> {
        let mut buf = BytesMut::new();
        encode(self.config(), self.headers(), call, kind, seqid, &mut buf)?;
        Ok(buf.freeze())
    }
}

/// `call` as one message, appended to `dst` (which grows once, by its exact size unless
/// compressed), frame header included, carrying `headers` on a header transport.
pub(crate) fn encode(
    config: &ClientConfig,
    headers: &Headers,
    call: &Call,
    kind: MessageType,
    seqid: i32,
    dst: &mut BytesMut,
) -> Result<(), CallError> {
    let name = call_name(config.multiplexed, call.service(), call.method());
    let header = MessageHeader { name: &name, kind, seqid };
    let framing = call_framing(config, seqid)?;
    // Within the limits: the server would refuse a larger message and drop the
    // connection, failing every call on it.
    Ok(call.encode_into(config.protocol, header, &framing, headers, &config.limits, dst)?)
}

/// `headers` (if any) with the header that tells the server a call's `timeout`, in the
/// transport's format, replacing any earlier one: what a handle with that timeout sends.
pub(crate) fn with_deadline(
    config: &ClientConfig,
    headers: Option<&Headers>,
    timeout: Option<Duration>,
) -> Option<Arc<Headers>> {
    let mut headers = headers.cloned().unwrap_or_default();
    headers.remove(crate::server::CLIENT_TIMEOUT);
    headers.remove_int(crate::codec::ttheader_keys::RPC_TIMEOUT);
    if let Some(limit) = timeout {
        let millis = limit.as_millis().max(1).to_string();
        match config.transport {
            Transport::TTHeader => headers.insert_int(crate::codec::ttheader_keys::RPC_TIMEOUT, millis),
            Transport::Header | Transport::FramedHeader => headers.insert(crate::server::CLIENT_TIMEOUT, millis),
            _ => {}
        }
    }
    (!headers.is_empty()).then(|| encoded(config, headers))
}

/// `headers` as a handle keeps them: encoded once for its header format, so each call copies
/// their encoding into its frame.
fn encoded(config: &ClientConfig, headers: Headers) -> Arc<Headers> {
    Arc::new(match config.transport.header_format() {
        Some(format) => crate::header::encode_headers(format, headers),
        None => headers,
    })
}

/// Takes a call out of the table when dropped.
struct Forget<'a> {
    shared: &'a Shared,
    seqid: i32,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.shared.forget(self.seqid);
    }
}

/// How a call with `seqid` is framed under `config`: bare, framed, or in a header frame of
/// the transport's format (no headers of its own: those are the handle's).
pub(crate) fn call_framing(config: &ClientConfig, seqid: i32) -> Result<Framing, CallError> {
    Ok(match config.transport.header_format() {
        Some(format) => Framing::Header(FrameInfo {
            format,
            flags: 0,
            seqid,
            protocol: config.protocol,
            zlib: header_zlib(config)?,
            nested: config.transport == Transport::FramedHeader,
            framed_payload: false,
            headers: Headers::new(),
        }),
        None => Framing::plain(config.transport == Transport::Framed),
    })
}

/// Whether calls take THeader's zlib transform: [`ClientConfig::header_zlib`], refused where
/// the transport has no such transform.
#[cfg(feature = "zlib")]
fn header_zlib(config: &ClientConfig) -> Result<bool, CallError> {
    use crate::error::{Phase, TransportErrorKind};
    if config.header_zlib && config.transport.header_format() != Some(crate::header::Format::THeader) {
        let what = format!("{:?} has no zlib transform (header_zlib is THeader's)", config.transport);
        return Err(TransportError::new(Phase::Encode, TransportErrorKind::Header(what)).into());
    }
    Ok(config.header_zlib)
}

#[cfg(not(feature = "zlib"))]
fn header_zlib(_: &ClientConfig) -> Result<bool, CallError> {
    Ok(false)
}
