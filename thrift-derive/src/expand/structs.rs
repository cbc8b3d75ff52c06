//! `#[derive(ThriftStruct)]`: field-by-field calls into `StructEncoder`, `StructSizer`
//! and `StructDecoder`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::{
    default_value, exceptions_impl, idl_field_of, idl_literal, json_shape_fn, literal_of, span_at, wrap, Impls,
    ThrownField,
};
use crate::ast::{Container, Field, Requiredness, WithFns};

pub fn expand_struct(container: &Container<'_>, fields: &[Field]) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let name = &container.name;
    let keyword = if container.attrs.exception { "exception" } else { "struct" };
    let doc = &container.doc;

    let (thrift_type, encode, decode) = (impls.thrift_type_head(), impls.encode_head(), impls.decode_head());
    // `skip` fields are only built, never on the wire or in the IDL.
    let (skipped, fields): (Vec<&Field>, Vec<&Field>) = fields.iter().partition(|f| f.skip);
    let idl_fields = fields.iter().map(|f| {
        let ty = &f.value_ty;
        let idl_ty = match &f.with {
            Some(WithFns { encode, decode }) => quote!(#krate::__private::with_idl_type(idl, #encode, #decode)),
            None => quote!(<#ty as #krate::IdlType>::idl_type(idl)),
        };
        idl_field_of(krate, f.id, f.requiredness.idl(), idl_ty, &f.name, idl_default(krate, f), &f.doc)
    });
    // Apache's generators write fields by ascending id, whatever the declaration order;
    // doing the same keeps our bytes identical to theirs.
    let mut by_id: Vec<&Field> = fields.clone();
    by_id.sort_by_key(|f| f.id);
    let write_fields: Vec<_> = by_id.into_iter().map(write_field).collect();
    let slots = fields.iter().map(|f| {
        let slot = slot(f);
        let ty = &f.value_ty;
        quote_spanned!(span_at(ty)=> let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None;)
    });
    let arms = fields.iter().map(|f| {
        let (id, slot, field_name) = (f.id, slot(f), &f.name);
        if let Some(WithFns { encode, decode }) = &f.with {
            let read = match f.requiredness {
                Requiredness::Required => quote!(read_required),
                _ => quote!(read),
            };
            // The wire value is read as any field, then turned into the field's type, a
            // refusal an error at the field.
            return quote! {
                #id => {
                    let mut wire = #krate::__private::with_slot(#encode, #decode);
                    s.#read(r, field, &mut wire).map_err(|e| e.in_field(#name, #field_name, #id))?;
                    if let ::core::option::Option::Some(w) = wire {
                        #slot = ::core::option::Option::Some(match (#decode)(w) {
                            ::core::result::Result::Ok(v) => v,
                            ::core::result::Result::Err(e) => {
                                return ::core::result::Result::Err(
                                    #krate::__private::with_error(e, r).in_field(#name, #field_name, #id),
                                )
                            }
                        });
                    }
                }
            };
        }
        // A required field with another wire type is an error of its own; any other field
        // is skipped, as Apache's C++ and Java do.
        // The method name carries the type's location: a missing `Decode` is reported there.
        let read = match f.requiredness {
            Requiredness::Required => syn::Ident::new("read_required", span_at(&f.value_ty)),
            _ => syn::Ident::new("read", span_at(&f.value_ty)),
        };
        // At the field type: a type without `Decode` is reported there, not at the derive.
        quote_spanned! {span_at(&f.value_ty)=>
            #id => s.#read(r, field, &mut #slot).map_err(|e| e.in_field(#name, #field_name, #id))?,
        }
    });
    let build = fields.iter().map(|f| {
        let (ident, slot, id, field_name) = (&f.ident, slot(f), f.id, &f.name);
        let ty = &f.value_ty;
        let value = match (f.requiredness, &f.default) {
            (Requiredness::Optional, _) => quote!(#slot),
            (Requiredness::Required, _) => quote! {
                match #slot {
                    ::core::option::Option::Some(v) => v,
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(#krate::__private::missing_field(#name, #field_name, #id).with_offset(r.position()))
                    }
                }
            },
            (Requiredness::Default, Some(default)) => {
                let default = default_value(default, ty);
                quote! {
                    match #slot {
                        ::core::option::Option::Some(v) => v,
                        ::core::option::Option::None => #default,
                    }
                }
            }
            (Requiredness::Default, None) => quote_spanned! {span_at(ty)=>
                ::core::option::Option::unwrap_or_else(#slot, <#ty as ::core::default::Default>::default)
            },
        };
        quote!(#ident: #value,)
    });
    let build_skipped = skipped.iter().map(|f| {
        let (ident, ty) = (&f.ident, &f.value_ty);
        let value = match &f.default {
            Some(default) => default_value(default, ty),
            None => quote_spanned!(span_at(ty)=> <#ty as ::core::default::Default>::default()),
        };
        quote!(#ident: #value,)
    });
    let idl = impls.idl_impl(quote! {{
        let fields = [#(#idl_fields),*];
        #krate::__private::struct_definition(#keyword, idl_name, #doc, &fields)
    }});
    // The value as an IDL constant (`{"name": literal, ...}`), for defaults of this type.
    let literal_fields = fields.iter().map(|f| {
        let (ident, name) = (&f.ident, &f.name);
        let literal = match f.requiredness {
            Requiredness::Optional => {
                let literal = literal_of(krate, wire_value(f, quote!(v)));
                quote! {
                    match &self.#ident {
                        ::core::option::Option::Some(v) => ::core::option::Option::Some(#literal?),
                        ::core::option::Option::None => ::core::option::Option::None,
                    }
                }
            }
            _ => {
                let literal = literal_of(krate, wire_value(f, quote!(&self.#ident)));
                quote!(::core::option::Option::Some(#literal?))
            }
        };
        quote!((#name, #literal))
    });
    let literal = impls.composite_literal_impl(quote! {
        ::core::option::Option::Some(#krate::__private::struct_literal(&[#(#literal_fields),*]))
    });
    let exception = impls.exception_impls();
    // An exception is thrown as field 1 `err` of a result struct, or as its `throws(...)`
    // says (a ThriftUnion of exceptions gives one field per variant).
    let thrown = container.attrs.exception.then(|| {
        let (id, name) = match &container.attrs.throws {
            Some((id, name, _)) => (*id, name.clone()),
            None => (1, "err".to_owned()),
        };
        let field = ThrownField { id, name, ty: quote!(Self), pattern: quote!(v) };
        exceptions_impl(&impls, &[field])
    });

    // `with` fields' wire types are their functions' business: their strings are text.
    let shape_fields: Vec<_> = fields
        .iter()
        .filter(|f| f.with.is_none())
        .map(|f| {
            let ty = &f.value_ty;
            (f.id, quote!(#ty))
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
                #(#write_fields)*
                s.finish();
            }

            #[inline]
            fn encoded_len<__P: #krate::Protocol>(&self) -> usize {
                let mut s = #krate::StructSizer::<__P>::new();
                #(#write_fields)*
                s.finish()
            }
        }

        #decode {
            fn decode<__P: #krate::Protocol>(r: &mut #krate::Reader<'__de>) -> #krate::Result<Self> {
                #(#slots)*
                let mut s = #krate::StructDecoder::<__P>::begin(r)?;
                while let ::core::option::Option::Some(field) = s.next_field(r)? {
                    match field.id {
                        #(#arms)*
                        _ => s.skip(r, field)?,
                    }
                }
                ::core::result::Result::Ok(Self { #(#build)* #(#build_skipped)* })
            }
        }

        #exception
        #thrown

        #idl
        #literal
    })
}

/// The local variable that holds a field's value while decoding.
fn slot(field: &Field) -> syn::Ident {
    format_ident!("__field_{}", field.ident)
}

/// `s.field(id, &self.x)`, or only when `Some` for an optional field.
fn write_field(field: &Field) -> TokenStream {
    let id = field.id;
    let span = span_at(&field.value_ty);
    // The member takes the type's location too, so a type without `Encode` is reported on
    // the type alone rather than on a span from the field name to its type.
    let mut member = field.ident.clone();
    member.set_span(span);
    match field.requiredness {
        Requiredness::Optional => {
            let value = wire_value(field, quote!(v));
            quote_spanned! {span=>
                if let ::core::option::Option::Some(v) = &self.#member {
                    s.field(#id, #value);
                }
            }
        }
        _ => {
            let value = wire_value(field, quote_spanned!(span=> &self.#member));
            quote_spanned!(span=> s.field(#id, #value);)
        }
    }
}

/// What is on the wire for `value` (a reference to the field's value): the value itself, or
/// for a `with` field a reference to what its `encode` makes of it.
fn wire_value(field: &Field, value: TokenStream) -> TokenStream {
    match &field.with {
        Some(WithFns { encode, .. }) => quote!(&(#encode)(#value)),
        None => value,
    }
}

/// The field's default in the IDL, an `Option<String>` expression: a literal as written; any
/// other expression evaluated and rendered when it has a literal (`IdlLiteral`: numbers,
/// strings, derived enums and collections of them; `CompositeLiteral`: derived structs,
/// unions and newtypes, collections of them); for a `with` field, the wire value its
/// `encode` makes of the default.
fn idl_default(krate: &syn::Path, field: &Field) -> TokenStream {
    let Some(default) = &field.default else { return quote!(::core::option::Option::None) };
    let ty = &field.value_ty;
    match (&field.with, idl_literal(default)) {
        (Some(WithFns { encode, .. }), _) => {
            let value = default_value(default, ty);
            let literal = literal_of(krate, quote!(&wire));
            quote! {{
                let value: #ty = #value;
                let wire = (#encode)(&value);
                #literal
            }}
        }
        (None, Some(lit)) => {
            quote!(::core::option::Option::Some(<::std::string::String as ::core::convert::From<&str>>::from(#lit)))
        }
        (None, None) => {
            let value = default_value(default, ty);
            let literal = literal_of(krate, quote!(&value));
            quote! {{
                let value: #ty = #value;
                #literal
            }}
        }
    }
}
