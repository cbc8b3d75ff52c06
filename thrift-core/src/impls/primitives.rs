//! bool, the integers and double.

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::idl::Idl;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

impl ThriftType for bool {
    const TTYPE: TType = TType::Bool;
    fn idl_type(_: &mut Idl) -> String {
        "bool".into()
    }
}

impl Encode for bool {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_bool(buf, *self);
    }
    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        1
    }
    #[inline]
    fn fixed_len<P: Protocol>() -> Option<usize> {
        Some(1)
    }
    #[inline]
    fn encode_field<P: Protocol, B: BufMut + ?Sized>(&self, id: i16, last_id: i16, buf: &mut B) {
        P::write_bool_field(buf, id, last_id, *self);
    }
    #[inline]
    fn field_len<P: Protocol>(&self, id: i16, last_id: i16) -> usize {
        P::bool_field_len(id, last_id)
    }
}

impl<'de> Decode<'de> for bool {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        P::read_bool(r)
    }
}

/// Implements the traits for a number type from its protocol functions.
macro_rules! number {
    ($ty:ty, $ttype:ident, $idl:literal, $write:ident, $read:ident, |$v:ident| $len:expr, $fixed:expr) => {
        impl ThriftType for $ty {
            const TTYPE: TType = TType::$ttype;
            fn idl_type(_: &mut Idl) -> String {
                $idl.into()
            }
        }

        impl Encode for $ty {
            #[inline]
            fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
                P::$write(buf, *self);
            }
            #[inline]
            fn encoded_len<P: Protocol>(&self) -> usize {
                let $v = *self;
                $len
            }
            #[inline]
            fn fixed_len<P: Protocol>() -> Option<usize> {
                $fixed
            }
        }

        impl<'de> Decode<'de> for $ty {
            #[inline]
            fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
                P::$read(r)
            }
        }
    };
}

number!(i8, I8, "byte", write_i8, read_i8, |_v| 1, Some(1));
number!(i16, I16, "i16", write_i16, read_i16, |v| P::i16_len(v), P::FIXED_WIDTH_INTEGERS.then_some(2));
number!(i32, I32, "i32", write_i32, read_i32, |v| P::i32_len(v), P::FIXED_WIDTH_INTEGERS.then_some(4));
number!(i64, I64, "i64", write_i64, read_i64, |v| P::i64_len(v), P::FIXED_WIDTH_INTEGERS.then_some(8));
number!(f64, Double, "double", write_double, read_double, |_v| 8, Some(8));
