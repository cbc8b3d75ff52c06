//! Typedefs, enums, structs, unions and exceptions.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::names::{ident, unraw};
use super::{doc_attrs, Gen};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::resolve::{DefId, Enum, Requiredness, Struct, StructKind, Typedef};

/// `-5` as a minus and a literal, as a person writes it (and as the derive reads it back).
pub fn int_literal(v: i64) -> TokenStream {
    let lit = Literal::u64_unsuffixed(v.unsigned_abs());
    if v < 0 {
        quote!(-#lit)
    } else {
        quote!(#lit)
    }
}

/// `#[thrift(name = "...")]`'s argument, when the Rust name is not the IDL name.
fn name_arg(rust: &str, idl: &str) -> Option<TokenStream> {
    (unraw(rust) != idl).then(|| quote!(name = #idl))
}

impl Gen<'_> {
    pub(super) fn typedef(&self, id: DefId, t: &Typedef) -> TokenStream {
        let doc = doc_attrs(t.doc.as_deref());
        let name = ident(&self.names[&id]);
        let ty = self.rust_type(&t.ty);
        quote!(#doc pub type #name = #ty;)
    }

    fn idl_path(&self, id: DefId) -> String {
        format!("{}.{}", self.program.file(id.file).name, self.program.def(id).name())
    }

    pub(super) fn enumeration(&self, id: DefId, e: &Enum) -> TokenStream {
        self.uses.derive_enum.set(true);
        let name_str = &self.names[&id];
        let name = ident(name_str);
        let doc = doc_attrs(e.doc.as_deref());
        // An enum without values has no unit variant to be the closed form: it is open.
        let open = self.config.open_enums || e.values.is_empty();
        let mut derives = vec![quote!(ThriftEnum), quote!(Debug), quote!(Clone), quote!(Copy), quote!(PartialEq)];
        derives.extend([quote!(Eq), quote!(Hash), quote!(PartialOrd), quote!(Ord)]);
        if !e.values.is_empty() {
            derives.push(quote!(Default));
        }
        let container = self.container_attr(name_arg(name_str, &e.name), false, !open);
        let extra = Self::attributes_for(&self.type_attributes, &self.idl_path(id));
        let repr = open.then(|| quote!(#[repr(i32)]));
        let mut variants = Vec::new();
        let mut first = true;
        for (i, v) in e.values.iter().enumerate() {
            if self.aliases.contains_key(&(id, i)) {
                continue;
            }
            let variant_name = &self.variants[&(id, i)];
            let variant = ident(variant_name);
            let doc = doc_attrs(v.doc.as_deref());
            let default = first.then(|| quote!(#[default]));
            first = false;
            let thrift = name_arg(variant_name, &v.name).map(|n| quote!(#[thrift(#n)]));
            let value = int_literal(i64::from(v.value));
            variants.push(quote!(#doc #default #thrift #variant = #value,));
        }
        if open {
            let other = ident(&self.unknown_variant[&id]);
            // Its discriminant is the last value plus one, unless that overflows: then
            // the first number no value has (it is never seen; the variant holds the value).
            let discriminant = (e.values.last().map(|v| v.value) == Some(i32::MAX)).then(|| {
                let free = (i32::MIN..=i32::MAX).find(|n| e.values.iter().all(|v| v.value != *n)).unwrap_or(0);
                let free = int_literal(i64::from(free));
                quote!(= #free)
            });
            variants.push(quote! {
                /// A value this IDL does not name, such as one a newer peer added.
                #[thrift(unknown)]
                #other(i32) #discriminant,
            });
        }
        let aliases: Vec<TokenStream> = e
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let alias = ident(self.aliases.get(&(id, i))?);
                let variant = ident(&self.variants[&(id, i)]);
                let text = format!(
                    " `{}`: another name for [`{name_str}::{}`], which has the same value.",
                    v.name,
                    self.variants[&(id, i)]
                );
                Some(quote!(#[doc = #text] pub const #alias: #name = #name::#variant;))
            })
            .collect();
        let aliases = (!aliases.is_empty()).then(|| quote!(impl #name { #(#aliases)* }));
        quote! {
            #doc
            #[derive(#(#derives),*)]
            #container
            #extra
            #repr
            pub enum #name {
                #(#variants)*
            }
            #aliases
        }
    }

    /// `#[thrift(name = "...", exception, closed, crate = "...")]`, or nothing.
    fn container_attr(&self, name: Option<TokenStream>, exception: bool, closed: bool) -> TokenStream {
        let mut args: Vec<TokenStream> = name.into_iter().collect();
        if exception {
            args.push(quote!(exception));
        }
        if closed {
            args.push(quote!(closed));
        }
        if let Some(krate) = self.custom_core() {
            args.push(quote!(crate = #krate));
        }
        if args.is_empty() {
            TokenStream::new()
        } else {
            quote!(#[thrift(#(#args),*)])
        }
    }

    /// The core crate's path as a string, when it is not the default `thrift_core`.
    fn custom_core(&self) -> Option<String> {
        let core = &self.core;
        let text = quote!(#core).to_string().replace(' ', "");
        (text != "thrift_core" && text != "::thrift_core").then_some(text)
    }

    pub(super) fn structure(&self, id: DefId, s: &Struct, diags: &mut Diagnostics) -> Option<TokenStream> {
        if s.kind == StructKind::Union && s.fields.is_empty() {
            diags.push(
                Diagnostic::warning(s.span, format!("union `{}` has no fields: generated as an empty struct", s.name))
                    .label("the union derive needs at least one member")
                    .note("the bytes are the same: an empty struct and an empty union are both just a stop field"),
            );
            return self.struct_like(id, s, StructKind::Struct);
        }
        self.struct_like(id, s, s.kind)
    }

    fn struct_like(&self, id: DefId, s: &Struct, kind: StructKind) -> Option<TokenStream> {
        let name_str = &self.names[&id];
        let name = ident(name_str);
        let doc = doc_attrs(s.doc.as_deref());
        let caps = self.analysis.caps_of(id);
        let has_default = self.analysis.has_default(id);
        let idl_defaults = s.fields.iter().any(|f| f.default.is_some());
        let mut derives = Vec::new();
        if kind == StructKind::Union {
            self.uses.derive_union.set(true);
            derives.push(quote!(ThriftUnion));
        } else {
            self.uses.derive_struct.set(true);
            derives.push(quote!(ThriftStruct));
        }
        derives.extend([quote!(Debug), quote!(Clone), quote!(PartialEq)]);
        if caps.eq {
            derives.push(quote!(Eq));
        }
        if caps.hash {
            derives.push(quote!(Hash));
        }
        if caps.ord {
            derives.extend([quote!(PartialOrd), quote!(Ord)]);
        }
        let manual_default = has_default && (kind == StructKind::Union || idl_defaults);
        if has_default && !manual_default {
            derives.push(quote!(Default));
        }
        let open_union = kind == StructKind::Union && self.config.open_enums;
        let closed_union = kind == StructKind::Union && !self.config.open_enums;
        let container = self.container_attr(name_arg(name_str, &s.name), kind == StructKind::Exception, closed_union);
        let idl_path = self.idl_path(id);
        let extra = Self::attributes_for(&self.type_attributes, &idl_path);
        let mut members = Vec::new();
        let mut defaults = Vec::new();
        for (i, f) in s.fields.iter().enumerate() {
            let field_str = &self.fields[&(id, i)];
            let field = ident(field_str);
            let doc = doc_attrs(f.doc.as_deref());
            let repr = self.analysis.repr(id, i);
            let extra = Self::attributes_for(&self.field_attributes, &format!("{idl_path}.{}", f.name));
            let mut ty = self.rust_type(&f.ty);
            if repr.boxed {
                ty = quote!(Box<#ty>);
            }
            let field_id = int_literal(i64::from(f.id));
            let mut args = vec![quote!(id = #field_id)];
            args.extend(name_arg(field_str, &f.name));
            let default_value = f.default.as_ref().map(|v| {
                let v = self.value_expr(v, &f.ty);
                if repr.boxed {
                    quote!(Box::new(#v))
                } else {
                    v
                }
            });
            if kind == StructKind::Union {
                members.push(quote!(#doc #[thrift(#(#args),*)] #extra #field(#ty),));
                continue;
            }
            let optional = f.requiredness == Requiredness::Optional || repr.forced_optional;
            match f.requiredness {
                Requiredness::Required => args.push(quote!(required)),
                _ if optional => {}
                _ => {
                    if let Some(v) = &default_value {
                        args.push(quote!(default = #v));
                    }
                }
            }
            if f.requiredness == Requiredness::Required {
                if let Some(v) = &default_value {
                    args.push(quote!(default = #v));
                }
            }
            if optional {
                ty = quote!(Option<#ty>);
            }
            defaults.push(match (&default_value, optional) {
                (Some(v), true) => quote!(#field: Some(#v)),
                (Some(v), false) => quote!(#field: #v),
                (None, true) => quote!(#field: None),
                (None, false) => quote!(#field: Default::default()),
            });
            members.push(quote!(#doc #[thrift(#(#args),*)] #extra pub #field: #ty,));
        }
        if open_union {
            let unknown = ident(&self.unknown_variant[&id]);
            members.push(quote! {
                /// A member this IDL does not name, such as one a newer peer added: its field id.
                #[thrift(unknown)]
                #unknown(i16),
            });
        }
        let item = if kind == StructKind::Union {
            quote!(pub enum #name { #(#members)* })
        } else {
            quote!(pub struct #name { #(#members)* })
        };
        let default_impl = manual_default.then(|| {
            let body = if kind == StructKind::Union {
                let pick = self.analysis.union_default.get(&id).copied().unwrap_or(0);
                let f = &s.fields[pick];
                let variant = ident(&self.fields[&(id, pick)]);
                let value = match &f.default {
                    Some(v) if self.analysis.repr(id, pick).boxed => {
                        let v = self.value_expr(v, &f.ty);
                        quote!(Box::new(#v))
                    }
                    Some(v) => self.value_expr(v, &f.ty),
                    None => quote!(Default::default()),
                };
                quote!(#name::#variant(#value))
            } else {
                quote!(#name { #(#defaults),* })
            };
            quote! {
                impl Default for #name {
                    fn default() -> Self {
                        #body
                    }
                }
            }
        });
        Some(quote! {
            #doc
            #[derive(#(#derives),*)]
            #container
            #extra
            #item
            #default_impl
        })
    }
}
