//! The client side: a [`Channel`](crate::Channel) that posts each call.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use http::{header, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::{Client, ResponseFuture};
use hyper_util::rt::TokioExecutor;
use thrift_core::{ApplicationException, ApplicationExceptionKind, MessageHeader, MessageType};
use tokio_util::codec::Decoder;

use super::CONTENT_TYPE;
use crate::channel::{Call, CallError, CallSite, Reply, ReplyFuture};
use crate::client::{call_framing, ClientConfig};
use crate::error::{Phase, TransportError, TransportErrorKind};
use crate::framing::Framing;
use crate::header::{Headers, ReplyCodec};
use crate::message::call_name;
use crate::server::Peer;

/// A [`Channel`](crate::Channel) over HTTP: each call a `POST` of one bare message to one URL, as Apache's
/// `THttpClient` sends them, on a pool of kept-alive HTTP/1.1 connections (hyper's). Cheap
/// to clone: clones share the pool.
///
/// Of the [`ClientConfig`], the protocol, `multiplexed`, the call and connect timeouts and
/// the limits apply, and the transport says what each body holds: one bare message, or, for
/// [`Transport::Header`](crate::Transport::Header) and `TTHeader`, one header frame (as
/// Apache's `THeaderProtocol` over `THttpClient` sends them; the reply's frame headers are
/// [`Reply::headers`]). A call that could not
/// be sent (no connection) fails with [`CallError::NotSent`]; an answer other than `200 OK`
/// with [`CallError::Transport`] naming the status and the start of the body.
///
/// ```no_run
/// use thrift_net::http::HttpClient;
/// use thrift_net::{ClientConfig, ProtocolKind, Transport};
///
/// let config = ClientConfig::new(Transport::Buffered, ProtocolKind::Compact);
/// let channel = HttpClient::new("http://127.0.0.1:8080/thrift".parse().unwrap(), config);
/// # let _ = channel;
/// ```
#[derive(Clone, Debug)]
pub struct HttpClient {
    connections: Connections,
    uri: Uri,
    /// The URL, as errors and replies name it.
    peer: Peer,
    config: ClientConfig,
    seqid: Arc<AtomicI32>,
}

/// hyper's pool of connections: plain TCP, or TLS on rustls.
#[derive(Clone, Debug)]
enum Connections {
    Plain(Client<HttpConnector, Full<Bytes>>),
    #[cfg(feature = "https")]
    Tls(Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>),
}

impl Connections {
    fn request(&self, request: Request<Full<Bytes>>) -> ResponseFuture {
        match self {
            Connections::Plain(client) => client.request(request),
            #[cfg(feature = "https")]
            Connections::Tls(client) => client.request(request),
        }
    }
}

fn connector(config: &ClientConfig) -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector.set_connect_timeout(config.connect_timeout);
    connector
}

impl HttpClient {
    /// A client posting to `uri` (`http://host:port/path`). An `https` URL needs
    /// [`HttpClient::with_tls`] (feature `https`): its calls fail with
    /// [`CallError::NotSent`] saying so.
    ///
    /// # Panics
    /// When a call is made outside a tokio runtime.
    pub fn new(uri: Uri, config: ClientConfig) -> Self {
        let client = Client::builder(TokioExecutor::new()).build(connector(&config));
        HttpClient::over(Connections::Plain(client), uri, config)
    }

    /// A client posting to `uri` over TLS (`https://host:port/path`; an `http` URL is
    /// posted to in the clear), trusting whom `tls` trusts: build it with
    /// [`tls::client_config`](crate::tls::client_config), or by hand. The server's name is
    /// the URL's host.
    ///
    /// ```no_run
    /// use thrift_net::http::HttpClient;
    /// use thrift_net::{tls, ClientConfig};
    ///
    /// let tls = tls::client_config("ca.pem", None)?;
    /// let channel = HttpClient::with_tls("https://localhost:8443/thrift".parse()?, ClientConfig::default(), tls);
    /// # let _ = channel;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Panics
    /// When a call is made outside a tokio runtime.
    #[cfg(feature = "https")]
    pub fn with_tls(uri: Uri, config: ClientConfig, tls: Arc<crate::tls::rustls::ClientConfig>) -> Self {
        let mut plain = connector(&config);
        // The TLS connector below takes `https` URLs; the TCP one must let them through.
        plain.enforce_http(false);
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(Arc::unwrap_or_clone(tls))
            .https_or_http()
            .enable_http1()
            .wrap_connector(plain);
        let client = Client::builder(TokioExecutor::new()).build(https);
        HttpClient::over(Connections::Tls(client), uri, config)
    }

    fn over(connections: Connections, uri: Uri, config: ClientConfig) -> Self {
        let peer = Peer::Http(uri.to_string().into());
        HttpClient { connections, uri, peer, config, seqid: Arc::new(AtomicI32::new(1)) }
    }

    /// Why a call cannot be sent at all: an `https` URL without TLS.
    fn refusal(&self) -> Option<CallError> {
        let plain = matches!(self.connections, Connections::Plain(_));
        let what = if cfg!(feature = "https") {
            "an https URL needs HttpClient::with_tls"
        } else {
            "an https URL needs thrift-net's `https` feature and HttpClient::with_tls"
        };
        (plain && self.uri.scheme() == Some(&http::uri::Scheme::HTTPS))
            .then(|| CallError::NotSent(self.error(what.into()), CallSite::default()))
    }

    /// The URL calls go to.
    pub fn uri(&self) -> &Uri {
        &self.uri
    }

    fn error(&self, what: String) -> TransportError {
        TransportError::new(Phase::Io, TransportErrorKind::Http(format!("POST {}: {what}", self.uri)))
    }

    /// Posts one message and answers the response body (`None` for a oneway's).
    async fn post(&self, call: &Call, kind: MessageType) -> Result<(i32, Bytes), CallError> {
        if let Some(refused) = self.refusal() {
            return Err(refused);
        }
        let seqid = self.seqid.fetch_add(1, Ordering::Relaxed);
        let name = call_name(self.config.multiplexed, call.service(), call.method());
        let header = MessageHeader { name: &name, kind, seqid };
        let framing = match self.config.transport.header_format() {
            Some(_) => call_framing(&self.config, seqid)?,
            None => Framing::Bare,
        };
        let body = call.encode(self.config.protocol, header, &framing, Headers::none(), &self.config.limits)?;
        let request = Request::post(self.uri.clone())
            .header(header::CONTENT_TYPE, CONTENT_TYPE)
            .header(header::ACCEPT, CONTENT_TYPE)
            .body(Full::new(body))
            .map_err(|e| CallError::NotSent(self.error(e.to_string()), CallSite::default()))?;
        let exchange = async {
            let response = self.connections.request(request).await.map_err(|e| {
                let error = self.error(with_causes(&e));
                if e.is_connect() {
                    CallError::NotSent(error, CallSite::default())
                } else {
                    CallError::from(error)
                }
            })?;
            let status = response.status();
            let body = Limited::new(response.into_body(), self.config.limits.max_message_len)
                .collect()
                .await
                .map_err(|e| self.error(format!("reading the response: {e}")))?
                .to_bytes();
            if status != StatusCode::OK {
                let start = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
                return Err(self.error(format!("HTTP {status}: {start}")).into());
            }
            Ok((seqid, body))
        };
        match self.config.call_timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .unwrap_or(Err(CallError::Timeout(Some(limit), CallSite::default()))),
            None => exchange.await,
        }
    }
}

impl HttpClient {
    /// The reply inside a response body that must be one whole header frame.
    fn unframe(&self, body: Bytes) -> Result<(Bytes, Headers), CallError> {
        let mut buf = BytesMut::from(body);
        let frame = ReplyCodec::new(self.config.protocol, &self.config.limits).decode_eof(&mut buf)?;
        match frame {
            Some(reply) if buf.is_empty() => Ok(reply),
            _ => Err(self.error("the response body is not one header frame".into()).into()),
        }
    }

    /// Posts `call` and reads the reply from the response (`None` for a oneway message,
    /// once answered): what the [`tower::Service`](tower_service::Service) implementation
    /// does, without the `&mut self`.
    ///
    /// # Errors
    /// As described on the type; a reply to another sequence id is `BAD_SEQUENCE_ID`.
    pub async fn send(&self, call: &Call) -> Result<Option<Reply>, CallError> {
        self.exchange(call).await.map_err(|e| e.located(&call.site().at(self.peer.clone())))
    }

    async fn exchange(&self, call: &Call) -> Result<Option<Reply>, CallError> {
        if call.is_oneway() {
            return self.post(call, MessageType::Oneway).await.map(|_| None);
        }
        let (seqid, body) = self.post(call, MessageType::Call).await?;
        let (message, headers) = match self.config.transport.header_format() {
            Some(_) => self.unframe(body)?,
            None => (body, Headers::new()),
        };
        let reply = Reply::parse(message, self.config.protocol, self.config.limits)
            .map_err(|e| CallError::Protocol(e, CallSite::default()))?
            .with_headers(headers);
        if reply.seqid() != seqid {
            let message = format!("a reply with sequence id {} to call {seqid}", reply.seqid());
            let exception = ApplicationException::new(ApplicationExceptionKind::BadSequenceId, message);
            return Err(CallError::Application(exception, CallSite::default()));
        }
        Ok(Some(reply.with_peer(self.peer.clone())))
    }
}

/// `error` and what caused it, down the chain: hyper's own Display says only "client error
/// (Connect)", and the cause (refused, a certificate not trusted) is below.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

impl tower_service::Service<Call> for HttpClient {
    type Response = Option<Reply>;
    type Error = CallError;
    type Future = ReplyFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let client = self.clone();
        Box::pin(async move { client.send(&call).await })
    }
}
