//! Without the `proptest` feature, `#[derive(ThriftArbitrary)]` adds nothing and needs
//! nothing (not even `Debug`): a library derives it on its types and turns the feature on
//! for its tests only. (`cargo test --workspace` unifies the feature on, and skips this.)
#![cfg(all(feature = "derive", not(feature = "proptest")))]

use thrift_core::{ThriftArbitrary, ThriftStruct};

#[derive(ThriftStruct, ThriftArbitrary, PartialEq)]
struct NoDebug {
    #[thrift(id = 1)]
    x: i32,
}

#[test]
fn the_derive_compiles_to_nothing() {
    let bytes = thrift_core::to_vec::<thrift_core::Compact, _>(&NoDebug { x: 3 });
    assert!(thrift_core::from_slice::<thrift_core::Compact, NoDebug>(&bytes).unwrap() == NoDebug { x: 3 });
}
