//! `string` (`str`, `String`, `Cow<str>`) and `binary` (`[u8]`, `Vec<u8>`, `Cow<[u8]>`, `Bytes`).

use std::borrow::Cow;

use bytes::{BufMut, Bytes};

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::{ErrorKind, Result};
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

/// Reads a string borrowed from the input, checking UTF-8.
#[inline]
fn read_str<'de, P: Protocol>(r: &mut Reader<'de>) -> Result<&'de str> {
    let bytes = P::read_binary(r)?;
    crate::utf8::to_str(bytes).map_err(|e| r.error_before(bytes.len() - e.valid_up_to(), ErrorKind::InvalidUtf8))
}

/// Implements `ThriftType` and `Encode` for a type that derefs to bytes.
macro_rules! encode_as_bytes {
    (|$v:ident| $bytes:expr, $($ty:ty),+) => {$(
        impl ThriftType for $ty {
            const TTYPE: TType = TType::String;
            #[inline]
            fn json_shape() -> crate::json::Shape {
                <$ty as JsonBytes>::SHAPE
            }
        }

        impl Encode for $ty {
            #[inline]
            fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
                let $v = self;
                P::write_binary(buf, $bytes);
            }
            #[inline]
            fn encoded_len<P: Protocol>(&self) -> usize {
                let $v = self;
                P::binary_len($bytes.len())
            }
        }
    )+};
}

encode_as_bytes!(|s| s.as_bytes(), str, String, Cow<'_, str>);
encode_as_bytes!(|b| AsRef::<[u8]>::as_ref(b), [u8], Vec<u8>, Cow<'_, [u8]>, Bytes);

/// Whether a type of the wire type `string` is text or `binary` (base64 in JSON).
trait JsonBytes {
    const SHAPE: crate::json::Shape;
}

macro_rules! json_bytes {
    ($shape:ident: $($ty:ty),+) => {$(
        impl JsonBytes for $ty {
            const SHAPE: crate::json::Shape = crate::json::Shape::$shape;
        }
    )+};
}

json_bytes!(Plain: str, String, Cow<'_, str>);
json_bytes!(Binary: [u8], Vec<u8>, Cow<'_, [u8]>, Bytes);

impl<'de: 'a, 'a> Decode<'de> for &'a str {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        read_str::<P>(r)
    }
}

impl<'de> Decode<'de> for String {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        read_str::<P>(r).map(str::to_owned)
    }
}

impl<'de: 'a, 'a> Decode<'de> for Cow<'a, str> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        read_str::<P>(r).map(Cow::Borrowed)
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a [u8] {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        P::read_binary(r)
    }
}

impl<'de> Decode<'de> for Vec<u8> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        P::read_binary(r).map(<[u8]>::to_vec)
    }
}

impl<'de: 'a, 'a> Decode<'de> for Cow<'a, [u8]> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        P::read_binary(r).map(Cow::Borrowed)
    }
}

impl<'de> Decode<'de> for Bytes {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let slice = P::read_binary(r)?;
        Ok(r.to_bytes(slice))
    }
}
