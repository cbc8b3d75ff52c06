//! References, boxes and shared pointers write what they point to; `Box`, `Arc` and `Rc` of
//! a sized type also decode (`Box` for recursive types).

use std::rc::Rc;
use std::sync::Arc;

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

macro_rules! forward {
    ($($ptr:ty),+) => {$(
        impl<T: ThriftType + ?Sized> ThriftType for $ptr {
            const TTYPE: TType = T::TTYPE;
            #[inline]
            fn json_shape() -> crate::json::Shape {
                T::json_shape()
            }
        }

        impl<T: Encode + ?Sized> Encode for $ptr {
            #[inline]
            fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
                (**self).encode::<P, B>(buf)
            }
            #[inline]
            fn encoded_len<P: Protocol>(&self) -> usize {
                (**self).encoded_len::<P>()
            }
            #[inline]
            fn fixed_len<P: Protocol>() -> Option<usize> {
                T::fixed_len::<P>()
            }
            #[inline]
            fn encode_field<P: Protocol, B: BufMut + ?Sized>(&self, id: i16, last_id: i16, buf: &mut B) {
                (**self).encode_field::<P, B>(id, last_id, buf)
            }
            #[inline]
            fn field_len<P: Protocol>(&self, id: i16, last_id: i16) -> usize {
                (**self).field_len::<P>(id, last_id)
            }
        }
    )+};
}

forward!(&T, Box<T>, Arc<T>, Rc<T>);

impl<'de, T: Decode<'de>> Decode<'de> for Box<T> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        T::decode::<P>(r).map(Box::new)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Arc<T> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        T::decode::<P>(r).map(Arc::new)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Rc<T> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        T::decode::<P>(r).map(Rc::new)
    }
}
