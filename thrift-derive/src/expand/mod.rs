//! Code generation: the impls each derive emits, calling `thrift_core`'s public API.

mod enums;
mod structs;
mod unions;

pub use enums::expand_enum;
pub use structs::expand_struct;
pub use unions::expand_union;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{parse_quote, GenericParam, Generics, Lifetime, Path, WherePredicate};

use crate::ast::Container;

/// Pieces every expansion needs: the runtime path and the impl headers.
pub struct Impls<'a> {
    pub krate: Path,
    pub container: &'a Container<'a>,
}

impl<'a> Impls<'a> {
    pub fn new(container: &'a Container<'a>) -> Self {
        let krate = container.attrs.krate.clone().unwrap_or_else(|| parse_quote!(::thrift_core));
        Impls { krate, container }
    }

    /// `impl<..> #krate::#trait_ for Type<..> where T: #bound, ..` as the head of an impl,
    /// with a `'__de` lifetime outliving every lifetime of the type when `decode` is set.
    fn head(&self, trait_: TokenStream, bound: TokenStream, decode: bool) -> TokenStream {
        let input = self.container.input;
        let ident = &input.ident;
        let mut generics: Generics = input.generics.clone();
        let (_, ty_generics, _) = input.generics.split_for_impl();
        let type_params: Vec<_> = generics.type_params().map(|p| p.ident.clone()).collect();
        let where_clause = generics.make_where_clause();
        for param in &type_params {
            let predicate: WherePredicate = parse_quote!(#param: #bound);
            where_clause.predicates.push(predicate);
        }
        if decode {
            let de: Lifetime = parse_quote!('__de);
            let lifetimes: Vec<_> = generics.lifetimes().map(|l| l.lifetime.clone()).collect();
            // `'__de: 'a + 'b`: borrowed fields live as long as the input.
            let param: GenericParam =
                if lifetimes.is_empty() { parse_quote!(#de) } else { parse_quote!(#de: #(#lifetimes)+*) };
            generics.params.insert(0, param);
        }
        let (impl_generics, _, where_clause) = generics.split_for_impl();
        quote!(impl #impl_generics #trait_ for #ident #ty_generics #where_clause)
    }

    /// The head of the `ThriftType` impl.
    pub fn thrift_type_head(&self) -> TokenStream {
        let krate = &self.krate;
        self.head(quote!(#krate::ThriftType), quote!(#krate::ThriftType), false)
    }

    /// `IdlType` for the type, defining it as `name` with `render` (an expression of `idl`
    /// giving the definition's text), inside `if_idl!` so it is compiled only with
    /// thrift-core's `idl` feature.
    pub fn idl_impl(&self, render: TokenStream) -> TokenStream {
        let krate = &self.krate;
        let name = &self.container.name;
        let head = self.head(quote!(#krate::IdlType), quote!(#krate::IdlType), false);
        quote! {
            #krate::__private::if_idl! {
                #head {
                    #[allow(unused_variables)]
                    fn idl_type(idl: &mut #krate::Idl) -> ::std::string::String {
                        idl.define(#name, |idl| #render);
                        <::std::string::String as ::core::convert::From<&str>>::from(#name)
                    }
                }
            }
        }
    }

    /// The head of the `Encode` impl.
    pub fn encode_head(&self) -> TokenStream {
        let krate = &self.krate;
        self.head(quote!(#krate::Encode), quote!(#krate::Encode), false)
    }

    /// The head of the `Decode<'__de>` impl.
    pub fn decode_head(&self) -> TokenStream {
        let krate = &self.krate;
        self.head(quote!(#krate::Decode<'__de>), quote!(#krate::Decode<'__de>), true)
    }

    /// `std::error::Error` and `Display` for an `exception`.
    pub fn exception_impls(&self) -> TokenStream {
        if !self.container.attrs.exception {
            return TokenStream::new();
        }
        let input = self.container.input;
        let ident = &input.ident;
        let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
        quote! {
            impl #impl_generics ::core::fmt::Display for #ident #ty_generics #where_clause {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::core::fmt::Debug::fmt(self, f)
                }
            }
            impl #impl_generics ::std::error::Error for #ident #ty_generics #where_clause {}
        }
    }
}

/// A span located at `tokens` (so a trait error points at the user's field type) that
/// resolves names as the rest of the generated code does. The user's own span would not do:
/// when the type comes from a `macro_rules!` caller, it carries that caller's hygiene, and
/// the generated locals (`s`, `r`, `self`) would not be found.
pub fn span_at(tokens: &impl Spanned) -> Span {
    Span::call_site().located_at(tokens.span())
}

/// Wraps generated items so their helper names cannot clash with the user's.
pub fn wrap(items: TokenStream) -> TokenStream {
    quote! {
        #[allow(clippy::all, non_local_definitions, unused_qualifications)]
        const _: () = { #items };
    }
}

/// Impls emitted beside `compile_error!`, so one mistake in the type does not cascade into
/// "trait not implemented" errors wherever it is used. The crate does not compile, so they
/// never run; they are still consistent (an empty struct, and a decode error) rather than
/// panics.
pub fn fallback(container: &Container<'_>) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let name = &container.name;
    let (thrift_type, encode, decode) = (impls.thrift_type_head(), impls.encode_head(), impls.decode_head());
    let idl = impls.idl_impl(quote!(::std::string::String::new()));
    wrap(quote! {
        #thrift_type {
            const TTYPE: #krate::TType = #krate::TType::Struct;
        }
        #encode {
            fn encode<__P: #krate::Protocol, __B: #krate::bytes::BufMut + ?::core::marker::Sized>(&self, buf: &mut __B) {
                __P::write_field_stop(buf)
            }
            fn encoded_len<__P: #krate::Protocol>(&self) -> usize { 1 }
        }
        #decode {
            fn decode<__P: #krate::Protocol>(r: &mut #krate::Reader<'__de>) -> #krate::Result<Self> {
                ::core::result::Result::Err(r.error(#krate::ErrorKind::InvalidData(::std::string::String::from(::core::concat!(#name, " did not derive")))))
            }
        }
        #idl
    })
}

/// One `IdlField` of a definition, its type spelled by `IdlType`.
pub fn idl_field(
    krate: &impl quote::ToTokens,
    id: i16,
    requiredness: &str,
    ty: &impl quote::ToTokens,
    name: &str,
    default: Option<String>,
) -> TokenStream {
    let default = match default {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #krate::__private::IdlField {
            id: #id,
            requiredness: #requiredness,
            ty: <#ty as #krate::IdlType>::idl_type(idl),
            name: #name,
            default: #default,
        }
    }
}

/// The IDL literal for a default expression, when it is a plain literal.
pub fn idl_literal(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Lit(lit) => Some(quote!(#lit).to_string()),
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => {
            matches!(**expr, syn::Expr::Lit(_)).then(|| format!("-{}", quote!(#expr)))
        }
        _ => None,
    }
}

/// One field a value takes in a method's result struct when it is thrown.
pub struct ThrownField {
    pub id: i16,
    /// The IDL name of the field in `throws (...)`.
    pub name: String,
    /// The field's type.
    pub ty: TokenStream,
    /// A pattern over `self` binding the field's value as `v`, also an expression
    /// building `Self` from `v`.
    pub pattern: TokenStream,
}

/// `Exceptions` (and `IdlThrows`) for a type a method can declare; emitted only for types without generics.
pub fn exceptions_impl(impls: &Impls<'_>, fields: &[ThrownField]) -> TokenStream {
    let input = impls.container.input;
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let krate = &impls.krate;
    let ident = &input.ident;
    let write: Vec<_> =
        fields.iter().map(|f| (f.id, &f.pattern)).map(|(id, p)| quote!(#p => s.field(#id, v),)).collect();
    let read = fields.iter().map(|ThrownField { id, ty, pattern, .. }| {
        quote! {
            #id => {
                let mut slot: ::core::option::Option<#ty> = ::core::option::Option::None;
                s.read(r, field, &mut slot)?;
                ::core::result::Result::Ok(::core::option::Option::map(slot, |v| #pattern))
            }
        }
    });
    let idl = fields.iter().map(|ThrownField { id, name, ty, .. }| idl_field(krate, *id, "", ty, name, None));
    quote! {
        impl #krate::__private::Exceptions for #ident {
            fn write_fields<__P: #krate::Protocol, __B: #krate::bytes::BufMut + ?::core::marker::Sized>(
                &self,
                s: &mut #krate::StructEncoder<'_, __P, __B>,
            ) {
                match self { #(#write)* }
            }
            fn size_fields<__P: #krate::Protocol>(&self, s: &mut #krate::StructSizer<__P>) {
                match self { #(#write)* }
            }
            fn read_field<'__de, __P: #krate::Protocol>(
                s: &mut #krate::StructDecoder<__P>,
                r: &mut #krate::Reader<'__de>,
                field: #krate::FieldHeader,
            ) -> #krate::Result<::core::option::Option<Self>> {
                match field.id {
                    #(#read)*
                    _ => ::core::result::Result::Ok(::core::option::Option::None),
                }
            }
        }

        #krate::__private::if_idl! {
            impl #krate::__private::IdlThrows for #ident {
                fn idl_throws(idl: &mut #krate::Idl) -> ::std::vec::Vec<#krate::__private::IdlField> {
                    ::std::vec![#(#idl),*]
                }
            }
        }
    }
}
