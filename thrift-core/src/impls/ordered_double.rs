//! A `double` that can be a set element or a map key.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

/// A `double` with a total order, so that `set<double>` and `map<double, _>` have Rust
/// types: equal and ordered by [`f64::total_cmp`], hashed by its bits. On the wire it is a
/// plain `double`.
///
/// ```
/// use std::collections::BTreeSet;
/// use thrift_core::{Compact, OrderedDouble};
/// let set: BTreeSet<OrderedDouble> = [2.5, -0.0, f64::NAN].into_iter().map(OrderedDouble).collect();
/// let bytes = thrift_core::to_vec::<Compact, _>(&set);
/// assert_eq!(thrift_core::from_slice::<Compact, BTreeSet<OrderedDouble>>(&bytes).unwrap(), set);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct OrderedDouble(pub f64);

impl PartialEq for OrderedDouble {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}

impl Eq for OrderedDouble {}

impl PartialOrd for OrderedDouble {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedDouble {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl Hash for OrderedDouble {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl From<f64> for OrderedDouble {
    fn from(v: f64) -> Self {
        OrderedDouble(v)
    }
}

impl From<OrderedDouble> for f64 {
    fn from(v: OrderedDouble) -> f64 {
        v.0
    }
}

impl ThriftType for OrderedDouble {
    const TTYPE: TType = TType::Double;
}

impl Encode for OrderedDouble {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        self.0.encode::<P, B>(buf)
    }
    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.encoded_len::<P>()
    }
    #[inline]
    fn fixed_len<P: Protocol>() -> Option<usize> {
        f64::fixed_len::<P>()
    }
}

impl<'de> Decode<'de> for OrderedDouble {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        f64::decode::<P>(r).map(OrderedDouble)
    }
}
