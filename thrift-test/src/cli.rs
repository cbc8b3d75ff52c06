//! The command line of Apache's cross test: `--port`, `--protocol`, `--transport`,
//! `--domain-socket`, `--ssl` and `--zlib` (and `--host` for the client), each as
//! `--flag=value` or `--flag value`; and what the two binaries do with it.

use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use std::future::Future;

use thrift_net::http::{serve_http, serve_https, HttpClient, HttpService};
use thrift_net::{tls, Channel, Client, ClientConfig, Multiplexed, ProtocolKind, Server, ThriftService, Transport};
use tokio::signal::unix::{signal, SignalKind};

use crate::checks::{self, UNKNOWN};
use crate::{second_service, thrift_test, TestHandler};

/// How long the server lets requests in flight finish once told to stop: a cross-test
/// runner expects it gone promptly.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// How long the client waits for each reply, and for its connection.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// `--protocol`: a protocol, plain or multiplexed. Apache's names for its Python library's
/// accelerated protocols (`accel`, `accelc`, `multia`, `multiac`) are taken as the
/// protocols they put on the wire, as Apache's cross-test runner passes them to every peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// The binary protocol.
    #[value(alias = "accel")]
    Binary,
    /// The compact protocol.
    #[value(alias = "accelc")]
    Compact,
    /// The binary protocol, multiplexed: `ThriftTest` and `SecondService` on one port.
    #[value(alias = "multia")]
    Multi,
    /// The compact protocol, multiplexed.
    #[value(alias = "multiac")]
    Multic,
    /// Apache's header protocol: THeader frames around binary messages.
    Header,
    /// The header protocol, multiplexed.
    Multih,
    /// Apache's JSON protocol (`TJSONProtocol`).
    Json,
    /// The JSON protocol, multiplexed.
    Multij,
}

impl ProtocolArg {
    /// The wire protocol.
    pub fn kind(self) -> ProtocolKind {
        match self {
            ProtocolArg::Binary | ProtocolArg::Multi | ProtocolArg::Header | ProtocolArg::Multih => {
                ProtocolKind::Binary
            }
            ProtocolArg::Compact | ProtocolArg::Multic => ProtocolKind::Compact,
            ProtocolArg::Json | ProtocolArg::Multij => ProtocolKind::Json,
        }
    }

    /// Whether calls carry a `Service:` prefix.
    pub fn multiplexed(self) -> bool {
        matches!(self, ProtocolArg::Multi | ProtocolArg::Multic | ProtocolArg::Multih | ProtocolArg::Multij)
    }

    /// Whether messages travel in THeader frames.
    pub fn header(self) -> bool {
        matches!(self, ProtocolArg::Header | ProtocolArg::Multih)
    }

    /// The flag's spelling.
    pub fn name(self) -> &'static str {
        match self {
            ProtocolArg::Binary => "binary",
            ProtocolArg::Compact => "compact",
            ProtocolArg::Multi => "multi",
            ProtocolArg::Multic => "multic",
            ProtocolArg::Header => "header",
            ProtocolArg::Multih => "multih",
            ProtocolArg::Json => "json",
            ProtocolArg::Multij => "multij",
        }
    }
}

/// `--transport`: how messages are delimited on the socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TransportArg {
    /// Messages back to back.
    Buffered,
    /// Each message after its 4-byte length.
    Framed,
    /// Each call an HTTP `POST` of one bare message (Apache's `THttpServer`/`THttpClient`).
    Http,
    /// Messages back to back inside Apache's zlib transport (Apache's cross-test runner
    /// passes `--transport=zlib --zlib`).
    Zlib,
}

impl TransportArg {
    /// The transport with `protocol`: Apache's header protocol puts its THeader frames
    /// straight on the socket over the buffered transport, and each inside a frame over the
    /// framed one. Over HTTP, what each body holds: a bare message, or one THeader frame for
    /// the header protocol. `zlib` is buffered, inside zlib.
    pub fn transport(self, protocol: ProtocolArg) -> Transport {
        match (self, protocol.header()) {
            (TransportArg::Buffered | TransportArg::Zlib | TransportArg::Http, false) => Transport::Buffered,
            (TransportArg::Framed, false) => Transport::Framed,
            (TransportArg::Buffered | TransportArg::Zlib | TransportArg::Http, true) => Transport::Header,
            (TransportArg::Framed, true) => Transport::FramedHeader,
        }
    }

    /// The flag's spelling.
    pub fn name(self) -> &'static str {
        match self {
            TransportArg::Buffered => "buffered",
            TransportArg::Framed => "framed",
            TransportArg::Http => "http",
            TransportArg::Zlib => "zlib",
        }
    }

    /// Whether it is carried in zlib.
    pub fn zlib(self) -> bool {
        self == TransportArg::Zlib
    }
}

/// Where Apache's test keys are unless `--keys-dir` says: Apache's cross-test runner runs
/// each program from its language's directory under `test/`, beside `test/keys`.
pub const DEFAULT_KEYS_DIR: &str = "../keys";

/// What `--ssl`, `--zlib` and `--keys-dir` add to the connection, on either side.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Layers {
    /// TLS: the server presents `server.crt` with `server.key`, the client trusts `CA.pem`,
    /// all from `--keys-dir` (Apache's `test/keys`).
    #[arg(long)]
    pub ssl: bool,
    /// Apache's zlib transport under the framed or buffered one (the same as
    /// `--transport=zlib` for buffered).
    #[arg(long)]
    pub zlib: bool,
    /// The directory of Apache's test keys and certificates.
    #[arg(long, default_value = DEFAULT_KEYS_DIR)]
    pub keys_dir: PathBuf,
}

impl Layers {
    /// How the two flags and the transport show in output: `framed`, `framed+zlib+ssl`.
    fn describe(&self, transport: TransportArg) -> String {
        let mut shown = transport.name().to_owned();
        if self.zlib && !transport.zlib() {
            shown.push_str("+zlib");
        }
        if self.ssl {
            shown.push_str("+ssl");
        }
        shown
    }

    /// Whether the connection is carried in zlib.
    fn zlib(&self, transport: TransportArg) -> bool {
        self.zlib || transport.zlib()
    }

    fn key(&self, name: &str) -> PathBuf {
        self.keys_dir.join(name)
    }
}

/// `thrift-test-server`'s arguments.
#[derive(Clone, Debug, Parser)]
#[command(name = "thrift-test-server", about = "Apache Thrift's ThriftTest server, on 127.0.0.1")]
pub struct ServerArgs {
    /// The port to listen on; 0 picks a free one (the first line of output names it).
    #[arg(long, default_value_t = 9090)]
    pub port: u16,
    /// The protocol.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Binary)]
    pub protocol: ProtocolArg,
    /// The transport.
    #[arg(long, value_enum, default_value_t = TransportArg::Buffered)]
    pub transport: TransportArg,
    /// Listen on this Unix domain socket instead of a port.
    #[arg(long)]
    pub domain_socket: Option<std::path::PathBuf>,
    /// TLS and zlib.
    #[command(flatten)]
    pub layers: Layers,
}

/// `thrift-test-client`'s arguments.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "thrift-test-client",
    about = "Apache Thrift's ThriftTest client: calls every method, checks each result"
)]
pub struct ClientArgs {
    /// The server's host.
    #[arg(long, default_value = "localhost")]
    pub host: String,
    /// The server's port.
    #[arg(long, default_value_t = 9090)]
    pub port: u16,
    /// The protocol.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Binary)]
    pub protocol: ProtocolArg,
    /// The transport.
    #[arg(long, value_enum, default_value_t = TransportArg::Buffered)]
    pub transport: TransportArg,
    /// Connect to this Unix domain socket instead of `--host` and `--port`.
    #[arg(long)]
    pub domain_socket: Option<std::path::PathBuf>,
    /// TLS and zlib.
    #[command(flatten)]
    pub layers: Layers,
    /// How many times to run the whole suite, each on a new connection.
    #[arg(long, short = 'n', default_value_t = 1)]
    pub testloops: u32,
}

/// Runs the server until SIGINT, SIGTERM or SIGHUP.
///
/// Each connection's transport and protocol are told from its first bytes, so the server
/// answers whichever the client speaks; `--protocol multi|multic|multih` adds `SecondService`
/// beside `ThriftTest` (which still takes calls without a service prefix).
///
/// # Errors
/// When the port cannot be bound or the signals cannot be watched.
pub async fn serve(args: ServerArgs) -> io::Result<()> {
    // Watched before binding, so that a signal right after "listening" is not missed.
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    let stopped = async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
            _ = hangup.recv() => {}
        }
    };
    if args.protocol.multiplexed() {
        let router = Multiplexed::builder()
            .with(thrift_test::thrift_test::Server::new(TestHandler))
            .with(second_service::Server::new(TestHandler))
            .default(thrift_test::thrift_test::Server::new(TestHandler))
            .build();
        serve_until(router, &args, stopped).await
    } else {
        serve_until(thrift_test::thrift_test::Server::new(TestHandler), &args, stopped).await
    }
}

/// Serves `service` where `args` say, says where on stdout, and shuts down once `stopped`.
async fn serve_until<S: ThriftService>(
    service: S,
    args: &ServerArgs,
    stopped: impl Future<Output = ()>,
) -> io::Result<()> {
    let announce = |listening: &dyn std::fmt::Display| -> io::Result<()> {
        let mut out = io::stdout().lock();
        writeln!(out, "listening on {listening} ({}, {})", args.protocol.name(), args.layers.describe(args.transport))?;
        out.flush()
    };
    let layers = &args.layers;
    if args.transport == TransportArg::Http {
        if layers.zlib {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "--transport http takes no --zlib"));
        }
        if args.domain_socket.is_some() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "--transport http takes a port, not a socket"));
        }
        let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port))).await?;
        announce(&listener.local_addr()?)?;
        let service = HttpService::new(service);
        if layers.ssl {
            serve_https(listener, server_tls(layers)?, service, stopped, SHUTDOWN_GRACE).await;
        } else {
            serve_http(listener, service, stopped, SHUTDOWN_GRACE).await;
        }
        return Ok(());
    }
    let server = Server::builder().zlib(layers.zlib(args.transport)).build();
    match &args.domain_socket {
        Some(path) if layers.ssl => {
            Err(io::Error::new(io::ErrorKind::InvalidInput, format!("--ssl over --domain-socket {}", path.display())))
        }
        Some(path) => {
            let handle = server.bind_unix(path, service).await?;
            announce(&path.display())?;
            stopped.await;
            handle.shutdown(SHUTDOWN_GRACE).await;
            let _ = std::fs::remove_file(path);
            Ok(())
        }
        None => {
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port));
            let handle = if layers.ssl {
                server.bind_tls(addr, server_tls(layers)?, service).await?
            } else {
                server.bind(addr, service).await?
            };
            announce(&handle.local_addr())?;
            stopped.await;
            handle.shutdown(SHUTDOWN_GRACE).await;
            Ok(())
        }
    }
}

/// The server's TLS under `--ssl`: `server.crt` with `server.key`.
fn server_tls(layers: &Layers) -> io::Result<Arc<tls::rustls::ServerConfig>> {
    tls::server_config(layers.key("server.crt"), layers.key("server.key"), None)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
}

/// The client's TLS under `--ssl`: trusting `CA.pem`.
fn client_tls(layers: &Layers) -> Result<Arc<tls::rustls::ClientConfig>, String> {
    tls::client_config(layers.key("CA.pem"), None).map_err(|e| e.to_string())
}

/// Connects as `args` say: TCP or a Unix domain socket, TLS when `--ssl` (trusting
/// `CA.pem`, for the name `--host`).
async fn connect(args: &ClientArgs, config: ClientConfig) -> Result<Client, String> {
    match &args.domain_socket {
        Some(path) if args.layers.ssl => Err(format!("--ssl over --domain-socket {}", path.display())),
        Some(path) => Client::connect_unix(path, config).await.map_err(|e| e.to_string()),
        None if args.layers.ssl => {
            let tls = client_tls(&args.layers)?;
            Client::connect_tls((args.host.as_str(), args.port), &args.host, tls, config)
                .await
                .map_err(|e| e.to_string())
        }
        None => Client::connect((args.host.as_str(), args.port), config).await.map_err(|e| e.to_string()),
    }
}

/// Connects, runs every check (`--testloops` times, each on a new connection), prints one
/// line per check, and returns Apache's exit-code bitmask.
pub async fn run_client(args: ClientArgs) -> u8 {
    let config = ClientConfig::default()
        .with_transport(args.transport.transport(args.protocol))
        .with_protocol(args.protocol.kind())
        .with_multiplexed(args.protocol.multiplexed())
        .with_call_timeout(CALL_TIMEOUT)
        .with_connect_timeout(CALL_TIMEOUT)
        .with_zlib(args.layers.zlib(args.transport));
    let mut code = 0;
    for round in 1..=args.testloops.max(1) {
        println!(
            "Test #{round}, connect {}:{} ({}, {})",
            args.host,
            args.port,
            args.protocol.name(),
            args.layers.describe(args.transport)
        );
        let outcome = if args.transport == TransportArg::Http {
            let scheme = if args.layers.ssl { "https" } else { "http" };
            let url = format!("{scheme}://{}:{}/", args.host, args.port);
            let Ok(uri) = url.parse() else {
                println!("not a URL: {url}");
                return code | UNKNOWN;
            };
            let client = if args.layers.ssl {
                match client_tls(&args.layers) {
                    Ok(tls) => HttpClient::with_tls(uri, config.clone(), tls),
                    Err(e) => {
                        println!("TLS setup failed: {e}");
                        return code | UNKNOWN;
                    }
                }
            } else {
                HttpClient::new(uri, config.clone())
            };
            run_checks(client.clone(), client, args.protocol).await
        } else {
            let client = match connect(&args, config.clone()).await {
                Ok(client) => client,
                Err(e) => {
                    println!("connect failed: {e}");
                    return code | UNKNOWN;
                }
            };
            let outcome = run_checks(client.clone(), client.clone(), args.protocol).await;
            client.close();
            outcome
        };
        for line in &outcome.lines {
            println!("{line}");
        }
        code |= outcome.code;
    }
    println!("{}", if code == 0 { "All tests passed." } else { "Some tests FAILED." });
    code
}

/// Every check over `test`'s channel, and `SecondService`'s over `second` when multiplexed.
async fn run_checks<C: Channel, D: Channel>(test: C, second: D, protocol: ProtocolArg) -> checks::Outcome {
    let test = thrift_test::thrift_test::Client::new(test);
    let second = second_service::Client::new(second);
    checks::run(&test, protocol.multiplexed().then_some(&second), CALL_TIMEOUT).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_take_both_spellings() {
        let args =
            ServerArgs::try_parse_from(["s", "--port=9191", "--protocol", "multic", "--transport=framed"]).unwrap();
        assert_eq!((args.port, args.protocol, args.transport), (9191, ProtocolArg::Multic, TransportArg::Framed));
        let args =
            ClientArgs::try_parse_from(["c", "--host", "127.0.0.1", "--port", "1", "--protocol=compact"]).unwrap();
        assert_eq!((args.host.as_str(), args.port, args.protocol), ("127.0.0.1", 1, ProtocolArg::Compact));
        assert_eq!(args.transport, TransportArg::Buffered);
    }

    #[test]
    fn defaults_are_apaches() {
        let args = ServerArgs::try_parse_from(["s"]).unwrap();
        assert_eq!((args.port, args.protocol, args.transport), (9090, ProtocolArg::Binary, TransportArg::Buffered));
        let args = ClientArgs::try_parse_from(["c"]).unwrap();
        assert_eq!((args.host.as_str(), args.port), ("localhost", 9090));
    }

    #[test]
    fn ssl_and_zlib_as_apaches_runner_passes_them() {
        let args = ServerArgs::try_parse_from(["s", "--transport=zlib", "--zlib", "--ssl", "--port=1"]).unwrap();
        assert!(args.layers.ssl && args.layers.zlib && args.transport.zlib());
        assert_eq!(args.transport.transport(args.protocol), Transport::Buffered);
        assert_eq!(args.layers.keys_dir, PathBuf::from(DEFAULT_KEYS_DIR));
        let args = ClientArgs::try_parse_from(["c", "--transport", "framed", "--zlib", "--keys-dir", "/k"]).unwrap();
        assert_eq!(args.layers.describe(args.transport), "framed+zlib");
        assert_eq!(args.layers.key("CA.pem"), PathBuf::from("/k/CA.pem"));
        let args = ClientArgs::try_parse_from(["c", "--transport=zlib", "--zlib", "--ssl"]).unwrap();
        assert_eq!(args.layers.describe(args.transport), "zlib+ssl");
    }

    #[test]
    fn json_and_multij_speak_the_json_protocol() {
        let args = ServerArgs::try_parse_from(["s", "--protocol", "json"]).unwrap();
        assert_eq!((args.protocol.kind(), args.protocol.multiplexed()), (ProtocolKind::Json, false));
        let args = ClientArgs::try_parse_from(["c", "--protocol=multij", "--transport=framed"]).unwrap();
        assert_eq!((args.protocol.kind(), args.protocol.multiplexed()), (ProtocolKind::Json, true));
        assert_eq!(args.protocol.name(), "multij");
    }

    #[test]
    fn unknown_values_are_rejected() {
        assert!(ServerArgs::try_parse_from(["s", "--protocol", "simplejson"]).is_err());
        assert!(ServerArgs::try_parse_from(["s", "--protocol", "multih"]).is_ok());
        assert!(ServerArgs::try_parse_from(["s", "--transport=zmq"]).is_err());
        assert!(ClientArgs::try_parse_from(["c", "--port", "99999"]).is_err());
    }
}
