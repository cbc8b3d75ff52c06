//! Bounds applied while decoding, with Apache Thrift's defaults.

/// Bounds and checks applied while decoding untrusted input.
///
/// The defaults are Apache Thrift's (`TConfiguration`): recursion depth 64, frame
/// 16,384,000 bytes, message 100 MiB, and both binary envelopes read (Apache's
/// `TBinaryProtocol` has `strict_read` off). Strings and containers are additionally bounded
/// by the bytes actually remaining in the message, and lists whose elements can nest reserve
/// their declared counts up front only within 16 bytes per input byte over the whole decode
/// (then 32 KiB each, growing as elements arrive): what declared lengths make a decode
/// reserve is a bounded multiple of the input that backs them.
///
/// ```
/// use thrift_core::Limits;
/// let tight = Limits { max_depth: 16, ..Limits::default() };
/// assert_eq!(tight.max_frame_len, 16_384_000);
/// assert!(!tight.strict_binary_envelope);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of structs and containers.
    pub max_depth: u16,
    /// Largest string or binary value, in bytes.
    pub max_string_len: usize,
    /// Most elements (or map entries) in one container.
    pub max_container_len: usize,
    /// Largest frame a framed transport accepts, in bytes.
    pub max_frame_len: usize,
    /// Largest message, in bytes, on any transport.
    pub max_message_len: usize,
    /// Whether the binary protocol refuses old-style (non-strict) envelopes, which begin with
    /// the method name's length instead of the `0x8001` version word, with
    /// [`ErrorKind::NonStrictEnvelope`](crate::ErrorKind::NonStrictEnvelope). Off by default,
    /// as Apache's `strict_read`; `thrift-net`'s server turns it on. Apache's clients write
    /// strict envelopes unless told otherwise (`strict_write`, on by default).
    ///
    /// ```
    /// use thrift_core::{Binary, ErrorKind, Limits, Protocol, Reader};
    /// // An old-style call to "ping", seqid 1.
    /// let old = [0, 0, 0, 4, b'p', b'i', b'n', b'g', 1, 0, 0, 0, 1];
    /// assert!(Binary::read_message_begin(&mut Reader::new(&old)).is_ok());
    /// let strict = Limits { strict_binary_envelope: true, ..Limits::default() };
    /// let err = Binary::read_message_begin(&mut Reader::new(&old).with_limits(strict)).unwrap_err();
    /// assert_eq!((err.kind(), err.offset()), (&ErrorKind::NonStrictEnvelope, Some(0)));
    /// ```
    pub strict_binary_envelope: bool,
}

impl Limits {
    /// Apache Thrift's default recursion limit.
    pub const DEFAULT_MAX_DEPTH: u16 = 64;
    /// Apache Thrift's default maximum frame size.
    pub const DEFAULT_MAX_FRAME_LEN: usize = 16_384_000;
    /// Apache Thrift's default maximum message size (100 MiB).
    pub const DEFAULT_MAX_MESSAGE_LEN: usize = 100 * 1024 * 1024;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_string_len: Self::DEFAULT_MAX_MESSAGE_LEN,
            max_container_len: Self::DEFAULT_MAX_MESSAGE_LEN,
            max_frame_len: Self::DEFAULT_MAX_FRAME_LEN,
            max_message_len: Self::DEFAULT_MAX_MESSAGE_LEN,
            strict_binary_envelope: false,
        }
    }
}
