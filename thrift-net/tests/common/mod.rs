//! Helpers shared by the integration tests: a dynamic value model with message strategies,
//! and codecs run over TCP or in memory.
#![allow(dead_code)] // each test file uses a different part

pub mod net;
// The value model lives with thrift-core's walker tests, which use it too.
#[path = "../../../thrift-core/tests/common/value.rs"]
pub mod value;
