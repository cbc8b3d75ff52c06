//! The `uuid` crate's `Uuid` as a Thrift `uuid` (feature `uuid`), and `serde` for this
//! crate's [`Uuid`] (feature `serde`).

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

impl ThriftType for uuid::Uuid {
    const TTYPE: TType = TType::Uuid;
}

impl Encode for uuid::Uuid {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        // `as_bytes` is the big-endian (network) order Thrift writes.
        P::write_uuid(buf, self.as_bytes());
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

impl<'de> Decode<'de> for uuid::Uuid {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        P::read_uuid(r).map(uuid::Uuid::from_bytes)
    }
}

impl From<uuid::Uuid> for super::Uuid {
    fn from(id: uuid::Uuid) -> Self {
        super::Uuid(id.into_bytes())
    }
}

impl From<super::Uuid> for uuid::Uuid {
    fn from(id: super::Uuid) -> Self {
        uuid::Uuid::from_bytes(id.0)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Binary, Compact};

    #[test]
    fn uuid_crate_matches_our_uuid_on_the_wire() {
        let id = uuid::Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff);
        let ours = crate::Uuid::from(id);
        assert_eq!(crate::to_vec::<Binary, _>(&id), crate::to_vec::<Binary, _>(&ours));
        let bytes = crate::to_vec::<Compact, _>(&id);
        assert_eq!(crate::from_slice::<Compact, uuid::Uuid>(&bytes).unwrap(), id);
        assert_eq!(uuid::Uuid::from(ours), id);
    }
}
