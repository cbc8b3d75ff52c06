//! `ThriftType`, `Encode` and `Decode` for the standard types.

mod btree;
mod containers;
mod pointers;
mod primitives;
mod strings;
mod uuid;

pub use self::uuid::Uuid;
