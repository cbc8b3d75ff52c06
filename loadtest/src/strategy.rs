//! The strategies as callers: each makes one `sayHello` call its own way.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use thrift_net::http::HttpClient;
use thrift_net::pool::Mode;
use thrift_net::tls::ClientTls;
use thrift_net::{CallError, Client, ClientConfig, Pool, PoolConfig, TransportError, TransportErrorKind};
use tokio::sync::Mutex;

use crate::drive::Failure;
use crate::hello::{hello_service, is_answer, HelloRequest};
use crate::options::Strategy;

/// The failure of a call, labelled by what went wrong.
pub fn call_failure(e: CallError) -> Failure {
    let kind = match e {
        CallError::Transport(e, ..) => transport_label("io", &e),
        CallError::Timeout(..) => "timeout".into(),
        CallError::Unavailable(..) => "unavailable".into(),
        CallError::Application(e, ..) => format!("application: {:?}", e.kind),
        CallError::Protocol(..) => "undecodable reply".into(),
        // Non-exhaustive: a variant added later still gets a label.
        other => format!("other: {other}"),
    };
    Failure { kind, connecting: false }
}

/// The failure to open a connection, labelled by the socket error.
pub fn connect_failure(e: &TransportError) -> Failure {
    Failure { kind: transport_label("connect", e), connecting: true }
}

/// `PREFIX: IoErrorKind` for socket errors (the seed's "Address already in use" shows up
/// as `connect: AddrInUse` or `connect: AddrNotAvailable`), the phase otherwise.
fn transport_label(prefix: &str, e: &TransportError) -> String {
    match e.kind() {
        TransportErrorKind::Io(io) => format!("{prefix}: {:?}", io.kind()),
        _ => format!("{prefix}: {}", e.phase()),
    }
}

/// Opens one connection, over TLS when `tls` is given.
async fn connect(addr: SocketAddr, config: ClientConfig, tls: Option<&ClientTls>) -> Result<Client, Failure> {
    let connected = match tls {
        Some(tls) => Client::connect_tls(addr, &tls.server_name, tls.config.clone(), config).await,
        None => Client::connect(addr, config).await,
    };
    connected.map_err(|e| connect_failure(&e))
}

/// Where HTTP calls go: `http://127.0.0.1:PORT/`, or `https://localhost:PORT/` with the
/// run's TLS (the certificate's name).
fn http_url(addr: SocketAddr, tls: Option<&ClientTls>) -> Result<http::Uri, Failure> {
    let url = match tls {
        Some(tls) => format!("https://{}:{}/", tls.server_name, addr.port()),
        None => format!("http://{addr}/"),
    };
    url.parse().map_err(|e| Failure::new(format!("not a URL: {url}: {e}")))
}

/// An HTTP channel to `url`, over TLS when `tls` is given.
fn http_client(url: &http::Uri, config: ClientConfig, tls: Option<&ClientTls>) -> HttpClient {
    match tls {
        Some(tls) => HttpClient::with_tls(url.clone(), config, tls.config.clone()),
        None => HttpClient::new(url.clone(), config),
    }
}

/// One strategy, set up against one server: it makes calls and counts connections.
pub enum Caller {
    /// A connection per call.
    PerCall {
        /// The server.
        addr: SocketAddr,
        /// Each connection's settings.
        config: ClientConfig,
        /// TLS for each connection.
        tls: Option<ClientTls>,
        /// Connections opened so far.
        opened: AtomicU64,
    },
    /// One connection, one call at a time.
    Mutex(Mutex<hello_service::Client<Client>>),
    /// A pool of connections, one call on each at a time.
    Pool(hello_service::Client<Pool>),
    /// One connection, every call at once.
    Pipelined(hello_service::Client<Client>),
    /// Over HTTP, a channel (and so a connection) per call.
    HttpPerCall {
        /// Where calls go.
        url: http::Uri,
        /// Each channel's settings.
        config: ClientConfig,
        /// TLS for each connection.
        tls: Option<ClientTls>,
        /// Connections opened so far.
        opened: AtomicU64,
    },
    /// Over HTTP, one channel, one call at a time: one kept-alive connection.
    HttpMutex(Mutex<hello_service::Client<HttpClient>>),
    /// Over HTTP, one channel shared by every caller: hyper's pool of kept-alive connections.
    HttpPool(hello_service::Client<HttpClient>),
}

impl Caller {
    /// Sets `strategy` up against `addr`: opens the shared connection of the strategies
    /// that have one.
    ///
    /// # Errors
    /// When that connection cannot be opened.
    pub async fn new(
        strategy: Strategy,
        addr: SocketAddr,
        config: ClientConfig,
        tls: Option<ClientTls>,
        concurrency: usize,
        pool_size: Option<usize>,
        http: bool,
    ) -> Result<Caller, Failure> {
        if http {
            let url = http_url(addr, tls.as_ref())?;
            return Ok(match strategy {
                Strategy::PerCall => Caller::HttpPerCall { url, config, tls, opened: AtomicU64::new(0) },
                Strategy::Mutex => {
                    Caller::HttpMutex(Mutex::new(hello_service::Client::new(http_client(&url, config, tls.as_ref()))))
                }
                Strategy::Pool => Caller::HttpPool(hello_service::Client::new(http_client(&url, config, tls.as_ref()))),
                Strategy::Pipelined => return Err(Failure::new("HTTP/1.1 has no pipelining")),
            });
        }
        Ok(match strategy {
            Strategy::PerCall => Caller::PerCall { addr, config, tls, opened: AtomicU64::new(0) },
            Strategy::Mutex => {
                let client = connect(addr, config, tls.as_ref()).await?;
                Caller::Mutex(Mutex::new(hello_service::Client::new(client)))
            }
            Strategy::Pool => {
                // As many connections as callers by default, as the seed's pool had room
                // for every request thread; opened by the first calls, in the warm-up.
                let max_total = pool_size.unwrap_or(concurrency).max(1);
                let call_timeout = config.call_timeout.unwrap_or(ClientConfig::DEFAULT_CALL_TIMEOUT);
                let pool_config = PoolConfig::default()
                    .with_client(config)
                    .with_mode(Mode::Exclusive)
                    .with_max_total(max_total)
                    .with_wait_timeout(call_timeout)
                    .with_tls(tls);
                Caller::Pool(hello_service::Client::new(Pool::new([addr], pool_config)))
            }
            Strategy::Pipelined => {
                let client = connect(addr, config, tls.as_ref()).await?;
                Caller::Pipelined(hello_service::Client::new(client))
            }
        })
    }

    /// Makes one call of `req` and checks the reply answers it.
    ///
    /// # Errors
    /// The call's failure, labelled.
    pub async fn call(&self, req: &HelloRequest) -> Result<(), Failure> {
        let reply = match self {
            Caller::PerCall { addr, config, tls, opened } => {
                let client = connect(*addr, config.clone(), tls.as_ref()).await?;
                opened.fetch_add(1, Relaxed);
                let reply = hello_service::Client::new(client.clone()).say_hello(req.clone()).await;
                // Closed by us, as the seed's `transport.close()`: this side keeps the
                // TIME_WAIT, which is what exhausts a busy client's ports.
                client.close();
                reply
            }
            Caller::Mutex(client) => {
                let client = client.lock().await;
                client.say_hello(req.clone()).await
            }
            Caller::Pool(client) => client.say_hello(req.clone()).await,
            Caller::Pipelined(client) => client.say_hello(req.clone()).await,
            Caller::HttpPerCall { url, config, tls, opened } => {
                let client = hello_service::Client::new(http_client(url, config.clone(), tls.as_ref()));
                opened.fetch_add(1, Relaxed);
                // The channel, its pool and its connection go with `client`, after the call.
                client.say_hello(req.clone()).await
            }
            Caller::HttpMutex(client) => client.lock().await.say_hello(req.clone()).await,
            Caller::HttpPool(client) => client.say_hello(req.clone()).await,
        };
        let reply = reply.map_err(call_failure)?;
        if is_answer(req, &reply) {
            Ok(())
        } else {
            Err(Failure::new("wrong reply"))
        }
    }

    /// Closes the strategy's connections.
    pub fn close(&self) {
        match self {
            // HTTP channels close their connections when dropped.
            Caller::PerCall { .. } | Caller::HttpPerCall { .. } | Caller::HttpMutex(_) | Caller::HttpPool(_) => {}
            Caller::Mutex(client) => {
                if let Ok(client) = client.try_lock() {
                    client.channel().close();
                }
            }
            // The pool closes its connections when dropped.
            Caller::Pool(_) => {}
            Caller::Pipelined(client) => client.channel().close(),
        }
    }

    /// Connections this strategy opened so far (0 for hyper's pool, which does not tell).
    pub fn connections_opened(&self) -> u64 {
        match self {
            Caller::PerCall { opened, .. } | Caller::HttpPerCall { opened, .. } => opened.load(Relaxed),
            // hyper's pool does not say how many it opened.
            Caller::HttpPool(_) => 0,
            Caller::HttpMutex(_) => 1,
            Caller::Pool(client) => client.channel().metrics().iter().map(|m| m.created).sum(),
            Caller::Mutex(_) | Caller::Pipelined(_) => 1,
        }
    }
}
