//! The strategies as callers: each makes one `sayHello` call its own way.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

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
    ) -> Result<Caller, Failure> {
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
            Caller::PerCall { .. } => {}
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

    /// Connections this strategy opened so far.
    pub fn connections_opened(&self) -> u64 {
        match self {
            Caller::PerCall { opened, .. } => opened.load(Relaxed),
            Caller::Pool(client) => client.channel().metrics().iter().map(|m| m.created).sum(),
            Caller::Mutex(_) | Caller::Pipelined(_) => 1,
        }
    }
}
