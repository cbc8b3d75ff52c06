//! `#[thrift(transparent)]`: a newtype that is its one field on the wire, as serde's
//! `transparent`; its IDL is a `typedef`, so other languages keep the name.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{literal_of, span_at, wrap, Impls};
use crate::ast::{Container, Transparent};

pub fn expand_transparent(container: &Container<'_>, field: &Transparent) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let (member, ty) = (&field.member, &field.ty);
    let (thrift_type, encode, decode) = (impls.thrift_type_head(), impls.encode_head(), impls.decode_head());
    let doc = &container.doc;
    let idl = impls.idl_impl(quote! {
        ::std::format!(
            "{}typedef {} {}\n",
            #krate::__private::doc_comment(#doc, ""),
            <#ty as #krate::IdlType>::idl_type(idl),
            idl_name
        )
    });
    let literal = impls.composite_literal_impl(literal_of(krate, quote!(&self.#member)));
    let build = match member {
        syn::Member::Named(ident) => quote!(Self { #ident: v }),
        syn::Member::Unnamed(_) => quote!(Self(v)),
    };
    let span = span_at(ty);
    wrap(quote_spanned! {span=>
        #thrift_type {
            const TTYPE: #krate::TType = <#ty as #krate::ThriftType>::TTYPE;
            #[inline]
            fn json_shape() -> #krate::json::Shape {
                <#ty as #krate::ThriftType>::json_shape()
            }
        }

        #encode {
            #[inline]
            fn encode<__P: #krate::Protocol, __B: #krate::bytes::BufMut + ?::core::marker::Sized>(&self, buf: &mut __B) {
                <#ty as #krate::Encode>::encode::<__P, __B>(&self.#member, buf)
            }
            #[inline]
            fn encoded_len<__P: #krate::Protocol>(&self) -> usize {
                <#ty as #krate::Encode>::encoded_len::<__P>(&self.#member)
            }
            #[inline]
            fn fixed_len<__P: #krate::Protocol>() -> ::core::option::Option<usize> {
                <#ty as #krate::Encode>::fixed_len::<__P>()
            }
            #[inline]
            fn encode_field<__P: #krate::Protocol, __B: #krate::bytes::BufMut + ?::core::marker::Sized>(
                &self,
                id: i16,
                last_id: i16,
                buf: &mut __B,
            ) {
                <#ty as #krate::Encode>::encode_field::<__P, __B>(&self.#member, id, last_id, buf)
            }
            #[inline]
            fn field_len<__P: #krate::Protocol>(&self, id: i16, last_id: i16) -> usize {
                <#ty as #krate::Encode>::field_len::<__P>(&self.#member, id, last_id)
            }
        }

        #decode {
            #[inline]
            fn decode<__P: #krate::Protocol>(r: &mut #krate::Reader<'__de>) -> #krate::Result<Self> {
                let v = <#ty as #krate::Decode<'__de>>::decode::<__P>(r)?;
                ::core::result::Result::Ok(#build)
            }
        }

        #idl
        #literal
    })
}
