//! What a connection speaks: its [`Transport`] (how messages are delimited) and its
//! [`ProtocolKind`] (how they are written), together a [`Wire`].

use crate::header::Format;

/// How messages are delimited on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// Each message preceded by a 4-byte big-endian length.
    Framed,
    /// Messages back to back with no length.
    Buffered,
    /// Apache's THeader (`THeaderTransport`, magic `0x0FFF`): each message in a frame with
    /// its protocol, sequence id, [`Headers`](crate::Headers) and optional zlib compression.
    /// What fbthrift and Apache's header clients speak.
    Header,
    /// CloudWeGo's TTHeader (magic `0x1000`): THeader's layout with its own header
    /// encoding and integer-keyed headers. volo-thrift's and Kitex's header transport. A
    /// payload that is itself framed (volo-thrift's default, "TTHeader + framed") is read
    /// too, and answered the same way; the client writes the message bare, which both read.
    TTHeader,
    /// THeader frames each inside a framed-transport frame: what Apache's header protocol
    /// over its framed transport writes (`THeaderProtocol(TFramedTransport(socket))`, as its
    /// cross-test programs run `--protocol header --transport framed`).
    FramedHeader,
}

impl Transport {
    /// The header format of a header transport.
    pub(crate) fn header_format(self) -> Option<Format> {
        match self {
            Transport::Header | Transport::FramedHeader => Some(Format::THeader),
            Transport::TTHeader => Some(Format::TTHeader),
            Transport::Framed | Transport::Buffered => None,
        }
    }
}

/// The protocol messages are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolKind {
    /// The binary protocol with the strict (versioned) envelope.
    Binary,
    /// The binary protocol with the old non-strict envelope (name first).
    BinaryNonStrict,
    /// The compact protocol.
    Compact,
    /// Apache's `TJSONProtocol`: `[1,"name",type,seqid,{...}]`, transcoded to and from
    /// binary by `thrift_core::json`. Over the buffered, framed and HTTP transports (and
    /// zlib, TLS); not inside THeader/TTHeader frames, whose JSON protocol id (1) is not read.
    Json,
}

/// A transport and a protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wire {
    /// How messages are delimited.
    pub transport: Transport,
    /// How they are written.
    pub protocol: ProtocolKind,
}
