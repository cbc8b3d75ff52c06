//! Thrift IDL to Rust.

pub mod ast;
pub mod diagnostics;
mod lexer;
mod parser;

pub use parser::parse;
