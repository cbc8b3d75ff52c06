//! `#[derive(ThriftEnum)]`: an `i32` on the wire, matched against explicit discriminants.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::{wrap, Impls};
use crate::ast::{Container, EnumVariant};

pub fn expand_enum(container: &Container<'_>, variants: &[EnumVariant], unknown: Option<&Ident>) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let ident = &container.input.ident;
    let name = &container.name;
    let (thrift_type, encode, decode) = (impls.thrift_type_head(), impls.encode_head(), impls.decode_head());

    let idents: Vec<_> = variants.iter().map(|v| &v.ident).collect();
    let values: Vec<_> = variants.iter().map(|v| &v.value).collect();
    let names = variants.iter().map(|v| &v.name);
    let docs = variants.iter().map(|v| &v.doc);
    let doc = &container.doc;
    let idl =
        impls.idl_impl(quote!(#krate::__private::enum_definition(idl_name, #doc, &[#((#names, #values, #docs)),*])));
    // `Name.Variant`, as Apache's IDL spells an enum constant. An unknown value has no name:
    // its number, which Apache's compiler refuses as an enum default.
    let literals = variants.iter().map(|v| {
        let (variant, literal) = (&v.ident, format!("{}.{}", name, v.name));
        quote!(#ident::#variant => <::std::string::String as ::core::convert::From<&str>>::from(#literal),)
    });
    let unknown_literal = unknown.map(|u| quote!(#ident::#u(v) => ::std::string::ToString::to_string(v),));
    let literal_head = impls.idl_literal_head();
    let literal = quote! {
        #krate::__private::if_idl! {
            #literal_head {
                fn idl_literal(&self) -> ::std::string::String {
                    match self {
                        #(#literals)*
                        #unknown_literal
                    }
                }
            }
        }
    };
    let unknown_to_i32 = unknown.map(|u| quote!(#ident::#u(v) => *v,));
    let from_i32_fallback = match unknown {
        Some(u) => quote!(other => ::core::result::Result::Ok(#ident::#u(other)),),
        None => quote! {
            other => ::core::result::Result::Err(
                r.error(#krate::ErrorKind::UnknownEnumValue { name: #name, value: other })
            ),
        },
    };

    wrap(quote! {
        impl ::core::convert::From<&#ident> for i32 {
            #[inline]
            fn from(v: &#ident) -> i32 {
                match v {
                    #(#ident::#idents => #values,)*
                    #unknown_to_i32
                }
            }
        }

        #thrift_type {
            const TTYPE: #krate::TType = #krate::TType::I32;
        }


        #encode {
            #[inline]
            fn encode<__P: #krate::Protocol, __B: #krate::bytes::BufMut + ?::core::marker::Sized>(&self, buf: &mut __B) {
                __P::write_i32(buf, <i32 as ::core::convert::From<&Self>>::from(self));
            }
            #[inline]
            fn encoded_len<__P: #krate::Protocol>(&self) -> usize {
                __P::i32_len(<i32 as ::core::convert::From<&Self>>::from(self))
            }
            #[inline]
            fn fixed_len<__P: #krate::Protocol>() -> ::core::option::Option<usize> {
                <i32 as #krate::Encode>::fixed_len::<__P>()
            }
        }

        #decode {
            #[inline]
            fn decode<__P: #krate::Protocol>(r: &mut #krate::Reader<'__de>) -> #krate::Result<Self> {
                match __P::read_i32(r)? {
                    #(v if v == #values => ::core::result::Result::Ok(#ident::#idents),)*
                    #from_i32_fallback
                }
            }
        }

        #idl
        #literal
    })
}
