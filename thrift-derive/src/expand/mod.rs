//! Code generation: the impls each derive emits, calling `thrift_core`'s public API.

pub mod arbitrary;
mod enums;
mod structs;
mod transparent;
mod unions;

pub use enums::expand_enum;
pub use structs::expand_struct;
pub use transparent::expand_transparent;
pub use unions::expand_union;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
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
        // `bound = "..."`: what the fields need beyond the trait itself (`T: Default` for a
        // generic field of default requiredness), on every impl.
        if let Some(extra) = &self.container.attrs.bound {
            where_clause.predicates.extend(extra.iter().cloned());
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

    /// `IdlType` for the type, defining it as its IDL name with `render` (an expression of
    /// `idl` and `idl_name: &str` giving the definition's text), inside `if_idl!` so it is
    /// compiled only with thrift-core's `idl` feature.
    ///
    /// A generic type is named per instantiation (`Page<Item>` is `Page_Item`, `Page<String>`
    /// is `Page_string`): IDL has no generics, and one name for both would keep only the first.
    pub fn idl_impl(&self, render: TokenStream) -> TokenStream {
        let krate = &self.krate;
        let name = &self.container.name;
        let head = self.head(quote!(#krate::IdlType), quote!(#krate::IdlType), false);
        let params: Vec<_> = self.container.input.generics.type_params().map(|p| &p.ident).collect();
        let idl_name = if params.is_empty() {
            quote!(<::std::string::String as ::core::convert::From<&str>>::from(#name))
        } else {
            quote!(#krate::__private::instantiation_name(#name, &[#(<#params as #krate::IdlType>::idl_type(idl)),*]))
        };
        quote! {
            #krate::__private::if_idl! {
                #head {
                    #[allow(unused_variables)]
                    fn idl_type(idl: &mut #krate::Idl) -> ::std::string::String {
                        let idl_name: ::std::string::String = #idl_name;
                        idl.define_type::<Self>(&idl_name, |idl| {
                            let idl_name: &str = &idl_name;
                            #render
                        });
                        idl_name
                    }
                }
            }
        }
    }

    /// `CompositeLiteral` for the type, its `Option<String>` literal computed by `body` (an
    /// expression of `self`), inside `if_idl!`. No bounds on the fields (see the trait);
    /// type parameters are bound by `IdlLiteral`, so `Page<T>`'s `Vec<T>` has a literal
    /// inside the impl, where a field's literal is looked up generically.
    pub fn composite_literal_impl(&self, body: TokenStream) -> TokenStream {
        let krate = &self.krate;
        let head = self.head(quote!(#krate::__private::CompositeLiteral), quote!(#krate::IdlLiteral), false);
        quote! {
            #krate::__private::if_idl! {
                #head {
                    fn composite_literal(&self) -> ::core::option::Option<::std::string::String> {
                        #body
                    }
                }
            }
        }
    }

    /// The head of an `IdlLiteral` impl.
    pub fn idl_literal_head(&self) -> TokenStream {
        let krate = &self.krate;
        self.head(quote!(#krate::IdlLiteral), quote!(#krate::IdlLiteral), false)
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
        // `display = false`: the user writes a message worth reading; Debug is the fallback.
        let display = self.container.attrs.display.then(|| {
            quote! {
                impl #impl_generics ::core::fmt::Display for #ident #ty_generics #where_clause {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        ::core::fmt::Debug::fmt(self, f)
                    }
                }
            }
        });
        quote! {
            #display
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

/// `tokens` with every span moved to `span`, so an error about them points there.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner = proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = proc_macro2::TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
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
                ::core::result::Result::Err(r.error(#krate::ErrorKind::InvalidData(<::std::string::String as ::core::convert::From<&str>>::from(::core::concat!(#name, " did not derive")))))
            }
        }
        #idl
    })
}

/// `ty`'s JSON shape, `Plain` when it is no Thrift type (that is reported by `Encode` alone).
fn shape_of(krate: &syn::Path, ty: &impl quote::ToTokens) -> TokenStream {
    quote!((&#krate::__private::ShapeOf::<#ty>(::core::marker::PhantomData)).json_shape())
}

/// The hidden `ThriftType::json_shape` of a struct, union or exception: each field's shape by
/// id, from its type's. Read only by the JSON transcoder.
pub fn json_shape_fn(krate: &syn::Path, fields: &[(i16, TokenStream)]) -> TokenStream {
    let arms = fields.iter().map(|(id, ty)| {
        let shape = shape_of(krate, ty);
        quote!(#id => #shape,)
    });
    quote! {
        #[inline]
        fn json_shape() -> #krate::json::Shape {
            #krate::json::Shape::Fields(|id| {
                #[allow(unused_imports)]
                use #krate::__private::{ShapeOfOther as _, ShapeOfThrift as _};
                match id {
                    #(#arms)*
                    _ => #krate::json::Shape::Plain,
                }
            })
        }
    }
}

/// One `IdlField` of a definition, its type spelled by `IdlType`.
pub fn idl_field(
    krate: &impl quote::ToTokens,
    id: i16,
    requiredness: &str,
    ty: &impl quote::ToTokens,
    name: &str,
    default: Option<String>,
    doc: &str,
) -> TokenStream {
    let default = match default {
        Some(lit) => {
            quote!(::core::option::Option::Some(<::std::string::String as ::core::convert::From<&str>>::from(#lit)))
        }
        None => quote!(::core::option::Option::None),
    };
    let ty = quote!(<#ty as #krate::IdlType>::idl_type(idl));
    idl_field_of(krate, id, requiredness, ty, name, default, doc)
}

/// One `IdlField` of a definition, from expressions (of `idl`) for its IDL type and its
/// `Option<String>` default.
pub fn idl_field_of(
    krate: &impl quote::ToTokens,
    id: i16,
    requiredness: &str,
    ty: TokenStream,
    name: &str,
    default: TokenStream,
    doc: &str,
) -> TokenStream {
    quote! {
        #krate::__private::IdlField {
            id: #id,
            requiredness: #requiredness,
            ty: #ty,
            name: #name,
            default: #default,
            doc: #doc,
        }
    }
}

/// An `Option<String>` expression of the IDL literal of the value `value` (an expression,
/// borrowed): `Some` when its type implements `IdlLiteral` or is a derived composite whose
/// set fields all have literals, `None` otherwise.
pub fn literal_of(krate: &impl quote::ToTokens, value: TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use #krate::__private::{NoIdlLiteral as _, ViaComposite as _, ViaIdlLiteral as _};
        (&&&#krate::__private::LiteralOf(#value)).idl_default()
    }}
}

/// The IDL literal for a default expression, when it is a literal: a number, `true`/`false`,
/// a string (IDL has the same double-quoted form), a list `[a, b]` of literals, or `-n`.
/// `None` for anything else (a call, a path), which the IDL then cannot show.
pub fn idl_literal(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(quote_idl_string(&s.value())),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => Some(i.base10_digits().to_owned()),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. }) => Some(f.base10_digits().to_owned()),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) => Some(b.value.to_string()),
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => {
            idl_literal(expr).filter(|lit| lit.starts_with(|c: char| c.is_ascii_digit())).map(|lit| format!("-{lit}"))
        }
        syn::Expr::Array(array) => {
            let items: Option<Vec<String>> = array.elems.iter().map(idl_literal).collect();
            items.map(|items| format!("[{}]", items.join(", ")))
        }
        _ => None,
    }
}

/// `s` as an IDL string literal. Apache's lexer takes everything up to the next `"` and
/// unescapes `\\`, `\"`, `\n`, `\t` and `\r`.
fn quote_idl_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The value of a `default = expr` in Rust: a string, byte string or array literal converts
/// with `From` into the field's type (`"guest"` for a `String`, `Box<str>` or `Arc<str>`,
/// `[1, 2]` for a `Vec` or set), anything else is used as written.
/// Spanned at the expression, so a literal the type cannot be made from is reported there.
pub fn default_value(expr: &syn::Expr, ty: &syn::Type) -> TokenStream {
    let span = span_at(expr);
    let ty = respan(quote!(#ty), span);
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(_), .. }) => {
            quote_spanned!(span=> <#ty as ::core::convert::From<&str>>::from(#expr))
        }
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::ByteStr(_), .. }) => {
            quote_spanned!(span=> <#ty as ::core::convert::From<&[u8]>>::from(&#expr[..]))
        }
        syn::Expr::Array(_) => quote_spanned!(span=> <#ty as ::core::convert::From<_>>::from(#expr)),
        _ => quote!(#expr),
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
    let idl = fields.iter().map(|ThrownField { id, name, ty, .. }| idl_field(krate, *id, "", ty, name, None, ""));
    let shapes = fields.iter().map(|ThrownField { id, ty, .. }| {
        let shape = shape_of(krate, ty);
        quote!(#id => #shape,)
    });
    quote! {
        impl #krate::__private::Exceptions for #ident {
            fn write_fields<__P: #krate::Protocol, __B: #krate::bytes::BufMut + ?::core::marker::Sized>(
                &self,
                s: &mut #krate::StructEncoder<'_, __P, __B>,
            ) {
                #[allow(unreachable_patterns)]
                match self { #(#write)* _ => {} }
            }
            fn size_fields<__P: #krate::Protocol>(&self, s: &mut #krate::StructSizer<__P>) {
                #[allow(unreachable_patterns)]
                match self { #(#write)* _ => {} }
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
            fn json_field_shape(id: i16) -> #krate::json::Shape {
                #[allow(unused_imports)]
                use #krate::__private::{ShapeOfOther as _, ShapeOfThrift as _};
                match id {
                    #(#shapes)*
                    _ => #krate::json::Shape::Plain,
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
