//! `ThriftType`, `Encode` and `Decode` for the standard types.

mod btree;
mod containers;
mod lazy_list;
mod ordered_double;
mod pointers;
mod primitives;
mod shared;
mod shared_str;
mod strings;
mod uuid;
#[cfg(feature = "uuid")]
mod uuid_crate;

pub use self::lazy_list::{LazyList, LazyListIter};
pub use self::ordered_double::OrderedDouble;
pub use self::shared_str::SharedStr;
pub use self::uuid::{ParseUuidError, Uuid};
