//! Apache's zlib transport (`TZlibTransport`): each direction of a connection is one zlib
//! stream (the zlib header, then deflate), and every flush ends with a `Z_SYNC_FLUSH`, so
//! the peer can inflate everything written so far without waiting for the stream to end.
//! The stream is never finished: like Apache's, it ends with the connection.
//!
//! Inflating is bounded: a read inflates into the caller's buffer only, never ahead of it,
//! from a fixed-size buffer of compressed bytes. The inflated bytes go to the framed or
//! buffered codec above, whose frame and message limits decide how much of them is held, so
//! a few kilobytes that would inflate to gigabytes (a zlib bomb) cost what those limits allow
//! and no more.

#![cfg_attr(not(any(feature = "server", feature = "client")), allow(dead_code))] // the halves serve the server and the client

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Compressed bytes read from the peer at a time.
const INPUT: usize = 8 * 1024;
/// Compressed bytes held for the peer before [`ZlibStream::poll_write`] first writes them
/// out: the write side's bound.
const OUTPUT: usize = 64 * 1024;

/// A byte stream carried in Apache's zlib transport: what is written is deflated into one
/// zlib stream with a sync flush at each [`flush`](tokio::io::AsyncWriteExt::flush), what
/// is read is inflated from the peer's.
///
/// It goes under the framed or buffered transport, as Apache's `TZlibTransport` does (its
/// cross test's `--transport=zlib` is buffered messages inside zlib): a [`Server`] does it
/// with [`ServerBuilder::zlib`], a [`Client`] with [`ClientConfig::zlib`], or
/// [`Client::new`] over a `ZlibStream` of any stream.
///
/// [`Server`]: crate::Server
/// [`ServerBuilder::zlib`]: crate::ServerBuilder::zlib
/// [`Client`]: crate::Client
/// [`ClientConfig::zlib`]: crate::ClientConfig::zlib
/// [`Client::new`]: crate::Client::new
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// use thrift_net::codec::ZlibStream;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (a, b) = tokio::io::duplex(1024);
/// let (mut a, mut b) = (ZlibStream::new(a), ZlibStream::new(b));
/// a.write_all(&[7u8; 10_000]).await?;
/// a.flush().await?; // a sync flush: b can read all of it now
/// let mut got = vec![0u8; 10_000];
/// b.read_exact(&mut got).await?;
/// assert_eq!(got, [7u8; 10_000]);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct ZlibStream<S> {
    inner: S,
    inflate: Inflater,
    deflate: Deflater,
}

impl<S> ZlibStream<S> {
    /// `inner` carried in zlib, compressing at zlib's default level (6).
    pub fn new(inner: S) -> Self {
        Self::with_level(inner, Compression::default().level())
    }

    /// `inner` carried in zlib, compressing at `level` (0, none, to 9, best; more is 9).
    /// Apache's Python client uses 9.
    pub fn with_level(inner: S, level: u32) -> Self {
        ZlibStream { inner, inflate: Inflater::new(), deflate: Deflater::new(level) }
    }

    /// The stream underneath.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The stream underneath, with any bytes read from it but not yet inflated, or
    /// written but not yet sent, dropped.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for ZlibStream<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.inflate.poll_read(Pin::new(&mut this.inner), cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ZlibStream<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.deflate.poll_write(Pin::new(&mut this.inner), cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.deflate.poll_flush(Pin::new(&mut this.inner), cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.deflate.poll_shutdown(Pin::new(&mut this.inner), cx)
    }
}

/// The reading half of a [`ZlibStream`], over a reading half of its own.
#[derive(Debug)]
pub(crate) struct ZlibReader<R> {
    inner: R,
    inflate: Inflater,
}

impl<R> ZlibReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        ZlibReader { inner, inflate: Inflater::new() }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for ZlibReader<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.inflate.poll_read(Pin::new(&mut this.inner), cx, buf)
    }
}

/// The writing half of a [`ZlibStream`], over a writing half of its own.
#[derive(Debug)]
pub(crate) struct ZlibWriter<W> {
    inner: W,
    deflate: Deflater,
}

impl<W> ZlibWriter<W> {
    pub(crate) fn new(inner: W) -> Self {
        ZlibWriter { inner, deflate: Deflater::new(Compression::default().level()) }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for ZlibWriter<W> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.deflate.poll_write(Pin::new(&mut this.inner), cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.deflate.poll_flush(Pin::new(&mut this.inner), cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.deflate.poll_shutdown(Pin::new(&mut this.inner), cx)
    }
}

/// The inflating side: compressed bytes read but not yet inflated, and zlib's state (its
/// 32 KiB window).
struct Inflater {
    z: Decompress,
    input: Box<[u8]>,
    /// `input[start..end]` is read and not yet inflated.
    start: usize,
    end: usize,
    /// The peer finished its zlib stream (Apache's never do): what follows is not read.
    finished: bool,
}

impl std::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflater")
            .field("total_in", &self.z.total_in())
            .field("total_out", &self.z.total_out())
            .finish()
    }
}

impl Inflater {
    fn new() -> Self {
        Inflater {
            z: Decompress::new(true),
            input: vec![0; INPUT].into_boxed_slice(),
            start: 0,
            end: 0,
            finished: false,
        }
    }

    /// Inflates into `buf` (at most what it has room for), reading compressed bytes from
    /// `inner` only when what is held yields nothing.
    fn poll_read<R: AsyncRead>(
        &mut self,
        mut inner: Pin<&mut R>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        loop {
            if self.finished {
                return Poll::Ready(Ok(()));
            }
            let (in_before, out_before) = (self.z.total_in(), self.z.total_out());
            let status = self
                .z
                .decompress(&self.input[self.start..self.end], buf.initialize_unfilled(), FlushDecompress::None)
                .map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("zlib transport: the peer's stream does not inflate ({e}) after {in_before} compressed bytes"),
                    )
                })?;
            let consumed = (self.z.total_in() - in_before) as usize;
            let produced = (self.z.total_out() - out_before) as usize;
            self.start += consumed;
            buf.advance(produced);
            if status == Status::StreamEnd {
                self.finished = true;
            }
            if produced > 0 {
                return Poll::Ready(Ok(()));
            }
            if consumed > 0 {
                continue;
            }
            // Nothing more comes of what is held: read more behind it.
            if self.start == self.end {
                (self.start, self.end) = (0, 0);
            } else if self.end == self.input.len() {
                self.input.copy_within(self.start..self.end, 0);
                (self.start, self.end) = (0, self.end - self.start);
            }
            let mut room = ReadBuf::new(&mut self.input[self.end..]);
            ready!(inner.as_mut().poll_read(cx, &mut room))?;
            let n = room.filled().len();
            if n == 0 {
                // The connection ended; a message it cut short is the codec's to report.
                return Poll::Ready(Ok(()));
            }
            self.end += n;
        }
    }
}

/// The deflating side: zlib's state and the compressed bytes not yet written out.
struct Deflater {
    z: Compress,
    out: Vec<u8>,
    /// `out[..sent]` is written out.
    sent: usize,
    /// Bytes were deflated since the last sync flush.
    dirty: bool,
}

impl std::fmt::Debug for Deflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deflater")
            .field("total_in", &self.z.total_in())
            .field("total_out", &self.z.total_out())
            .finish()
    }
}

impl Deflater {
    fn new(level: u32) -> Self {
        Deflater { z: Compress::new(Compression::new(level.min(9)), true), out: Vec::new(), sent: 0, dirty: false }
    }

    /// Deflates `data` (all of it) into `out`, then for [`FlushCompress::Sync`] until zlib
    /// has nothing more to give.
    fn deflate(&mut self, data: &[u8], flush: FlushCompress) -> io::Result<()> {
        let mut taken = 0;
        loop {
            if self.out.capacity() - self.out.len() < 1024 {
                self.out.reserve(8 * 1024);
            }
            let before = self.z.total_in();
            self.z
                .compress_vec(&data[taken..], &mut self.out, flush)
                .map_err(|e| io::Error::other(format!("zlib transport: deflate failed: {e}")))?;
            taken += (self.z.total_in() - before) as usize;
            // Done once all is taken and zlib left room unused (it had no more to write).
            if taken == data.len() && self.out.len() < self.out.capacity() {
                return Ok(());
            }
        }
    }

    /// Writes out the compressed bytes held.
    fn poll_send<W: AsyncWrite>(&mut self, mut inner: Pin<&mut W>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.out.len() {
            let n = ready!(inner.as_mut().poll_write(cx, &self.out[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        self.out.clear();
        self.sent = 0;
        Poll::Ready(Ok(()))
    }

    fn poll_write<W: AsyncWrite>(
        &mut self,
        inner: Pin<&mut W>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.out.len() >= OUTPUT {
            ready!(self.poll_send(inner, cx))?;
        }
        // At most a chunk at a time, so what is held stays near OUTPUT.
        let data = &data[..data.len().min(OUTPUT)];
        self.deflate(data, FlushCompress::None)?;
        self.dirty |= !data.is_empty();
        Poll::Ready(Ok(data.len()))
    }

    fn poll_flush<W: AsyncWrite>(&mut self, mut inner: Pin<&mut W>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.dirty {
            self.deflate(&[], FlushCompress::Sync)?;
            self.dirty = false;
        }
        ready!(self.poll_send(inner.as_mut(), cx))?;
        inner.poll_flush(cx)
    }

    /// Flushes and closes the stream underneath. The zlib stream is not finished: Apache's
    /// peers never finish theirs, and read up to the connection's end.
    fn poll_shutdown<W: AsyncWrite>(&mut self, mut inner: Pin<&mut W>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_flush(inner.as_mut(), cx))?;
        inner.poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn what_python_zlib_writes_inflates() {
        // zlib.compressobj(9) of b"hello" then flush(Z_SYNC_FLUSH), as TZlibTransport.flush.
        let wire = [0x78, 0xda, 0xca, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00, 0x00, 0xff, 0xff];
        runtime().block_on(async {
            let mut z = ZlibStream::new(&wire[..]);
            let mut got = Vec::new();
            z.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"hello");
        });
    }

    #[test]
    fn each_flush_is_a_sync_flush() {
        runtime().block_on(async {
            let mut z = ZlibStream::new(Vec::new());
            z.write_all(b"hello").await.unwrap();
            z.flush().await.unwrap();
            let wire = z.into_inner();
            assert_eq!(&wire[..2], &[0x78, 0x9c], "a zlib header");
            assert_eq!(&wire[wire.len() - 4..], &[0x00, 0x00, 0xff, 0xff], "ends with a sync flush's empty block");
            // A flush with nothing new written sends nothing more.
            let mut z = ZlibStream::new(wire);
            z.flush().await.unwrap();
            let again = z.into_inner();
            let mut plain = Vec::new();
            ZlibStream::new(&again[..]).read_to_end(&mut plain).await.unwrap();
            assert_eq!(plain, b"hello");
        });
    }

    #[test]
    fn garbage_is_an_invalid_data_error() {
        runtime().block_on(async {
            let mut z = ZlibStream::new(&b"\x00\x00\x00\x05hello"[..]);
            let e = z.read(&mut [0u8; 64]).await.unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
            assert!(e.to_string().contains("zlib transport"), "{e}");
        });
    }

    #[test]
    fn a_read_inflates_no_more_than_asked() {
        // 64 MiB of zeros in about 64 KiB.
        let mut bomb = ZlibStream::new(Vec::new());
        runtime().block_on(async {
            let zeros = vec![0u8; 1 << 20];
            for _ in 0..64 {
                bomb.write_all(&zeros).await.unwrap();
            }
            bomb.flush().await.unwrap();
            let wire = bomb.into_inner();
            assert!(wire.len() < 100_000, "{}", wire.len());
            let mut z = ZlibStream::new(&wire[..]);
            let mut buf = [0u8; 100];
            assert_eq!(z.read(&mut buf).await.unwrap(), 100);
            assert!(z.inflate.z.total_out() == 100, "inflated only what was asked for");
            assert!(z.inflate.z.total_in() <= INPUT as u64);
        });
    }
}
