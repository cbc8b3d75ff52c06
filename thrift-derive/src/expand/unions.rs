//! `#[derive(ThriftUnion)]`: a struct with exactly one field set, one variant per field.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{exceptions_impl, idl_field, json_shape_fn, literal_of, span_at, wrap, Impls, ThrownField};
use crate::ast::{Container, UnionVariant};

pub fn expand_union(container: &Container<'_>, variants: &[UnionVariant], unknown: Option<&syn::Ident>) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let ident = &container.input.ident;
    let name = &container.name;
    let doc = &container.doc;
    let (thrift_type, encode, decode) = (impls.thrift_type_head(), impls.encode_head(), impls.decode_head());

    let idl_fields = variants.iter().map(|v| idl_field(krate, v.id, "", &v.ty, &v.name, None, &v.doc));
    let idl = impls.idl_impl(quote! {{
        let fields = [#(#idl_fields),*];
        #krate::__private::struct_definition("union", idl_name, #doc, &fields)
    }});
    let mut write_arms: Vec<_> = variants
        .iter()
        .map(|v| {
            let (variant, id) = (&v.ident, v.id);
            quote_spanned!(span_at(&v.ty)=> #ident::#variant(v) => s.field(#id, v),)
        })
        .collect();
    // The member a newer peer set is not kept, only its id: re-encoded, the union is empty.
    if let Some(u) = unknown {
        write_arms.push(quote!(#ident::#u(_) => {}));
    }
    let read_arms = variants.iter().map(|v| {
        let (variant, id, ty, field_name) = (&v.ident, v.id, &v.ty, &v.name);
        // At the variant's type: a type without `Decode` is reported there.
        quote_spanned! {span_at(ty)=>
            #id => {
                let mut slot: ::core::option::Option<#ty> = ::core::option::Option::None;
                s.read(r, field, &mut slot).map_err(|e| e.in_field(#name, #field_name, #id))?;
                if let ::core::option::Option::Some(v) = slot {
                    value = ::core::option::Option::Some(#ident::#variant(v));
                    count += 1;
                } else if unknown_id.is_none() {
                    // Skipped for its wire type: a member this side cannot read.
                    unknown_id = ::core::option::Option::Some(#id);
                }
            }
        }
    });
    let finish = match unknown {
        // Open: no known member (a newer peer's, or none at all) is the unknown case.
        Some(u) => quote! {
            match value {
                ::core::option::Option::Some(v) if count == 1 => ::core::result::Result::Ok(v),
                ::core::option::Option::None => ::core::result::Result::Ok(#ident::#u(
                    ::core::option::Option::unwrap_or(unknown_id, 0)
                )),
                _ => ::core::result::Result::Err(#krate::Error::at(
                    #krate::ErrorKind::InvalidUnion { name: #name, count },
                    start,
                )),
            }
        },
        None => quote! {
            // Closed: only the count matters.
            let _ = unknown_id;
            match value {
                ::core::option::Option::Some(v) if count == 1 => ::core::result::Result::Ok(v),
                _ => ::core::result::Result::Err(#krate::Error::at(
                    #krate::ErrorKind::InvalidUnion { name: #name, count },
                    start,
                )),
            }
        },
    };
    // The value as an IDL constant (`{"name": literal}`), for defaults of this type; the
    // unknown case has none (an empty union is no value).
    let mut literal_arms: Vec<_> = variants
        .iter()
        .map(|v| {
            let (variant, field_name) = (&v.ident, &v.name);
            let literal = literal_of(krate, quote!(v));
            quote! {
                #ident::#variant(v) => ::core::option::Option::Some(#krate::__private::struct_literal(
                    &[(#field_name, ::core::option::Option::Some(#literal?))],
                )),
            }
        })
        .collect();
    if let Some(u) = unknown {
        literal_arms.push(quote!(#ident::#u(_) => ::core::option::Option::None,));
    }
    let literal = impls.composite_literal_impl(quote!(match self { #(#literal_arms)* }));
    let exception = impls.exception_impls();
    let thrown: Vec<_> = variants
        .iter()
        .map(|v| {
            let (variant, ty) = (&v.ident, &v.ty);
            ThrownField { id: v.id, name: v.thrown_name.clone(), ty: quote!(#ty), pattern: quote!(#ident::#variant(v)) }
        })
        .collect();
    let thrown = exceptions_impl(&impls, &thrown);

    let shape_fields: Vec<_> = variants
        .iter()
        .map(|v| {
            let ty = &v.ty;
            (v.id, quote!(#ty))
        })
        .collect();
    let json_shape = json_shape_fn(krate, &shape_fields);
    wrap(quote! {
        #thrift_type {
            const TTYPE: #krate::TType = #krate::TType::Struct;
            #json_shape
        }


        #encode {
            #[inline]
            fn encode<__P: #krate::Protocol, __B: #krate::bytes::BufMut + ?::core::marker::Sized>(&self, buf: &mut __B) {
                let mut s = #krate::StructEncoder::<__P, __B>::new(buf);
                match self { #(#write_arms)* }
                s.finish();
            }

            #[inline]
            fn encoded_len<__P: #krate::Protocol>(&self) -> usize {
                let mut s = #krate::StructSizer::<__P>::new();
                match self { #(#write_arms)* }
                s.finish()
            }
        }

        #decode {
            fn decode<__P: #krate::Protocol>(r: &mut #krate::Reader<'__de>) -> #krate::Result<Self> {
                let start = r.position();
                let mut value: ::core::option::Option<Self> = ::core::option::Option::None;
                let mut count = 0usize;
                let mut unknown_id: ::core::option::Option<i16> = ::core::option::Option::None;
                let mut s = #krate::StructDecoder::<__P>::begin(r)?;
                while let ::core::option::Option::Some(field) = s.next_field(r)? {
                    match field.id {
                        #(#read_arms)*
                        _ => {
                            if unknown_id.is_none() {
                                unknown_id = ::core::option::Option::Some(field.id);
                            }
                            s.skip(r, field)?
                        }
                    }
                }
                #finish
            }
        }

        #exception
        #thrown

        #idl
        #literal
    })
}
