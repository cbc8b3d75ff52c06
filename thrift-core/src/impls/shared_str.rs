//! [`SharedStr`]: an owned, `'static` `string` that decodes from a `Bytes` without
//! allocating.
//!
//! # Why this type, and what it is built on
//!
//! `String` costs one allocation and one copy per decoded string; `&str` costs nothing but
//! ties the value to the input's lifetime. A `SharedStr` decoded from a `Bytes` input (with
//! [`from_bytes`](crate::from_bytes) or a [`Reader::from_bytes`]) never allocates: a string
//! of more than [`SharedStr::INLINE_CAPACITY`] bytes is a refcounted slice of the input, a
//! shorter one is copied into the value itself (cheaper than a refcount increment and
//! decrement, which cost two atomic operations per string). It is owned, `'static`,
//! `Send + Sync`, 32 bytes on 64-bit targets, and cloned without allocating. Decoded from a
//! plain `&[u8]`, a long string is copied once. Binaries already have such a type:
//! `bytes::Bytes`.
//!
//! Both representations come from small crates, so that this crate's `unsafe` stays the one
//! UTF-8 check in `utf8.rs` (a `str` over bytes without re-checking them takes `unsafe`):
//! - actix's [`bytestring::ByteString`], a UTF-8-checked `Bytes`; its only dependency is
//!   `bytes`, which this crate already has;
//! - [`arrayvec::ArrayString`], a fixed-capacity inline string, without dependencies.
//!
//! Considered and not taken:
//! - `faststr` (pilota's `FastStr`): inlines up to 30 bytes, but wraps every longer `Bytes`
//!   in a fresh `Arc` (one allocation per long string, even from a shared input), and adds
//!   `simdutf8` to the build.
//! - `arcstr`: an `Arc<str>` of its own, which cannot share the input buffer at all.
//! - `ByteString` alone: every string pays the two atomics, which made owned decode of the
//!   benchmark's medium message half as fast as borrowed decode; and its `From<&str>`
//!   copies, where a `SharedStr` from a `&'static str` points at it (no allocation).
//!
//! It is a type of ours, so the crate's optional traits (serde, proptest) are implemented
//! here whatever features the two crates were built with.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::str::Utf8Error;

use arrayvec::ArrayString;
use bytes::{BufMut, Bytes};
use bytestring::ByteString;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::{ErrorKind, Result};
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::utf8;
use crate::wire::TType;

/// The longest string kept inline: the most an `ArrayString` (a `u32` length and the bytes)
/// holds beside `Bytes`' non-null vtable pointer while the whole stays 32 bytes.
const INLINE: usize = 20;

#[derive(Clone)]
enum Repr {
    /// A slice of a `Bytes` (the input's, a `String`'s buffer, or a `&'static str`).
    Shared(ByteString),
    /// A short string, copied.
    Inline(ArrayString<INLINE>),
}

/// An immutable, owned UTF-8 string: decoded from a `Bytes` input it is a refcounted slice
/// of it, or (up to [`INLINE_CAPACITY`](SharedStr::INLINE_CAPACITY) bytes) held inline;
/// either way decoding allocates nothing, and neither does cloning.
///
/// ```
/// use thrift_core::{Binary, SharedStr};
/// use thrift_core::bytes::Bytes;
///
/// let long = "a string longer than the inline capacity";
/// let input = Bytes::from(thrift_core::to_vec::<Binary, _>(long));
/// let s: SharedStr = thrift_core::from_bytes::<Binary, _>(&input).unwrap();
/// assert_eq!(s, long);
/// assert_eq!(s.as_ptr(), input[4..].as_ptr()); // shares the input: no copy
///
/// let fixed = SharedStr::from("static"); // points at the literal: no allocation
/// assert_eq!(fixed.len(), 6);
/// ```
#[derive(Clone)]
pub struct SharedStr(Repr);

impl SharedStr {
    /// Strings of at most this many bytes are held inline, not shared, when decoded or made
    /// from a `String` or `Bytes`.
    pub const INLINE_CAPACITY: usize = INLINE;

    /// The empty string (no allocation).
    ///
    /// ```
    /// assert!(thrift_core::SharedStr::new().is_empty());
    /// ```
    #[inline]
    pub const fn new() -> SharedStr {
        SharedStr(Repr::Shared(ByteString::new()))
    }

    /// A string pointing at `s` (no allocation), usable in a `const`.
    ///
    /// ```
    /// use thrift_core::SharedStr;
    /// const GREETING: SharedStr = SharedStr::from_static("hi");
    /// assert_eq!(GREETING, "hi");
    /// ```
    #[inline]
    pub const fn from_static(s: &'static str) -> SharedStr {
        SharedStr(Repr::Shared(ByteString::from_static(s)))
    }

    /// `bytes` as a string, if they are UTF-8: sharing their buffer, or copied inline when
    /// short.
    ///
    /// ```
    /// use thrift_core::{bytes::Bytes, SharedStr};
    /// assert_eq!(SharedStr::from_utf8(Bytes::from_static(b"ok")).unwrap(), "ok");
    /// assert!(SharedStr::from_utf8(Bytes::from_static(&[0xff])).is_err());
    /// ```
    #[inline]
    pub fn from_utf8(bytes: Bytes) -> std::result::Result<SharedStr, Utf8Error> {
        if bytes.len() <= INLINE {
            return utf8::to_str(&bytes).map(SharedStr::inline_or_copy);
        }
        utf8::to_byte_string(bytes).map(|s| SharedStr(Repr::Shared(s)))
    }

    /// `s` inline when it fits, else copied into a new buffer.
    #[inline]
    fn inline_or_copy(s: &str) -> SharedStr {
        match ArrayString::from(s) {
            Ok(inline) => SharedStr(Repr::Inline(inline)),
            Err(_) => SharedStr(Repr::Shared(ByteString::from(s))),
        }
    }

    /// The string.
    ///
    /// ```
    /// assert_eq!(thrift_core::SharedStr::from("a").as_str(), "a");
    /// ```
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Shared(s) => s,
            Repr::Inline(s) => s,
        }
    }

    /// The string as `Bytes`: its buffer when shared, a copy when inline.
    ///
    /// ```
    /// assert_eq!(thrift_core::SharedStr::from("a").into_bytes(), "a");
    /// ```
    #[inline]
    pub fn into_bytes(self) -> Bytes {
        match self.0 {
            Repr::Shared(s) => s.into_bytes(),
            Repr::Inline(s) => Bytes::copy_from_slice(s.as_bytes()),
        }
    }
}

impl Default for SharedStr {
    #[inline]
    fn default() -> SharedStr {
        SharedStr::new()
    }
}

impl Deref for SharedStr {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SharedStr {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for SharedStr {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_str().as_bytes()
    }
}

impl Borrow<str> for SharedStr {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for SharedStr {
    #[inline]
    fn eq(&self, other: &SharedStr) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedStr {}

impl PartialOrd for SharedStr {
    #[inline]
    fn partial_cmp(&self, other: &SharedStr) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SharedStr {
    #[inline]
    fn cmp(&self, other: &SharedStr) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// As the `str`, so that a `HashMap<SharedStr, _>` can be looked up by `&str`.
impl Hash for SharedStr {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl From<&'static str> for SharedStr {
    /// Points at the literal: no allocation. (For a borrowed `&str` that is not `'static`,
    /// use `s.parse::<SharedStr>()`, which copies it.)
    #[inline]
    fn from(s: &'static str) -> SharedStr {
        SharedStr::from_static(s)
    }
}

impl From<String> for SharedStr {
    /// Takes the `String`'s buffer (a short string is copied inline and the buffer freed).
    #[inline]
    fn from(s: String) -> SharedStr {
        match ArrayString::from(&s) {
            Ok(inline) => SharedStr(Repr::Inline(inline)),
            Err(_) => SharedStr(Repr::Shared(ByteString::from(s))),
        }
    }
}

impl From<Box<str>> for SharedStr {
    #[inline]
    fn from(s: Box<str>) -> SharedStr {
        SharedStr::from(String::from(s))
    }
}

impl From<SharedStr> for String {
    #[inline]
    fn from(s: SharedStr) -> String {
        s.as_str().to_owned()
    }
}

impl From<SharedStr> for Bytes {
    #[inline]
    fn from(s: SharedStr) -> Bytes {
        s.into_bytes()
    }
}

/// A copy of the `str`.
impl std::str::FromStr for SharedStr {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> std::result::Result<SharedStr, Self::Err> {
        Ok(SharedStr::inline_or_copy(s))
    }
}

macro_rules! eq_str {
    ($($ty:ty),+) => {$(
        impl PartialEq<$ty> for SharedStr {
            #[inline]
            fn eq(&self, other: &$ty) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }

        impl PartialEq<SharedStr> for $ty {
            #[inline]
            fn eq(&self, other: &SharedStr) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )+};
}

eq_str!(str, &str, String);

impl ThriftType for SharedStr {
    const TTYPE: TType = TType::String;
}

impl Encode for SharedStr {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_binary(buf, self.as_str().as_bytes());
    }
    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        P::binary_len(self.len())
    }
}

impl<'de> Decode<'de> for SharedStr {
    /// A short string inline; a longer one a slice of the input when the reader was built
    /// over `Bytes`, otherwise a copy. The UTF-8 check runs once, on the input.
    #[inline(always)]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let slice = P::read_binary(r)?;
        if slice.len() <= INLINE {
            return match utf8::to_str(slice) {
                Ok(s) => Ok(SharedStr::inline_or_copy(s)),
                Err(e) => Err(invalid_utf8(r, slice, e)),
            };
        }
        decode_shared(r, slice)
    }
}

/// A string longer than the inline capacity: a slice of the input `Bytes`, or a copy.
#[inline(never)]
fn decode_shared(r: &Reader<'_>, slice: &[u8]) -> Result<SharedStr> {
    match utf8::to_byte_string(r.to_bytes(slice)) {
        Ok(s) => Ok(SharedStr(Repr::Shared(s))),
        Err(e) => Err(invalid_utf8(r, slice, e)),
    }
}

#[cold]
fn invalid_utf8(r: &Reader<'_>, slice: &[u8], e: Utf8Error) -> crate::Error {
    r.error_before(slice.len() - e.valid_up_to(), ErrorKind::InvalidUtf8)
}

#[cfg(feature = "idl")]
impl crate::idl::IdlType for SharedStr {
    fn idl_type(_: &mut crate::idl::Idl) -> String {
        "string".into()
    }
}

#[cfg(feature = "idl")]
impl crate::idl::IdlLiteral for SharedStr {
    fn idl_literal(&self) -> String {
        crate::idl::IdlLiteral::idl_literal(self.as_str())
    }
}

#[cfg(feature = "proptest")]
impl crate::testing::ThriftArbitrary for SharedStr {
    fn arbitrary_with(sizes: crate::testing::Sizes) -> proptest::strategy::BoxedStrategy<Self> {
        use proptest::strategy::Strategy;
        <String as crate::testing::ThriftArbitrary>::arbitrary_with(sizes).prop_map(SharedStr::from).boxed()
    }
}

/// As a string, like `String`.
#[cfg(feature = "serde")]
impl serde::Serialize for SharedStr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

/// From a string, like `String` (one copy, or none when the deserializer hands over a `String`).
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SharedStr {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        String::deserialize(deserializer).map(SharedStr::from)
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::SharedStr;
    use crate::{Binary, Compact, ErrorKind};

    #[test]
    fn roundtrips_in_both_protocols_sharing_the_input() {
        let (edge, over) = ("é".repeat(10), format!("{}z", "é".repeat(10)));
        for s in ["", "a", "héllo wörld", &edge, &over, &"x".repeat(1000)] {
            let value = SharedStr::from(s.to_owned());
            assert_eq!(crate::to_vec::<Binary, _>(&value), crate::to_vec::<Binary, _>(s));
            assert_eq!(crate::to_vec::<Compact, _>(&value), crate::to_vec::<Compact, _>(s));
            let input = Bytes::from(crate::to_vec::<Binary, _>(&value));
            let back: SharedStr = crate::from_bytes::<Binary, _>(&input).unwrap();
            assert_eq!(back, s);
            let shared = input.as_ptr_range().contains(&back.as_ptr());
            assert_eq!(shared, s.len() > SharedStr::INLINE_CAPACITY, "{s:?}");
            let input = Bytes::from(crate::to_vec::<Compact, _>(&value));
            let back: SharedStr = crate::from_bytes::<Compact, _>(&input).unwrap();
            assert_eq!(back, s);
            let copied: SharedStr = crate::from_slice::<Compact, _>(&input).unwrap();
            assert_eq!(copied, s);
            assert!(!input.as_ptr_range().contains(&copied.as_ptr()));
        }
    }

    #[test]
    fn invalid_utf8_is_an_error_at_the_bad_byte() {
        for bad in [&b"ok\xff"[..], &[b'x'; 40][..]] {
            let mut bad = bad.to_vec();
            bad.push(0xc3);
            let input = Bytes::from(crate::to_vec::<Binary, _>(&bad[..]));
            let err = crate::from_bytes::<Binary, SharedStr>(&input).unwrap_err();
            let string_err = crate::from_slice::<Binary, String>(&input).unwrap_err();
            assert_eq!(err.to_string(), string_err.to_string());
        }
        let input = Bytes::from(crate::to_vec::<Binary, _>(&b"ok\xff"[..]));
        let err = crate::from_bytes::<Binary, SharedStr>(&input).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::InvalidUtf8);
        let string_err = crate::from_slice::<Binary, String>(&input).unwrap_err();
        assert_eq!(err.to_string(), string_err.to_string());
        assert!(crate::from_slice::<Compact, SharedStr>(&[0x02, b'o', 0xc3]).is_err());
    }

    #[test]
    fn behaves_as_a_str() {
        use std::collections::{BTreeSet, HashSet};
        let a = SharedStr::from("b");
        let hashed: HashSet<SharedStr> = [a.clone()].into();
        assert!(hashed.contains("b"));
        let ordered: BTreeSet<SharedStr> = ["c".into(), "a".into(), a].into();
        assert_eq!(ordered.iter().map(SharedStr::as_str).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(format!("{} {:?}", SharedStr::from("x"), SharedStr::from("y")), "x \"y\"");
        assert_eq!(String::from(SharedStr::from("z")), "z");
        assert_eq!("q".parse::<SharedStr>().unwrap(), "q");
        let long = "l".repeat(64);
        assert_eq!(long.parse::<SharedStr>().unwrap(), long);
        assert_eq!(SharedStr::from(long.clone()).into_bytes(), long);
        assert_eq!(SharedStr::from("é".to_owned()).into_bytes(), "é");
        assert_eq!(SharedStr::from(long.clone()), SharedStr::from_utf8(Bytes::from(long)).unwrap());
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn is_as_small_as_bytes() {
        assert_eq!(std::mem::size_of::<SharedStr>(), std::mem::size_of::<Bytes>());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_as_a_string() {
        let s = SharedStr::from("a \"quoted\" é");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, serde_json::to_string(s.as_str()).unwrap());
        assert_eq!(serde_json::from_str::<SharedStr>(&json).unwrap(), s);
    }
}
