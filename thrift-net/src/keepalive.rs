//! TCP keepalive on a connected socket: the server's accepted connections and the client's.

use std::io;
use std::time::Duration;

use socket2::{SockRef, TcpKeepalive};
use tokio::net::TcpStream;

/// Between probes once they start.
const PROBE_INTERVAL: Duration = Duration::from_secs(10);
/// Unanswered probes before the kernel gives the connection up.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "freebsd"))]
const PROBES: u32 = 3;

/// Turns keepalive on with `idle` before the first probe (then every 10 s, three probes where
/// the system lets us say), or off for `None`.
pub(crate) fn set(stream: &TcpStream, idle: Option<Duration>) -> io::Result<()> {
    let socket = SockRef::from(stream);
    let Some(idle) = idle else { return socket.set_keepalive(false) };
    let keepalive = TcpKeepalive::new().with_time(idle);
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "freebsd", windows))]
    let keepalive = keepalive.with_interval(PROBE_INTERVAL);
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "freebsd"))]
    let keepalive = keepalive.with_retries(PROBES);
    socket.set_tcp_keepalive(&keepalive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sets_and_clears_keepalive_on_a_socket() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        set(&stream, Some(Duration::from_secs(42))).unwrap();
        let socket = SockRef::from(&stream);
        assert!(socket.keepalive().unwrap());
        #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "freebsd"))]
        {
            assert_eq!(socket.tcp_keepalive_time().unwrap(), Duration::from_secs(42));
            assert_eq!(socket.tcp_keepalive_interval().unwrap(), PROBE_INTERVAL);
            assert_eq!(socket.tcp_keepalive_retries().unwrap(), PROBES);
        }
        set(&stream, None).unwrap();
        assert!(!socket.keepalive().unwrap());
    }
}
