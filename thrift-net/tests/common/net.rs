//! Running a codec over a real TCP connection on 127.0.0.1, in memory, bounded in time.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_core::Stream;
use thrift_net::TransportError;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Decoder, FramedRead};

/// Every test network exchange ends within this, or the test fails: no hangs.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// What a reader got from a stream: the messages, then the error that ended it, if any.
#[derive(Debug)]
pub struct Received {
    pub messages: Vec<Bytes>,
    pub error: Option<TransportError>,
}

/// How the writer ends the connection after its last chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Shut down the write half: the reader sees EOF.
    Close,
    /// Keep the connection open: the reader must stop on its own (an error).
    KeepOpen,
}

/// Runs `f` on a fresh single-threaded runtime.
pub fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(f)
}

/// Sends `chunks` over a TCP connection on 127.0.0.1, one write each (with no Nagle delay
/// and a yield between them so they tend to arrive apart), and reads the other end with
/// `codec` in a `FramedRead` until the stream ends or errors. Panics past [`DEADLINE`].
pub fn over_tcp<C>(chunks: Vec<Vec<u8>>, end: End, codec: C) -> Received
where
    C: Decoder<Item = Bytes, Error = TransportError> + Unpin,
{
    block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local addr");
        let writer = tokio::spawn(async move {
            let mut s = TcpStream::connect(addr).await.expect("connect");
            s.set_nodelay(true).expect("nodelay");
            for chunk in chunks {
                // The reader may stop at an error and close: later writes may fail.
                if s.write_all(&chunk).await.is_err() {
                    return;
                }
                tokio::task::yield_now().await;
            }
            match end {
                End::Close => {
                    let _ = s.shutdown().await;
                }
                End::KeepOpen => tokio::time::sleep(DEADLINE).await,
            }
        });
        let (sock, _) = listener.accept().await.expect("accept");
        let read = read_all(FramedRead::new(sock, codec));
        let received = tokio::time::timeout(DEADLINE, read).await.expect("the reader hung");
        writer.abort();
        received
    })
}

/// Polls a stream of messages to its end or first error.
pub async fn read_all<S>(mut stream: S) -> Received
where
    S: Stream<Item = Result<Bytes, TransportError>> + Unpin,
{
    let mut messages = Vec::new();
    loop {
        match poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await {
            Some(Ok(m)) => messages.push(m),
            Some(Err(e)) => return Received { messages, error: Some(e) },
            None => return Received { messages, error: None },
        }
    }
}

/// Feeds `chunks` to `codec` in memory as a `FramedRead` would: decode after each chunk
/// until it wants more, `decode_eof` at the end.
pub fn in_memory<C>(chunks: &[&[u8]], codec: &mut C) -> Received
where
    C: Decoder<Item = Bytes, Error = TransportError>,
{
    let mut buf = BytesMut::new();
    let mut messages = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(m)) => messages.push(m),
                Ok(None) => break,
                Err(e) => return Received { messages, error: Some(e) },
            }
        }
    }
    loop {
        match codec.decode_eof(&mut buf) {
            Ok(Some(m)) => messages.push(m),
            Ok(None) => return Received { messages, error: None },
            Err(e) => return Received { messages, error: Some(e) },
        }
    }
}
