//! Bounds applied while decoding, with Apache Thrift's defaults.

/// Bounds applied while decoding untrusted input.
///
/// The defaults are Apache Thrift's (`TConfiguration`): recursion depth 64, frame
/// 16,384,000 bytes, message 100 MiB. Strings and containers are additionally bounded by
/// the bytes actually remaining in the message, so a declared length never causes an
/// allocation larger than the input that backs it.
///
/// ```
/// use thrift_core::Limits;
/// let strict = Limits { max_depth: 16, ..Limits::default() };
/// assert_eq!(strict.max_frame_len, 16_384_000);
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
        }
    }
}
