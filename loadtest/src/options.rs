//! The command line: what to run, against what, for how long, on which wire.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use serde::Serialize;
use thrift_net::{ClientConfig, ProtocolKind, Transport};

/// How the load generator's callers share connections: the seed's client experiments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// A new connection for every call, closed after it (the seed's `new TSocket` per
    /// request: 1.5K QPS and "Address already in use").
    PerCall,
    /// One connection behind a mutex: one call at a time, whatever the concurrency (the
    /// naive way to share a client that is not thread safe).
    Mutex,
    /// The connection pool in exclusive mode: a connection per call in flight, returned
    /// after the reply (the seed's commons-pool2 client pool: 6K QPS).
    Pool,
    /// One pipelined connection carrying every call at once, replies matched by sequence id.
    Pipelined,
}

impl Strategy {
    /// Every strategy, in the order of the seed's story.
    pub const ALL: [Strategy; 4] = [Strategy::PerCall, Strategy::Mutex, Strategy::Pool, Strategy::Pipelined];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::PerCall => "per-call",
            Strategy::Mutex => "mutex",
            Strategy::Pool => "pool",
            Strategy::Pipelined => "pipelined",
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The size of each request and reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Payload {
    /// The seed's request: name "Jonny", message "good night" (about 60 bytes a message).
    Small,
    /// A 1 KB message in the request and so in the reply, as the `*Large` benchmarks of
    /// the seed comparing Thrift with gRPC.
    Large,
}

impl Payload {
    /// Bytes of the request's `message` field.
    pub fn message_len(self) -> usize {
        match self {
            Payload::Small => "good night".len(),
            Payload::Large => 1024,
        }
    }

    /// The request's `message` field.
    pub fn message(self) -> String {
        "good night ".chars().cycle().take(self.message_len()).collect()
    }
}

/// The wire's transport, as a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TransportFlag {
    /// A 4-byte length before each message.
    Framed,
    /// Messages back to back.
    Buffered,
    /// Apache's THeader frames (what fbthrift and Apache's header clients speak).
    Header,
    /// CloudWeGo's TTHeader frames (volo-thrift's and Kitex's default).
    Ttheader,
    /// Thrift over HTTP POST, one bare message per request (Apache's `THttpServer` and
    /// `THttpClient`); HTTPS with `--tls`. HTTP/1.1 has no pipelining, so the pipelined
    /// strategy is not run; the pool is hyper's pool of kept-alive connections.
    Http,
}

impl TransportFlag {
    /// Whether calls go over HTTP.
    pub fn is_http(self) -> bool {
        self == TransportFlag::Http
    }
}

/// The wire's protocol, as a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProtocolFlag {
    /// TBinaryProtocol (strict).
    Binary,
    /// TCompactProtocol.
    Compact,
}

/// Runs the seed's client strategies side by side against HelloService and reports QPS,
/// latency percentiles, errors by kind and connections opened for each.
///
/// Without `--addr`, starts the HelloService server in this process on 127.0.0.1 (on its
/// own runtime, so client and server tasks don't share worker threads).
#[derive(Clone, Debug, Parser)]
#[command(name = "thrift-loadtest", version, about, long_about = None)]
pub struct Options {
    /// Load an existing HelloService server instead of starting one here.
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "serve")]
    pub addr: Option<String>,

    /// Only serve HelloService on this address (for another process to load), until killed
    /// or for `--serve-for`.
    #[arg(long, value_name = "HOST:PORT")]
    pub serve: Option<SocketAddr>,

    /// With `--serve`: stop serving after this long.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "serve")]
    pub serve_for: Option<Duration>,

    /// The strategies to run, in order.
    #[arg(short, long, value_delimiter = ',', default_values_t = Strategy::ALL.to_vec())]
    pub strategies: Vec<Strategy>,

    /// Concurrent callers: each level is run for each strategy.
    #[arg(short, long, value_delimiter = ',', default_values_t = vec![16, 64])]
    pub concurrency: Vec<usize>,

    /// How long each strategy × concurrency cell runs, warm-up included (`5s`, `500ms`).
    #[arg(short, long, value_name = "DURATION", value_parser = parse_duration, default_value = "5s")]
    pub duration: Duration,

    /// The start of each cell that is run but not measured (connections opened, caches and
    /// branch predictors warm).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "1s")]
    pub warmup: Duration,

    /// Request and reply size.
    #[arg(short, long, value_enum, default_value_t = Payload::Small)]
    pub payload: Payload,

    /// Transport.
    #[arg(short, long, value_enum, default_value_t = TransportFlag::Framed)]
    pub transport: TransportFlag,

    /// Protocol.
    #[arg(long, value_enum, default_value_t = ProtocolFlag::Binary)]
    pub protocol: ProtocolFlag,

    /// Over TLS (rustls): the in-process server presents a certificate made for the run,
    /// which every connection (the pool's included) verifies.
    #[arg(long, conflicts_with_all = ["addr", "serve"])]
    pub tls: bool,

    /// The pool's `max_total` (connections at once); by default, the concurrency.
    #[arg(long, value_name = "N")]
    pub pool_size: Option<usize>,

    /// Connections the per-call strategy may open in one cell; when reached, the cell ends
    /// early (its QPS counts the time it ran), so the ephemeral ports and the TIME_WAIT
    /// table stay within reason.
    #[arg(long, value_name = "N", default_value_t = 25_000)]
    pub max_connections: u64,

    /// A call waiting longer than this fails with a timeout.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "5s")]
    pub call_timeout: Duration,

    /// Worker threads of the client runtime (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub client_threads: Option<usize>,

    /// Worker threads of the in-process server's runtime (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub server_threads: Option<usize>,

    /// Print the results as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,

    /// Also draw the results as a bar chart (SVG) to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,

    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

impl Options {
    /// The options as parsed from `args` (the first being the program name).
    ///
    /// # Errors
    /// Clap's error for unknown or malformed flags (its `exit()` prints it).
    pub fn try_parse_args<I, T>(args: I) -> Result<Options, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        Options::try_parse_from(args)
    }

    /// The client connection settings these flags ask for.
    pub fn client_config(&self) -> ClientConfig {
        let transport = match self.transport {
            TransportFlag::Framed => Transport::Framed,
            // Each HTTP body is one bare message.
            TransportFlag::Buffered | TransportFlag::Http => Transport::Buffered,
            TransportFlag::Header => Transport::Header,
            TransportFlag::Ttheader => Transport::TTHeader,
        };
        let protocol = match self.protocol {
            ProtocolFlag::Binary => ProtocolKind::Binary,
            ProtocolFlag::Compact => ProtocolKind::Compact,
        };
        ClientConfig::new(transport, protocol).with_call_timeout(self.call_timeout)
    }

    /// Checks what clap cannot: a warm-up shorter than the cell, nonzero concurrency, a
    /// chart format we can draw.
    ///
    /// # Errors
    /// A sentence saying which flag is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.warmup >= self.duration {
            return Err(format!(
                "--warmup ({:?}) must be shorter than --duration ({:?}), which includes it",
                self.warmup, self.duration
            ));
        }
        if self.concurrency.iter().any(|&c| c == 0 || c > 100_000) {
            return Err("--concurrency levels must be between 1 and 100000".into());
        }
        if self.strategies.is_empty() || self.concurrency.is_empty() {
            return Err("nothing to run: give at least one strategy and one concurrency level".into());
        }
        if self.pool_size == Some(0) {
            return Err("--pool-size must be at least 1".into());
        }
        if let Some(chart) = &self.chart {
            let svg = chart.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
            if !svg {
                return Err(format!("--chart {}: only SVG charts are drawn; name the file *.svg", chart.display()));
            }
        }
        Ok(())
    }
}

/// `5s`, `500ms`, `2m`, `1.5` (seconds).
///
/// # Errors
/// A message naming the accepted forms.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (number, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let value: f64 = number.trim().parse().map_err(|_| format!("`{s}` is not a duration (try 5s, 500ms, 2m)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (use ms, s or m)")),
    };
    if !seconds.is_finite() || !(0.0..=86_400.0).contains(&seconds) {
        return Err(format!("`{s}` is out of range (0 to 24 hours)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_in_every_unit_and_refuse_nonsense() {
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("5h").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn defaults_run_every_strategy_at_two_levels_well_within_a_minute() {
        let options = Options::try_parse_args(["thrift-loadtest"]).unwrap();
        assert_eq!(options.strategies, Strategy::ALL.to_vec());
        assert_eq!(options.concurrency, vec![16, 64]);
        let total = options.duration * (options.strategies.len() * options.concurrency.len()) as u32;
        assert!(total <= Duration::from_secs(45), "{total:?}");
        options.validate().unwrap();
    }

    #[test]
    fn flags_are_checked() {
        let parse =
            |args: &[&str]| Options::try_parse_args(std::iter::once("thrift-loadtest").chain(args.iter().copied()));
        let o =
            parse(&["-s", "pipelined,mutex", "-c", "1,256", "--payload", "large", "--protocol", "compact"]).unwrap();
        assert_eq!(o.strategies, vec![Strategy::Pipelined, Strategy::Mutex]);
        assert_eq!(o.concurrency, vec![1, 256]);
        assert_eq!(o.client_config().protocol, ProtocolKind::Compact);
        assert!(parse(&["-s", "carrier-pigeon"]).is_err());
        assert!(parse(&["--addr", "127.0.0.1:1", "--serve", "127.0.0.1:2"]).is_err());
        assert!(parse(&["--tls"]).unwrap().tls);
        assert!(parse(&["--tls", "--addr", "127.0.0.1:1"]).is_err(), "TLS needs the run's own server");
        assert!(parse(&["--warmup", "5s", "--duration", "5s"]).unwrap().validate().is_err());
        assert!(parse(&["-c", "0"]).unwrap().validate().is_err());
        assert!(parse(&["--chart", "out.png"]).unwrap().validate().is_err());
        assert_eq!(Payload::Large.message().len(), 1024);
        assert_eq!(Payload::Small.message(), "good night");
    }
}
