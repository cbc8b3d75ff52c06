//! Property testing for Thrift types (feature `proptest`): strategies for every Thrift type,
//! and checks that values survive the wire.
//!
//! - [`ThriftArbitrary`]: a proptest strategy for every type the wire traits support,
//!   bounded by [`Sizes`]; `#[derive(ThriftArbitrary)]` writes it (and proptest's
//!   `Arbitrary`) for user types, required fields always present and optional ones
//!   sometimes absent.
//! - [`assert_roundtrip`] / [`roundtrip`]: one value through the binary and compact
//!   protocols: exact `encoded_len`, `skip` over exactly its bytes, decoded back from a
//!   slice and from `Bytes`. [`check_roundtrips`] does it for 256 generated values.
//! - [`check_evolution`]: an old and a new version of a type read each other's values.
//!
//! A failure reports the value, the protocol and a hex dump with the failing byte marked:
//!
//! ```text
//! roundtrip failed in binary: decoding from a slice failed: Person.name (id 2): wire type i32, expected string at offset 10
//! value: MiswrittenPerson(Person { id: 1, name: "ada" })
//! at offset 10 of 15 bytes:
//! 0000  08 00 01 00 00 00 01 08 00 02[00]00 00 03 00
//! ```
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use thrift_core::{ThriftArbitrary, ThriftEnum, ThriftStruct, ThriftUnion};
//!
//! #[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq)]
//! #[repr(i32)]
//! enum Level {
//!     Low = 1,
//!     High = 2,
//!     #[thrift(unknown)]
//!     Other(i32),
//! }
//!
//! #[derive(ThriftUnion, ThriftArbitrary, Debug, PartialEq)]
//! #[thrift(closed)]
//! enum Contact {
//!     #[thrift(id = 1)]
//!     Email(String),
//!     #[thrift(id = 2)]
//!     Phone(i64),
//! }
//!
//! #[derive(ThriftStruct, ThriftArbitrary, Debug, PartialEq)]
//! struct User {
//!     #[thrift(id = 1, required)]
//!     name: String,
//!     #[thrift(id = 2)]
//!     level: Option<Level>,
//!     #[thrift(id = 3)]
//!     contacts: Vec<Contact>,
//!     #[thrift(id = 4)]
//!     friends: Vec<User>,
//! }
//!
//! thrift_core::testing::check_roundtrips::<User>();
//! # }
//! ```
//!
//! In a `proptest!` block, derived types work with `any::<T>()` and a failed check ends the
//! case with `?`:
//!
//! ```
//! use proptest::prelude::*;
//! use thrift_core::testing::{arbitrary, roundtrip};
//!
//! proptest!(|(names in arbitrary::<Vec<String>>())| {
//!     roundtrip(&names)?;
//! });
//! ```

mod arbitrary;
mod evolution;
mod hex_dump;
mod roundtrip;
mod runner;
mod sizes;

pub use arbitrary::{arbitrary, optional, ThriftArbitrary};

#[doc(hidden)]
pub use arbitrary::Lazy;
pub use evolution::{
    check_evolution, check_new_reads_as_old, check_old_reads_as_new, new_reads_as_old, old_reads_as_new,
};
pub use roundtrip::{
    assert_roundtrip, assert_roundtrip_borrowed, assert_same_encoding, roundtrip, roundtrip_borrowed, Failure,
};
pub use runner::{check_roundtrips, check_roundtrips_borrowed, check_roundtrips_with};
pub use sizes::Sizes;
