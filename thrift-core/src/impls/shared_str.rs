//! [`SharedStr`]: an owned, `'static` `string` that decodes from a `Bytes` without copying.
//!
//! # Why this type, and why on `bytestring`
//!
//! `String` costs one allocation and one copy per decoded string; `&str` costs nothing but
//! ties the value to the input's lifetime. A `SharedStr` is a refcounted slice of the input
//! `Bytes` (decoded with [`from_bytes`](crate::from_bytes) or a [`Reader::from_bytes`]):
//! owned, `'static`, `Send + Sync`, cloned by a refcount increment, and copied once when
//! decoded from a plain `&[u8]`. Binaries already have such a type: `bytes::Bytes`.
//!
//! It is a newtype over actix's [`bytestring::ByteString`] (a UTF-8-checked `Bytes`), whose
//! only dependency is `bytes`, which this crate already has. Not built on our own `Bytes`
//! wrapper because `str` from bytes without re-checking takes `unsafe`, which this crate
//! forbids; `ByteString` keeps that one audited line. Considered and not taken:
//! - `faststr` (pilota's `FastStr`): inlines strings up to 30 bytes, but wraps every longer
//!   `Bytes` in a fresh `Arc` (one allocation per long string, even from a shared input),
//!   and adds `simdutf8` to the build.
//! - `arcstr`: an `Arc<str>` of its own, which cannot share the input buffer at all.
//!
//! A newtype rather than `ByteString` itself: `ByteString`'s `From<&str>` copies, where a
//! `SharedStr` from a `&'static str` points at it (no allocation); and the crate's optional
//! traits (serde, proptest) are implemented here, on a type of ours, whatever features
//! `bytestring` was built with.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::str::Utf8Error;

use bytes::{BufMut, Bytes};
use bytestring::ByteString;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::{ErrorKind, Result};
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

/// An immutable, owned UTF-8 string stored in [`Bytes`]: decoded from a `Bytes` input it is
/// a refcounted slice of it (no allocation, no copy), and cloning it is a refcount increment.
///
/// ```
/// use thrift_core::{Binary, SharedStr};
/// use thrift_core::bytes::Bytes;
///
/// let input = Bytes::from(thrift_core::to_vec::<Binary, _>("hello"));
/// let s: SharedStr = thrift_core::from_bytes::<Binary, _>(&input).unwrap();
/// assert_eq!(s, "hello");
/// assert_eq!(s.as_ptr(), input[4..].as_ptr()); // shares the input: no copy
///
/// let fixed = SharedStr::from("static"); // points at the literal: no allocation
/// assert_eq!(fixed.len(), 6);
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedStr(ByteString);

impl SharedStr {
    /// The empty string (no allocation).
    ///
    /// ```
    /// assert!(thrift_core::SharedStr::new().is_empty());
    /// ```
    #[inline]
    pub const fn new() -> SharedStr {
        SharedStr(ByteString::new())
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
        SharedStr(ByteString::from_static(s))
    }

    /// `bytes` as a string, sharing their buffer, if they are UTF-8.
    ///
    /// ```
    /// use thrift_core::{bytes::Bytes, SharedStr};
    /// assert_eq!(SharedStr::from_utf8(Bytes::from_static(b"ok")).unwrap(), "ok");
    /// assert!(SharedStr::from_utf8(Bytes::from_static(&[0xff])).is_err());
    /// ```
    #[inline]
    pub fn from_utf8(bytes: Bytes) -> std::result::Result<SharedStr, Utf8Error> {
        ByteString::try_from(bytes).map(SharedStr)
    }

    /// The string.
    ///
    /// ```
    /// assert_eq!(thrift_core::SharedStr::from("a").as_str(), "a");
    /// ```
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `Bytes` holding the string.
    ///
    /// ```
    /// assert_eq!(thrift_core::SharedStr::from("a").as_bytes()[..], *b"a");
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &Bytes {
        self.0.as_bytes()
    }

    /// The `Bytes` holding the string, without copying.
    ///
    /// ```
    /// assert_eq!(thrift_core::SharedStr::from("a").into_bytes(), "a");
    /// ```
    #[inline]
    pub fn into_bytes(self) -> Bytes {
        self.0.into_bytes()
    }
}

impl Deref for SharedStr {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    #[inline]
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl AsRef<[u8]> for SharedStr {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl Borrow<str> for SharedStr {
    #[inline]
    fn borrow(&self) -> &str {
        &self.0
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
    /// use `SharedStr::from(s.to_owned())`.)
    #[inline]
    fn from(s: &'static str) -> SharedStr {
        SharedStr::from_static(s)
    }
}

impl From<String> for SharedStr {
    /// Takes the `String`'s buffer.
    #[inline]
    fn from(s: String) -> SharedStr {
        SharedStr(ByteString::from(s))
    }
}

impl From<Box<str>> for SharedStr {
    #[inline]
    fn from(s: Box<str>) -> SharedStr {
        SharedStr(ByteString::from(s))
    }
}

impl From<SharedStr> for String {
    #[inline]
    fn from(s: SharedStr) -> String {
        String::from(s.0)
    }
}

impl From<SharedStr> for Bytes {
    #[inline]
    fn from(s: SharedStr) -> Bytes {
        s.into_bytes()
    }
}

impl std::str::FromStr for SharedStr {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> std::result::Result<SharedStr, Self::Err> {
        Ok(SharedStr::from(s.to_owned()))
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
    /// A slice of the input when the reader was built over `Bytes`, otherwise a copy; the
    /// UTF-8 check runs once, on the slice.
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let slice = P::read_binary(r)?;
        SharedStr::from_utf8(r.to_bytes(slice))
            .map_err(|e| r.error_before(slice.len() - e.valid_up_to(), ErrorKind::InvalidUtf8))
    }
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
        for s in ["", "a", "héllo wörld", &"x".repeat(1000)] {
            let value = SharedStr::from(s.to_owned());
            assert_eq!(crate::to_vec::<Binary, _>(&value), crate::to_vec::<Binary, _>(s));
            assert_eq!(crate::to_vec::<Compact, _>(&value), crate::to_vec::<Compact, _>(s));
            let input = Bytes::from(crate::to_vec::<Binary, _>(&value));
            let back: SharedStr = crate::from_bytes::<Binary, _>(&input).unwrap();
            assert_eq!(back, s);
            if !s.is_empty() {
                assert_eq!(back.as_ptr(), input[4..].as_ptr());
            }
            let input = Bytes::from(crate::to_vec::<Compact, _>(&value));
            let back: SharedStr = crate::from_bytes::<Compact, _>(&input).unwrap();
            assert_eq!(back, s);
            let copied: SharedStr = crate::from_slice::<Compact, _>(&input).unwrap();
            assert_eq!(copied, s);
            if !s.is_empty() {
                assert!(!input.as_ptr_range().contains(&copied.as_ptr()));
            }
        }
    }

    #[test]
    fn invalid_utf8_is_an_error_at_the_bad_byte() {
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
