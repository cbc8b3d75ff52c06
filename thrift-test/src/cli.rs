//! The command line of Apache's cross test: `--port`, `--protocol`, `--transport` (and
//! `--host` for the client), each as `--flag=value` or `--flag value`.

use clap::{Parser, ValueEnum};
use thrift_net::ProtocolKind;

/// `--protocol`: a protocol, plain or multiplexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// The binary protocol.
    Binary,
    /// The compact protocol.
    Compact,
    /// The binary protocol, multiplexed: `ThriftTest` and `SecondService` on one port.
    Multi,
    /// The compact protocol, multiplexed.
    Multic,
}

impl ProtocolArg {
    /// The wire protocol.
    pub fn kind(self) -> ProtocolKind {
        match self {
            ProtocolArg::Binary | ProtocolArg::Multi => ProtocolKind::Binary,
            ProtocolArg::Compact | ProtocolArg::Multic => ProtocolKind::Compact,
        }
    }

    /// Whether calls carry a `Service:` prefix.
    pub fn multiplexed(self) -> bool {
        matches!(self, ProtocolArg::Multi | ProtocolArg::Multic)
    }

    /// The flag's spelling.
    pub fn name(self) -> &'static str {
        match self {
            ProtocolArg::Binary => "binary",
            ProtocolArg::Compact => "compact",
            ProtocolArg::Multi => "multi",
            ProtocolArg::Multic => "multic",
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
}

impl TransportArg {
    /// Whether messages carry a frame header.
    pub fn framed(self) -> bool {
        self == TransportArg::Framed
    }

    /// The flag's spelling.
    pub fn name(self) -> &'static str {
        match self {
            TransportArg::Buffered => "buffered",
            TransportArg::Framed => "framed",
        }
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
    /// How many times to run the whole suite, each on a new connection.
    #[arg(long, short = 'n', default_value_t = 1)]
    pub testloops: u32,
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
    fn unknown_values_are_rejected() {
        assert!(ServerArgs::try_parse_from(["s", "--protocol", "json"]).is_err());
        assert!(ServerArgs::try_parse_from(["s", "--transport=http"]).is_err());
        assert!(ClientArgs::try_parse_from(["c", "--port", "99999"]).is_err());
    }
}
