//! The server side: a tower service of HTTP requests, and a loop that serves one.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{header, Method, Request as HttpRequest, Response as HttpResponse, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use thrift_core::{Limits, MessageType};
use tokio::net::TcpListener;
use tokio_util::codec::Decoder;
use tracing::{debug, error, warn};

use super::CONTENT_TYPE;
use crate::detect::{detect, Detection};
use crate::framing::Framing;
use crate::header::{FrameInfo, HeaderCodec};
use crate::panics::{panic_message, CatchUnwind};
#[cfg(feature = "https")]
use crate::server::listener::TlsListener;
use crate::server::listener::{Listener, Stream};
use crate::server::{ready_call, Peer, Request, ThriftService};
use crate::wire::{Transport, Wire};

/// How long [`serve_http`] waits for a request's headers (on a new connection, and between
/// requests of a kept-alive one) before closing the connection.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// A Thrift [`ThriftService`] as a `tower::Service` of HTTP requests: `POST` bodies are calls in the
/// binary, compact or JSON protocol, bare or in one THeader or TTHeader frame (told from their
/// first bytes), answered in kind. A oneway call is answered (`200`, empty) as soon as it is
/// read, and run after.
///
/// Anything else is answered with a status and a line of text: `405` for another method,
/// `413` for a body beyond the message limit, `400` for a body that is not one Thrift
/// message. A handler that panics is answered with `INTERNAL_ERROR`, as the
/// [`Server`](crate::Server) does. Cheap to clone: clones share the service.
///
/// ```
/// use thrift_net::http::HttpService;
/// use thrift_net::service;
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
/// // In an axum app: `Router::new().route_service("/thrift", thrift)`.
/// # fn main() {
/// let thrift = HttpService::new(echo::Server::new(Parrot));
/// # let _ = thrift;
/// # }
/// ```
pub struct HttpService<S> {
    service: S,
    limits: Limits,
    /// Whom requests come from when a request does not say ([`serve_http`] tells).
    peer: Peer,
}

impl<S: Clone> Clone for HttpService<S> {
    fn clone(&self) -> Self {
        HttpService { service: self.service.clone(), limits: self.limits, peer: self.peer.clone() }
    }
}

impl<S: ThriftService> HttpService<S> {
    /// Serves `service` with Apache's limits.
    pub fn new(service: S) -> Self {
        HttpService { service, limits: Limits::default(), peer: Peer::Local }
    }

    /// The same service, telling its requests they come from `peer`, unless a request's
    /// extensions hold a [`Peer`] or a `SocketAddr` of its own: under axum, copy
    /// `ConnectInfo<SocketAddr>`'s address into the extensions (a `map_request` layer, with
    /// the app served by `into_make_service_with_connect_info::<SocketAddr>()`) and handlers
    /// see each caller's address.
    pub fn with_peer(mut self, peer: Peer) -> Self {
        self.peer = peer;
        self
    }

    /// The limits bodies are read and decoded within.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    async fn answer<B>(mut self, request: HttpRequest<B>) -> HttpResponse<Full<Bytes>>
    where
        B: Body,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let extensions = request.extensions();
        let peer = match (extensions.get::<Peer>(), extensions.get::<SocketAddr>()) {
            (Some(peer), _) => peer.clone(),
            (None, Some(addr)) => Peer::Tcp(*addr),
            (None, None) => self.peer.clone(),
        };
        if request.method() != Method::POST {
            let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "Thrift calls are POST requests".into());
            response.headers_mut().insert(header::ALLOW, header::HeaderValue::from_static("POST"));
            return response;
        }
        let max = self.limits.max_message_len;
        let body = match Limited::new(request.into_body(), max).collect().await {
            Ok(body) => body.to_bytes(),
            Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
                return text(StatusCode::PAYLOAD_TOO_LARGE, format!("a body beyond the maximum message size {max}"));
            }
            Err(e) => return text(StatusCode::BAD_REQUEST, format!("reading the body failed: {e}")),
        };
        let (message, protocol, framing) = match detect(&body, &self.limits) {
            Ok(Detection::Found(Wire { transport: Transport::Buffered, protocol })) => (body, protocol, Framing::Bare),
            Ok(Detection::Found(Wire {
                transport: Transport::Header | Transport::TTHeader | Transport::FramedHeader,
                ..
            })) => match header_frame(body, &self.limits) {
                Ok((info, message)) => (message, info.protocol, Framing::Header(info)),
                Err(why) => return text(StatusCode::BAD_REQUEST, why),
            },
            Ok(Detection::Found(wire)) => {
                let why = format!("a body must be one bare message or one header frame, not {:?}", wire.transport);
                return text(StatusCode::BAD_REQUEST, why);
            }
            Ok(Detection::NeedMore(_)) => return text(StatusCode::BAD_REQUEST, "a body cut short".into()),
            Err(e) => return text(StatusCode::BAD_REQUEST, e.to_string()),
        };
        let incoming = match Request::framed_as(message, protocol, framing, self.limits, std::time::Instant::now()) {
            Ok(incoming) => incoming.with_peer(peer),
            Err(e) => return text(StatusCode::BAD_REQUEST, format!("an undecodable envelope: {e}")),
        };
        if incoming.kind() == MessageType::Oneway {
            // Its sender waits for nothing but the answer to the POST: answered at once, run
            // after.
            let mut service = self.service.clone();
            tokio::spawn(async move {
                let method = incoming.method().to_owned();
                match CatchUnwind(Box::pin(ready_call(&mut service, incoming))).await {
                    Ok(Ok(_)) => {}
                    Ok(Err(error)) => debug!(%error, method, "oneway request failed"),
                    Err(panic) => error!(panic = panic_message(&*panic), method, "oneway handler panicked"),
                }
            });
            return thrift_response(Bytes::new());
        }
        let request = incoming.clone();
        let reply = match CatchUnwind(Box::pin(ready_call(&mut self.service, incoming))).await {
            Ok(Ok(response)) => response.into_bytes(),
            Ok(Err(error)) => request.answer_failure(&error).into_bytes(),
            Err(panic) => {
                error!(panic = panic_message(&*panic), "handler panicked; answering INTERNAL_ERROR");
                let message = format!("internal error processing {}", request.method());
                request.failed(thrift_core::ApplicationExceptionKind::InternalError, message)
            }
        };
        thrift_response(reply.unwrap_or_default())
    }
}

/// The one THeader or TTHeader frame a body holds (as Apache's `THeaderProtocol` over
/// `THttpClient` posts them), read as a connection's frames are; the reply is framed alike.
fn header_frame(body: Bytes, limits: &Limits) -> Result<(FrameInfo, Bytes), String> {
    let mut buf = BytesMut::from(body);
    match HeaderCodec::with_limits(limits).decode_eof(&mut buf) {
        Ok(Some(frame)) if buf.is_empty() => Ok(frame),
        Ok(_) => Err("a body must be one whole header frame".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn thrift_response(body: Bytes) -> HttpResponse<Full<Bytes>> {
    let mut response = HttpResponse::new(Full::new(body));
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static(CONTENT_TYPE));
    response
}

fn text(status: StatusCode, message: String) -> HttpResponse<Full<Bytes>> {
    debug!(%status, %message, "HTTP request refused");
    let mut response = HttpResponse::new(Full::new(Bytes::from(message)));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

impl<S, B> tower_service::Service<HttpRequest<B>> for HttpService<S>
where
    S: ThriftService,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    type Response = HttpResponse<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: HttpRequest<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.answer(request).await) })
    }
}

/// Serves `service` over HTTP/1.1 on `listener` until `shutdown` completes, then lets the
/// requests in flight finish (at most `grace`) and returns.
///
/// A failed connection is logged and closed; after an accept error the loop backs off and
/// accepts again, as the [`Server`](crate::Server) does.
///
/// ```
/// use std::time::Duration;
/// use thrift_net::http::{serve_http, HttpClient, HttpService};
/// use thrift_net::{service, ClientConfig};
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
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let url = format!("http://{}/", listener.local_addr()?);
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// let server = tokio::spawn(serve_http(listener, HttpService::new(echo::Server::new(Parrot)), async {
///     let _ = stopped.await;
/// }, Duration::from_secs(1)));
/// let client = echo::Client::new(HttpClient::new(url.parse()?, ClientConfig::default()));
/// assert_eq!(client.echo("over http".into()).await?, "over http");
/// let _ = stop.send(());
/// server.await?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// # }
/// ```
pub async fn serve_http<S: ThriftService>(
    listener: TcpListener,
    service: HttpService<S>,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    serve_connections(listener, service, shutdown, grace).await
}

/// Serves `service` over HTTPS (HTTP/1.1 on TLS) on `listener`, as [`serve_http`] does over
/// plain HTTP: what Apache's `THttpServer` does with a certificate. `tls` is a
/// [`TlsAcceptor`](crate::tls::TlsAcceptor) or an `Arc<rustls::ServerConfig>`
/// ([`tls::server_config`](crate::tls::server_config) builds one from PEM files, with client
/// certificates required when given a CA).
///
/// Each handshake runs in its connection's task and must finish within
/// [`TLS_HANDSHAKE_TIMEOUT`]: a peer that stalls it holds one task and one socket for that
/// long, and delays nothing else.
///
/// ```no_run
/// use std::time::Duration;
/// use thrift_net::http::{serve_https, HttpService};
/// use thrift_net::{service, tls};
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
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8443").await?;
/// let tls = tls::server_config("server.crt", "server.key", None)?;
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// # let _ = stop;
/// let shutdown = async {
///     let _ = stopped.await;
/// };
/// serve_https(listener, tls, HttpService::new(echo::Server::new(Parrot)), shutdown, Duration::from_secs(5)).await;
/// # Ok(()) }
/// # fn main() {}
/// ```
#[cfg(feature = "https")]
pub async fn serve_https<S: ThriftService>(
    listener: TcpListener,
    tls: impl Into<crate::tls::TlsAcceptor>,
    service: HttpService<S>,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let listener = TlsListener { tcp: listener, acceptor: tls.into() };
    serve_connections(listener, service, shutdown, grace).await
}

/// How long `serve_https` waits for a connection's TLS handshake, as the
/// [`Server`](crate::Server) does by default.
pub const TLS_HANDSHAKE_TIMEOUT: Duration = crate::server::listener::TLS_HANDSHAKE_TIMEOUT;

/// The accept loop of [`serve_http`] and `serve_https`: each accepted connection is opened
/// (nothing to do, or the TLS handshake: the [`Listener`]'s, as the [`Server`](crate::Server)
/// opens its own) in its own task, then served, watched for the graceful shutdown.
async fn serve_connections<S: ThriftService, L: Listener>(
    listener: L,
    service: HttpService<S>,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) if crate::accept::is_peers(&e) => {
                    debug!(%e, "accept");
                    continue;
                }
                Err(e) => {
                    warn!(%e, "accept failed; backing off");
                    tokio::time::sleep(crate::accept::ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        let opening = tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, listener.open(stream));
        let peer = L::peer(&peer);
        let service = TowerToHyperService::new(service.clone().with_peer(peer.clone()));
        let (builder, watcher) = (builder.clone(), graceful.watcher());
        tokio::spawn(async move {
            let io = match opening.await {
                Ok(Ok(io)) => io,
                // Only a TLS listener's opening can fail or take time: a plain one is ready.
                Ok(Err(e)) => return debug!(%peer, %e, "opening the connection (TLS handshake) failed"),
                Err(_) => return debug!(%peer, "opening the connection (TLS handshake) timed out"),
            };
            // Replies are whole messages written at once: TCP_NODELAY, as the Server sets it.
            io.configure(None);
            if let Err(e) = watcher.watch(builder.serve_connection(TokioIo::new(io), service)).await {
                debug!(%peer, %e, "HTTP connection failed");
            }
        });
    }
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
}
