//! The `#[service]` attribute macro.

mod expand;
mod model;

use proc_macro2::TokenStream;
use syn::{parse_quote, ItemTrait};

use crate::ctxt::Ctxt;

pub use model::ServiceArgs;

/// Expands a service trait, or returns every error found in it.
pub fn service(args: ServiceArgs, item: ItemTrait) -> syn::Result<TokenStream> {
    let net = args.krate.clone().unwrap_or_else(|| parse_quote!(::thrift_net));
    let mut cx = Ctxt::default();
    let service = model::parse(&mut cx, args, item);
    cx.check()?;
    Ok(expand::expand(&service, net))
}

/// The trait as written, minus the `#[thrift]` attributes only this macro understands.
pub fn without_thrift_attrs(mut item: ItemTrait) -> TokenStream {
    let keep = |attrs: &mut Vec<syn::Attribute>| attrs.retain(|a| !a.path().is_ident("thrift"));
    for trait_item in &mut item.items {
        if let syn::TraitItem::Fn(f) = trait_item {
            keep(&mut f.attrs);
            for input in &mut f.sig.inputs {
                if let syn::FnArg::Typed(arg) = input {
                    keep(&mut arg.attrs);
                }
            }
        }
    }
    quote::quote!(#item)
}
