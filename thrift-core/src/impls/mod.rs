//! `ThriftType`, `Encode` and `Decode` for the standard types.

mod containers;
mod pointers;
mod primitives;
mod shared;
mod strings;
mod uuid;
#[cfg(feature = "uuid")]
mod uuid_crate;

pub use self::uuid::{ParseUuidError, Uuid};
