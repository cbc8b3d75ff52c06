//! The `uuid` type.

use std::fmt;

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

/// A Thrift `uuid`: 16 bytes, written as they are, in network order.
///
/// ```
/// use thrift_core::Uuid;
/// let id = Uuid([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]);
/// assert_eq!(id.to_string(), "00112233-4455-6677-8899-aabbccddeeff");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid(pub [u8; 16]);

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl ThriftType for Uuid {
    const TTYPE: TType = TType::Uuid;
}

impl Encode for Uuid {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_uuid(buf, &self.0);
    }
    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        16
    }
    #[inline]
    fn fixed_len<P: Protocol>() -> Option<usize> {
        Some(16)
    }
}

impl<'de> Decode<'de> for Uuid {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        P::read_uuid(r).map(Uuid)
    }
}

/// Why a string is not a [`Uuid`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid uuid: expected 32 hex digits, optionally hyphenated as 8-4-4-4-12")]
pub struct ParseUuidError;

impl std::str::FromStr for Uuid {
    type Err = ParseUuidError;

    /// Parses `00112233-4455-6677-8899-aabbccddeeff` or the same 32 digits without hyphens.
    ///
    /// ```
    /// use thrift_core::Uuid;
    /// let id: Uuid = "00112233-4455-6677-8899-aabbccddeeff".parse().unwrap();
    /// assert_eq!(id.0[15], 0xff);
    /// assert!("0011".parse::<Uuid>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Uuid, ParseUuidError> {
        let hyphenated = s.len() == 36;
        if hyphenated && [8, 13, 18, 23].iter().any(|&i| s.as_bytes()[i] != b'-') {
            return Err(ParseUuidError);
        }
        let digits: Vec<u8> = s.bytes().filter(|&b| !(hyphenated && b == b'-')).collect();
        if digits.len() != 32 {
            return Err(ParseUuidError);
        }
        let mut out = [0u8; 16];
        for (i, pair) in digits.chunks(2).enumerate() {
            let hex = |b: u8| (b as char).to_digit(16).ok_or(ParseUuidError);
            out[i] = (hex(pair[0])? * 16 + hex(pair[1])?) as u8;
        }
        Ok(Uuid(out))
    }
}

/// As its hyphenated string, the form JSON and most serde formats expect of a uuid.
#[cfg(feature = "serde")]
impl serde::Serialize for Uuid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Uuid {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
        let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(all(test, feature = "serde"))]
mod serde_tests {
    use super::Uuid;

    #[test]
    fn serde_uses_the_hyphenated_string() {
        let id = Uuid([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]);
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"00112233-4455-6677-8899-aabbccddeeff\"");
        assert_eq!(serde_json::from_str::<Uuid>(&json).unwrap(), id);
        assert!(serde_json::from_str::<Uuid>("\"not-a-uuid\"").is_err());
    }
}
