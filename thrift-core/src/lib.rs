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
//!
//! One walker steps over encoded values without decoding them, under the same limits: [`skip`]
//! over a complete buffer (decode skips unknown fields with it), and the resumable [`Scanner`]
//! over a buffer that grows, to find where an unframed message ends.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `derive` | on | the `ThriftStruct`, `ThriftEnum` and `ThriftUnion` derives |
//! | `idl` | on | [`Idl`] and [`IdlType`]: Thrift IDL rendered from Rust types; without it the derives emit no IDL code |
//! | `tracing` | on | a `tracing` debug event when a known field is skipped for its wire type |
//! | `uuid` | off | `Encode`/`Decode`/`IdlType` for the `uuid` crate's `Uuid`, and conversions to and from [`Uuid`] |
//! | `serde` | off | `Serialize`/`Deserialize` for [`Uuid`] as its hyphenated string, for [`SharedStr`] as a string, and `Serialize` for [`LazyList`] as a sequence |
//! | `proptest` | off | `thrift_core::testing`: proptest strategies for every Thrift type, the `ThriftArbitrary` derive's code, roundtrip and evolution checks |
//!
//! The wire traits ([`ThriftType`], [`Encode`], [`Decode`]) carry no schema: how a type is
//! spelled in IDL is the separate [`IdlType`], which the derives emit beside them.
//!
//! # Testing your types
//!
//! With the `proptest` feature (for tests only: `thrift-core = { version = "0.1", features =
//! ["proptest"] }` under `[dev-dependencies]`), `#[derive(ThriftArbitrary)]` gives a type
//! proptest strategies that keep to its Thrift meaning, and `thrift_core::testing` checks
//! that generated values survive both protocols: exact `encoded_len`, `skip` over exactly
//! the message, decode back to an equal value. Without the feature the derive adds
//! nothing, so it can stay on the library's types.
//!
//! ```
//! # #[cfg(all(feature = "derive", feature = "proptest"))] {
//! use thrift_core::{ThriftArbitrary, ThriftEnum, ThriftStruct};
//!
//! #[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq)]
//! #[repr(i32)]
//! enum Mood {
//!     Happy = 1,
//!     Sad = 2,
//!     #[thrift(unknown)]
//!     Other(i32),
//! }
//!
//! #[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
//! struct HelloRequest {
//!     #[thrift(id = 1, required)]
//!     name: String,
//!     #[thrift(id = 2)]
//!     mood: Option<Mood>,
//!     #[thrift(id = 3)]
//!     tags: Vec<String>,
//! }
//!
//! // In a #[test]: 256 generated values, the smallest failing one reported with the
//! // protocol and a hex dump.
//! thrift_core::testing::check_roundtrips::<HelloRequest>();
//! # }
//! ```
//!
//! `thrift_core::testing` also has the single-value `assert_roundtrip`, strategies for
//! every Thrift type (`arbitrary::<Bytes>()`), and evolution checks between two versions of
//! a type (`check_evolution`).

// `deny`, not `forbid`: `utf8` (the UTF-8 check of decoded strings) is the one module allowed it.
#![deny(unsafe_code)]

// Lets the derives' `::thrift_core::` paths resolve inside this crate's own tests.
extern crate self as thrift_core;

mod app_exception;
#[cfg(feature = "derive")]
pub mod attributes;
mod encode;
mod error;
#[cfg(feature = "idl")]
mod idl;
mod impls;
pub mod json;
mod limits;
mod protocol;
mod reader;
mod service;
mod structs;
#[cfg(feature = "proptest")]
pub mod testing;
mod utf8;
mod walk;
mod wire;

#[doc(hidden)]
pub mod __private;

pub use app_exception::{ApplicationException, ApplicationExceptionKind};
pub use encode::{Decode, DecodeOwned, Encode, ThriftType};
pub use error::{Error, ErrorKind, PathSegment, Result};
#[cfg(feature = "idl")]
pub use idl::{Idl, IdlLiteral, IdlType, ServiceDefinition};
pub use impls::{LazyList, LazyListIter, OrderedDouble, ParseUuidError, SharedStr, Uuid};
pub use limits::Limits;
pub use protocol::{Binary, Compact, FieldHeader, ListHeader, MapHeader, MessageHeader, Protocol};
pub use reader::Reader;
pub use service::{NoException, OrApplication};
pub use structs::{StructDecoder, StructEncoder, StructSizer};
pub use walk::{skip, Scan, Scanner};
pub use wire::{MessageType, TType};

pub use bytes;

#[cfg(feature = "derive")]
pub use thrift_derive::{ThriftArbitrary, ThriftEnum, ThriftStruct, ThriftUnion};

/// Expands to its input when the `idl` feature is on, else to nothing: the derives wrap
/// the IDL impls they emit in it.
#[doc(hidden)]
#[cfg(feature = "idl")]
#[macro_export]
macro_rules! __if_idl {
    ($($item:tt)*) => { $($item)* };
}

#[doc(hidden)]
#[cfg(not(feature = "idl"))]
#[macro_export]
macro_rules! __if_idl {
    ($($item:tt)*) => {};
}

/// Expands to its input when the `proptest` feature is on, else to nothing: the
/// `ThriftArbitrary` derive wraps its impls in it, so a library can derive it on its types
/// and turn the feature on only for its tests.
#[doc(hidden)]
#[cfg(feature = "proptest")]
#[macro_export]
macro_rules! __if_proptest {
    ($($item:tt)*) => { $($item)* };
}

#[doc(hidden)]
#[cfg(not(feature = "proptest"))]
#[macro_export]
macro_rules! __if_proptest {
    ($($item:tt)*) => {};
}

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

/// Decodes a `T` that must span all of `input`, borrowing from it where `T` borrows, under
/// the default [`Limits`].
///
/// ```
/// let s: &str = thrift_core::from_slice::<thrift_core::Binary, _>(&[0, 0, 0, 2, b'o', b'k']).unwrap();
/// assert_eq!(s, "ok");
/// ```
pub fn from_slice<'de, P: Protocol, T: Decode<'de>>(input: &'de [u8]) -> Result<T> {
    Reader::new(input).decode_rest::<P, T>()
}

/// [`from_slice`] under `limits`.
///
/// ```
/// use thrift_core::{Binary, ErrorKind, Limits};
/// let tight = Limits { max_string_len: 1, ..Limits::default() };
/// let err = thrift_core::from_slice_with_limits::<Binary, &str>(&[0, 0, 0, 2, b'o', b'k'], &tight).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::LengthTooLarge { .. }));
/// ```
pub fn from_slice_with_limits<'de, P: Protocol, T: Decode<'de>>(input: &'de [u8], limits: &Limits) -> Result<T> {
    Reader::new(input).with_limits(*limits).decode_rest::<P, T>()
}

/// Decodes a `T` that must span all of `input`, under the default [`Limits`]; `Bytes`
/// and [`SharedStr`] fields share `input`'s buffer (owned, `'static`, no copy).
///
/// ```
/// use bytes::Bytes;
/// let input = Bytes::from_static(&[0, 0, 0, 2, 0xca, 0xfe]);
/// let b: Bytes = thrift_core::from_bytes::<thrift_core::Binary, _>(&input).unwrap();
/// assert_eq!(b.as_ptr(), input[4..].as_ptr()); // no copy
/// ```
pub fn from_bytes<'de, P: Protocol, T: Decode<'de>>(input: &'de bytes::Bytes) -> Result<T> {
    Reader::from_bytes(input).decode_rest::<P, T>()
}

/// [`from_bytes`] under `limits`.
///
/// ```
/// use bytes::Bytes;
/// use thrift_core::{Compact, Limits};
/// let input = Bytes::from_static(&[0x25, 2, 4]); // list<i32> [1, 2]
/// let v: Vec<i32> = thrift_core::from_bytes_with_limits::<Compact, _>(&input, &Limits::default()).unwrap();
/// assert_eq!(v, [1, 2]);
/// ```
pub fn from_bytes_with_limits<'de, P: Protocol, T: Decode<'de>>(
    input: &'de bytes::Bytes,
    limits: &Limits,
) -> Result<T> {
    Reader::from_bytes(input).with_limits(*limits).decode_rest::<P, T>()
}
