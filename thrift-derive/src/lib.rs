//! Derive macros for `thrift-core` (`ThriftStruct`, `ThriftEnum`, `ThriftUnion`) and the
//! `#[service]` attribute re-exported by `thrift-net`.
//!
//! Use them through `thrift_core`, which re-exports them; the attributes are documented
//! there. Each derive parses the input into a checked model (`ast`), reporting every
//! mistake at once with a span on its cause, then generates impls of `ThriftType`,
//! `Encode` and `Decode` that call `thrift_core`'s public API.

mod ast;
mod attr;
mod case;
mod ctxt;
mod expand;
mod keywords;
mod service;

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
    if container.attrs.transparent.is_some() {
        let field = ast::parse_transparent(&mut cx, &input);
        return finish(cx, &container, || match &field {
            Some(field) => expand::expand_transparent(&container, field),
            None => TokenStream2::new(),
        });
    }
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
    let (container, variants, unknown) = ast::parse_union(&mut cx, &input);
    finish(cx, &container, || expand::expand_union(&container, &variants, unknown.as_ref()))
}

/// Derives `thrift_core::testing::ThriftArbitrary` and proptest's `Arbitrary` for a type
/// that derives `ThriftStruct`, `ThriftEnum` or `ThriftUnion`, from the same `#[thrift]`
/// attributes. The impls exist only with thrift-core's `proptest` feature (without it the
/// derive adds nothing), so a library can derive it and enable the feature for its tests.
/// A mistake in the attributes is reported by the Thrift derive beside it, so this one
/// then emits nothing.
#[proc_macro_derive(ThriftArbitrary, attributes(thrift))]
pub fn derive_arbitrary(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut cx = Ctxt::default();
    let tokens = match &input.data {
        syn::Data::Struct(_) => {
            let (container, fields) = ast::parse_struct(&mut cx, &input);
            if container.attrs.transparent.is_some() {
                ast::parse_transparent(&mut cx, &input)
                    .map(|field| expand::arbitrary::expand_transparent(&container, &field))
            } else {
                Some(expand::arbitrary::expand_struct(&container, &fields))
            }
        }
        syn::Data::Enum(data) if ast::is_thrift_enum(data) => {
            let (container, variants, unknown) = ast::parse_enum(&mut cx, &input);
            Some(expand::arbitrary::expand_enum(&container, &variants, unknown.as_ref()))
        }
        syn::Data::Enum(_) => {
            let (container, variants, unknown) = ast::parse_union(&mut cx, &input);
            Some(expand::arbitrary::expand_union(&container, &variants, unknown.as_ref()))
        }
        syn::Data::Union(_) => {
            return syn::Error::new_spanned(
                &input.ident,
                "ThriftArbitrary is for ThriftStruct, ThriftEnum and ThriftUnion types",
            )
            .to_compile_error()
            .into();
        }
    };
    match (cx.check(), tokens) {
        (Ok(()), Some(tokens)) => tokens.into(),
        _ => TokenStream::new(),
    }
}

/// Turns a trait of `async fn`s into a Thrift service: the handler trait, a server
/// dispatcher, a typed client and the IDL definition. Use it through `thrift_net`, which
/// re-exports it and documents it.
#[proc_macro_attribute]
pub fn service(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut service_args = service::ServiceArgs::default();
    let parser = service_args.parser();
    parse_macro_input!(args with parser);
    let item = parse_macro_input!(input as syn::ItemTrait);
    match service::service(service_args, item.clone()) {
        Ok(tokens) => tokens.into(),
        Err(errors) => {
            // Keep the trait itself so its uses don't cascade into "not found" errors.
            let mut out = errors.to_compile_error();
            out.extend(service::without_thrift_attrs(item));
            out.into()
        }
    }
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
