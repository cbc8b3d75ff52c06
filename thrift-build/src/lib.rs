//! Thrift IDL to Rust.

pub mod ast;
pub mod diagnostics;
mod lexer;
mod parser;
pub mod resolve;

pub use parser::parse;
