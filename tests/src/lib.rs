//! Shared helpers for the integration tests: Apache Thrift's own source tree ([`apache_src`]),
//! the IDL corpus of other projects ([`idl_corpus`]), Apache's compiler's model of an IDL file ([`apache_model`]),
//! running Apache Thrift's compiler and Python library ([`python`]), the JSON form of values they exchange ([`json`]), Rust mirrors of
//! the interop IDL encoded by hand ([`model`], [`hand_struct!`]) or derived ([`derived`]) and
//! the interop case runner ([`interop`]), whose generated cases replay by [`seed`].

pub mod apache_model;
pub mod apache_src;
pub mod derived;
pub mod hand_struct;
pub mod idl_corpus;
pub mod idl_structure;
pub mod interop;
pub mod json;
pub mod model;
pub mod python;
pub mod seed;
