//! Derive macros for `thrift-core`. Placeholder until the derive lands.
use proc_macro::TokenStream;

/// Derives `Encode`/`Decode` for a struct.
#[proc_macro_derive(ThriftStruct, attributes(thrift))]
pub fn derive_struct(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
/// Derives for an enum.
#[proc_macro_derive(ThriftEnum, attributes(thrift))]
pub fn derive_enum(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
/// Derives for a union.
#[proc_macro_derive(ThriftUnion, attributes(thrift))]
pub fn derive_union(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
