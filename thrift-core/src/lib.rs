//! The Apache Thrift wire format for Rust: the binary and compact protocols, zero-copy
//! decoding from complete messages, exact-size encoding, limits and errors.
//!
//! User types implement [`Encode`] and [`Decode`] through the derives re-exported here
//! (feature `derive`, on by default); this crate holds everything they call, and no I/O.
//!
//! ```
//! use thrift_core::{Binary, Compact};
//! use std::collections::BTreeMap;
//!
//! let scores: BTreeMap<String, Vec<i64>> = [("ada".to_string(), vec![3, 1, 4])].into();
//! for bytes in [thrift_core::to_vec::<Binary, _>(&scores), thrift_core::to_vec::<Compact, _>(&scores)] {
//!     assert!(!bytes.is_empty());
//! }
//! let bytes = thrift_core::to_vec::<Compact, _>(&scores);
//! let back: BTreeMap<&str, Vec<i64>> = thrift_core::from_slice::<Compact, _>(&bytes).unwrap();
//! assert_eq!(back["ada"], [3, 1, 4]);
//! ```
//!
//! The derives and their attributes are described in [`attributes`]. Decoding is bounded:
//! see [`Limits`]. Errors say what failed and where: see [`Error`].

#![forbid(unsafe_code)]

// Lets the derives' `::thrift_core::` paths resolve inside this crate's own tests.
extern crate self as thrift_core;

mod app_exception;
#[cfg(feature = "derive")]
pub mod attributes;
mod encode;
mod error;
mod idl;
mod impls;
mod limits;
mod protocol;
mod reader;
mod service;
mod skip;
mod structs;
mod wire;

pub use app_exception::{ApplicationException, ApplicationExceptionKind};
pub use encode::{Decode, DecodeOwned, Encode, ThriftType};
pub use error::{Error, ErrorKind, PathSegment, Result};
pub use idl::{Idl, IdlField, IdlMethod};
pub use impls::Uuid;
pub use limits::Limits;
pub use protocol::{Binary, Compact, FieldHeader, ListHeader, MapHeader, MessageHeader, Protocol};
pub use reader::Reader;
pub use service::{
    Exceptions, MethodResult, NoException, OrApplication, ReturnField, Returns, ServiceDefinition, Void,
};
pub use skip::skip;
pub use structs::{StructDecoder, StructEncoder, StructSizer};
pub use wire::{MessageType, TType};

pub use bytes;

#[cfg(feature = "derive")]
pub use thrift_derive::{ThriftEnum, ThriftStruct, ThriftUnion};

/// Encodes `value` into a new vector of exactly its encoded length.
///
/// ```
/// let bytes = thrift_core::to_vec::<thrift_core::Compact, _>(&-1i64);
/// assert_eq!(bytes, [0x01]);
/// ```
pub fn to_vec<P: Protocol, T: Encode + ?Sized>(value: &T) -> Vec<u8> {
    let mut buf = Vec::with_capacity(value.encoded_len::<P>());
    value.encode::<P, _>(&mut buf);
    buf
}

/// Decodes a `T` that must span all of `input`, borrowing from it where `T` borrows.
///
/// ```
/// let s: &str = thrift_core::from_slice::<thrift_core::Binary, _>(&[0, 0, 0, 2, b'o', b'k']).unwrap();
/// assert_eq!(s, "ok");
/// ```
pub fn from_slice<'de, P: Protocol, T: Decode<'de>>(input: &'de [u8]) -> Result<T> {
    finish::<P, T>(Reader::new(input))
}

/// Decodes a `T` that must span all of `input`; `Bytes` fields share `input`'s buffer.
///
/// ```
/// use bytes::Bytes;
/// let input = Bytes::from_static(&[0, 0, 0, 2, 0xca, 0xfe]);
/// let b: Bytes = thrift_core::from_bytes::<thrift_core::Binary, _>(&input).unwrap();
/// assert_eq!(b.as_ptr(), input[4..].as_ptr()); // no copy
/// ```
pub fn from_bytes<'de, P: Protocol, T: Decode<'de>>(input: &'de bytes::Bytes) -> Result<T> {
    finish::<P, T>(Reader::from_bytes(input))
}

fn finish<'de, P: Protocol, T: Decode<'de>>(mut r: Reader<'de>) -> Result<T> {
    let value = T::decode::<P>(&mut r)?;
    if !r.is_empty() {
        return Err(r.error(ErrorKind::TrailingBytes(r.remaining())));
    }
    Ok(value)
}
