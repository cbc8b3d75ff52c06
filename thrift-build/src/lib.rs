//! Thrift IDL to Rust.

pub mod ast;
mod codegen;
mod config;
pub mod diagnostics;
mod lexer;
mod parser;
pub mod resolve;

pub use codegen::{Generated, GeneratedFile, GeneratedItem, ItemKind};
pub use config::{BinaryType, Config, Layout, MapType, SetType};
pub use diagnostics::Error;
pub use parser::parse;
