//! How much room the connections' buffers get: a message written on its own, its exact size
//! at once; a read buffer, a chunk at a time.

use bytes::BytesMut;

/// Room made in a read buffer before a read when less than [`MIN_READ`] is free.
#[cfg(any(feature = "server", feature = "client"))]
const READ_CHUNK: usize = 8 * 1024;
#[cfg(any(feature = "server", feature = "client"))]
const MIN_READ: usize = 1024;

/// Makes room in `dst` for a message of `len` bytes. An empty buffer, as a message encoded on
/// its own starts with, is allocated at that size at once: `reserve` would take `BytesMut`'s
/// and `Vec`'s growth paths to the same allocation, about 70 instructions more per reply.
#[inline]
pub(crate) fn for_message(dst: &mut BytesMut, len: usize) {
    if dst.capacity() == 0 {
        *dst = BytesMut::with_capacity(len);
    } else {
        dst.reserve(len);
    }
}

/// Makes room in a connection's read buffer for the next read, when little is left.
#[cfg(any(feature = "server", feature = "client"))]
#[inline]
pub(crate) fn for_read(buf: &mut BytesMut) {
    if buf.capacity() - buf.len() < MIN_READ {
        buf.reserve(READ_CHUNK);
    }
}
