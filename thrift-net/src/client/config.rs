//! How a [`Client`](super::Client) talks: transport, protocol, multiplexing, timeouts, limits.

use std::time::Duration;

use thrift_core::Limits;

use crate::setters::setters;
use crate::wire::{ProtocolKind, Transport};

/// A client connection's settings: start from [`ClientConfig::default`] or
/// [`ClientConfig::new`] and chain the `with_` setters (the struct is `non_exhaustive`, so
/// settings added later break no one; its fields stay public to read and assign).
///
/// ```
/// use std::time::Duration;
/// use thrift_net::{ClientConfig, ProtocolKind, Transport};
///
/// let config = ClientConfig::new(Transport::Buffered, ProtocolKind::Compact)
///     .with_call_timeout(Duration::from_millis(500))
///     .with_tcp_keepalive(None);
/// assert_eq!(config.call_timeout, Some(Duration::from_millis(500)));
/// assert!(!config.multiplexed);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientConfig {
    /// Framed (a length before each message) or buffered. Default: framed.
    pub transport: Transport,
    /// The protocol calls are written in and replies read in. Default: binary.
    /// [`ProtocolKind::BinaryNonStrict`] reads replies the same way as `Binary` and writes
    /// the strict envelope, which every Apache server reads.
    pub protocol: ProtocolKind,
    /// Name calls `Service:method`, for a server using Apache's multiplexed protocol.
    /// Default: plain method names.
    pub multiplexed: bool,
    /// How long a call may wait for its reply (and a oneway message for its write) before it
    /// fails with [`CallError::Timeout`](crate::CallError::Timeout). `None` waits forever.
    /// Default: 30 seconds.
    pub call_timeout: Option<Duration>,
    /// How long [`Client::connect`](super::Client::connect) may take. `None` waits as long as
    /// the system does. Default: 10 seconds.
    pub connect_timeout: Option<Duration>,
    /// TCP keepalive on the connection: how long it may be idle before the kernel starts
    /// probing the server (then every 10 s, three probes), so a server that vanished
    /// without closing (its host crashed, the network went down) fails the calls waiting on
    /// it instead of leaving them to their timeouts, and an idle pooled connection to it is
    /// found dead. `None` turns it off. Default: 60 seconds.
    pub tcp_keepalive: Option<Duration>,
    /// Speak Apache's zlib transport: the connection's bytes each way are one zlib stream
    /// (see [`ZlibStream`](crate::codec::ZlibStream)), the framed or buffered messages inside it.
    /// Applies to every way of making a [`Client`](super::Client), [`Client::new`](super::Client::new)
    /// included (so don't also wrap its stream in a `ZlibStream`). Replies are inflated only
    /// as far as the frame or message limit allows. Default: off.
    #[cfg(feature = "zlib")]
    pub zlib: bool,
    /// Compress each call with THeader's zlib transform (transform 1: the payload of each
    /// frame deflated, the frame's headers not), which the server's reply uses too (ours and
    /// Apache's answer in kind). For [`Transport::Header`] and [`Transport::FramedHeader`]:
    /// TTHeader has no transforms, so calls on other transports fail to encode with an
    /// error that says so. Unlike [`zlib`](Self::zlib), the frames stay readable to
    /// proxies. Default: off.
    #[cfg(feature = "zlib")]
    pub header_zlib: bool,
    /// Limits for reading replies; the frame (framed) or message (buffered) limit also
    /// bounds the calls sent. Default: Apache's.
    pub limits: Limits,
}

impl ClientConfig {
    /// The call timeout unless set otherwise.
    pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);
    /// The connect timeout unless set otherwise.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// The idle time before keepalive probes unless set otherwise.
    pub const DEFAULT_TCP_KEEPALIVE: Duration = Duration::from_secs(60);

    /// The default settings with this transport and protocol.
    pub fn new(transport: Transport, protocol: ProtocolKind) -> Self {
        ClientConfig { transport, protocol, ..ClientConfig::default() }
    }
}

setters!(ClientConfig {
    with_transport => transport: [Transport],
    with_protocol => protocol: [ProtocolKind],
    with_multiplexed => multiplexed: [bool],
    with_call_timeout => call_timeout: [Option<Duration>],
    with_connect_timeout => connect_timeout: [Option<Duration>],
    with_tcp_keepalive => tcp_keepalive: [Option<Duration>],
    #[cfg(feature = "zlib")]
    with_zlib => zlib: [bool],
    #[cfg(feature = "zlib")]
    with_header_zlib => header_zlib: [bool],
    with_limits => limits: [Limits],
});

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            transport: Transport::Framed,
            protocol: ProtocolKind::Binary,
            multiplexed: false,
            call_timeout: Some(Self::DEFAULT_CALL_TIMEOUT),
            connect_timeout: Some(Self::DEFAULT_CONNECT_TIMEOUT),
            tcp_keepalive: Some(Self::DEFAULT_TCP_KEEPALIVE),
            #[cfg(feature = "zlib")]
            zlib: false,
            #[cfg(feature = "zlib")]
            header_zlib: false,
            limits: Limits::default(),
        }
    }
}
