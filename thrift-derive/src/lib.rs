//! Derive macros for `thrift-core`: `ThriftStruct`, `ThriftEnum` and `ThriftUnion`.
//!
//! Use them through `thrift_core`, which re-exports them; the attributes are documented
//! there. Each derive parses the input into a checked model ([`ast`]), reporting every
//! mistake at once with a span on its cause, then generates impls of `ThriftType`,
//! `Encode` and `Decode` that call `thrift_core`'s public API.

mod ast;
mod attr;
mod ctxt;
mod expand;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use syn::{parse_macro_input, DeriveInput};

use crate::ctxt::Ctxt;

/// Derives `ThriftType`, `Encode` and `Decode` for a struct with named fields.
/// See `thrift_core`'s documentation for the attributes.
#[proc_macro_derive(ThriftStruct, attributes(thrift))]
pub fn derive_struct(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut cx = Ctxt::default();
    let (container, fields) = ast::parse_struct(&mut cx, &input);
    finish(cx, &container, || expand::expand_struct(&container, &fields))
}

/// Derives `ThriftType`, `Encode` and `Decode` for a fieldless enum (an `i32` on the wire).
/// See `thrift_core`'s documentation for the attributes.
#[proc_macro_derive(ThriftEnum, attributes(thrift))]
pub fn derive_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut cx = Ctxt::default();
    let (container, variants, unknown) = ast::parse_enum(&mut cx, &input);
    finish(cx, &container, || expand::expand_enum(&container, &variants, unknown.as_ref()))
}

/// Derives `ThriftType`, `Encode` and `Decode` for an enum whose variants each hold one
/// value: a Thrift `union`. See `thrift_core`'s documentation for the attributes.
#[proc_macro_derive(ThriftUnion, attributes(thrift))]
pub fn derive_union(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut cx = Ctxt::default();
    let (container, variants) = ast::parse_union(&mut cx, &input);
    finish(cx, &container, || expand::expand_union(&container, &variants))
}

/// The expansion, or every collected error beside impls that keep the errors from
/// cascading.
fn finish(cx: Ctxt, container: &ast::Container<'_>, expand: impl FnOnce() -> TokenStream2) -> TokenStream {
    match cx.check() {
        Ok(()) => expand().into(),
        Err(errors) => {
            let mut out = errors.to_compile_error();
            out.extend(expand::fallback(container));
            out.into()
        }
    }
}
