//! `ThriftType`, `Encode` and `Decode` for the standard types.

mod btree;
mod containers;
mod ordered_double;
mod pointers;
mod primitives;
mod strings;
mod uuid;

pub use self::ordered_double::OrderedDouble;
pub use self::uuid::Uuid;
