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
