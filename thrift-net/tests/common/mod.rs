//! Helpers shared by the integration tests: a dynamic value model with message strategies,
//! and codecs run over TCP or in memory.
#![allow(dead_code)] // each test file uses a different part

pub mod net;
pub mod value;
