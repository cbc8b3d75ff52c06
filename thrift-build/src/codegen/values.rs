//! Constants and default values as Rust expressions.
//!
//! A constant is a `pub const` where Rust allows it: numbers, booleans, enum values and
//! uuids as themselves, strings as `&str`, binary as `&[u8]`, lists of those as slices.
//! Anything that allocates (maps, sets, structs, lists of those) is a
//! `pub static NAME: LazyLock<T>`, built on first use.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::items::int_literal;
use super::names::ident;
use super::Gen;
use crate::config::BinaryType;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::resolve::{Const, DefId, Requiredness, StructKind, Type, Value};

/// A double as the shortest literal that reads back as the same `f64`.
fn double_literal(d: f64) -> TokenStream {
    if d.is_infinite() {
        return if d > 0.0 { quote!(f64::INFINITY) } else { quote!(f64::NEG_INFINITY) };
    }
    let text = format!("{:?}", d.abs());
    let lit: Literal = text.parse().unwrap_or_else(|_| Literal::f64_unsuffixed(d.abs()));
    if d.is_sign_negative() {
        quote!(-#lit)
    } else {
        quote!(#lit)
    }
}

impl Gen<'_> {
    pub(super) fn constant(&self, id: DefId, c: &Const, diags: &mut Diagnostics) -> Option<TokenStream> {
        let Some(value) = &c.value else {
            diags.push(Diagnostic::error(c.span, format!("constant `{}` has no valid value", c.name)));
            return None;
        };
        let name = ident(&self.names[&id]);
        let doc = super::doc_attrs(c.doc.as_deref());
        if let Some(ty) = self.const_type(&c.ty) {
            let expr = self.const_expr(value, &c.ty);
            return Some(quote!(#doc pub const #name: #ty = #expr;));
        }
        self.uses.lazy_lock.set(true);
        let ty = self.rust_type(&c.ty);
        let expr = self.value_expr(value, &c.ty);
        Some(quote!(#doc pub static #name: LazyLock<#ty> = LazyLock::new(|| #expr);))
    }

    /// The type of a `pub const` holding a `ty`, when Rust can hold one in a constant.
    fn const_type(&self, ty: &Type) -> Option<TokenStream> {
        match self.program.true_type(ty) {
            Type::Bool | Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::Double | Type::Enum(_) | Type::Uuid => {
                Some(self.rust_type(ty))
            }
            Type::String => Some(quote!(&str)),
            Type::Binary => Some(quote!(&[u8])),
            Type::List(elem) => {
                let elem = self.const_type(elem)?;
                Some(quote!(&[#elem]))
            }
            _ => None,
        }
    }

    /// A value in a `pub const`: literals, `&str`, `&[u8]`, slices.
    fn const_expr(&self, value: &Value, ty: &Type) -> TokenStream {
        match (self.program.true_type(ty), value) {
            (Type::String, Value::String(s)) => quote!(#s),
            (Type::Binary, Value::String(s)) => {
                let lit = Literal::byte_string(s.as_bytes());
                quote!(#lit)
            }
            (Type::List(elem), Value::List(items)) => {
                let items = items.iter().map(|v| self.const_expr(v, elem));
                quote!(&[#(#items),*])
            }
            _ => self.value_expr(value, ty),
        }
    }

    /// A value of `ty` as an expression building it.
    pub(super) fn value_expr(&self, value: &Value, ty: &Type) -> TokenStream {
        self.value_expr_in(value, ty, false)
    }

    /// A value of `ty`, inside a set element or map key when `key` (where a double, as in
    /// the fields of a struct held in one, is an `OrderedDouble`).
    fn value_expr_in(&self, value: &Value, ty: &Type, key: bool) -> TokenStream {
        let program = self.program;
        let double = |d: f64| {
            let lit = double_literal(d);
            if self.ordered(key) {
                quote!(OrderedDouble(#lit))
            } else {
                lit
            }
        };
        match (program.true_type(ty), value) {
            (_, Value::Bool(b)) => quote!(#b),
            (Type::Double, Value::Int(i)) => double(*i as f64),
            (_, Value::Int(i)) => int_literal(*i),
            (_, Value::Double(d)) => double(*d),
            (Type::Binary, Value::String(s)) => {
                let lit = Literal::byte_string(s.as_bytes());
                match self.config.binary_type {
                    BinaryType::Vec => quote!(#lit.to_vec()),
                    BinaryType::Bytes => {
                        self.uses.bytes.set(true);
                        quote!(Bytes::from_static(#lit))
                    }
                }
            }
            (_, Value::String(s)) => {
                if self.config.string_type.is_none() {
                    self.uses.shared_str.set(true);
                    quote!(SharedStr::from_static(#s))
                } else if self.config.string_type.as_deref() == Some("String") {
                    quote!(String::from(#s))
                } else {
                    let ty = self.string_type();
                    quote!(<#ty>::from(#s))
                }
            }
            (_, Value::Uuid(bytes)) => {
                self.uses.uuid.set(true);
                let bytes = bytes.iter().map(|b| Literal::u8_unsuffixed(*b));
                quote!(Uuid([#(#bytes),*]))
            }
            (_, Value::Enum(id, index)) => {
                let path = self.def_path(*id);
                let variant = ident(&self.variants[&(*id, *index)]);
                quote!(#path::#variant)
            }
            (Type::List(elem), Value::List(items) | Value::Set(items)) => {
                if items.is_empty() {
                    return quote!(Vec::new());
                }
                let items = items.iter().map(|v| self.value_expr_in(v, elem, key));
                quote!(vec![#(#items),*])
            }
            (Type::Set(elem), Value::List(items) | Value::Set(items)) => {
                let collection = self.set_collection(elem, key);
                if items.is_empty() {
                    return quote!(#collection::new());
                }
                let items = items.iter().map(|v| self.value_expr_in(v, elem, true));
                quote!(#collection::from([#(#items),*]))
            }
            (Type::Map(k, v), Value::Map(entries)) => {
                let collection = self.map_collection(k, key);
                if entries.is_empty() {
                    return quote!(#collection::new());
                }
                let entries = entries.iter().map(|(entry_key, entry_value)| {
                    let entry_key = self.value_expr_in(entry_key, k, true);
                    let entry_value = self.value_expr_in(entry_value, v, key);
                    quote!((#entry_key, #entry_value))
                });
                quote!(#collection::from([#(#entries),*]))
            }
            (_, Value::Struct(id, given)) => self.in_struct(*id, || self.struct_expr(*id, given)),
            // Only reached for a value the resolver rejected.
            _ => quote!(Default::default()),
        }
    }

    /// A struct literal with every field: the value given, else its IDL default, else
    /// `None` for an optional field, else `Default::default()`.
    fn struct_expr(&self, id: DefId, given: &[(usize, Value)]) -> TokenStream {
        let Some(s) = self.program.struct_def(id) else { return quote!(Default::default()) };
        let path = self.def_path(id);
        if s.kind == StructKind::Union {
            let Some((index, value)) = given.first() else { return quote!(Default::default()) };
            let variant = ident(&self.fields[&(id, *index)]);
            let mut v = self.value_expr(value, &s.fields[*index].ty);
            if self.analysis.repr(id, *index).boxed {
                v = quote!(Box::new(#v));
            }
            return quote!(#path::#variant(#v));
        }
        let fields = s.fields.iter().enumerate().map(|(i, f)| {
            let name = ident(&self.fields[&(id, i)]);
            let repr = self.analysis.repr(id, i);
            let optional = f.requiredness == Requiredness::Optional || repr.forced_optional;
            let value = given.iter().find(|(g, _)| *g == i).map(|(_, v)| v).or(f.default.as_ref());
            let expr = match value {
                Some(v) => {
                    let mut e = self.value_expr(v, &f.ty);
                    if repr.boxed {
                        e = quote!(Box::new(#e));
                    }
                    if optional {
                        e = quote!(Some(#e));
                    }
                    e
                }
                None if optional => quote!(None),
                None => quote!(Default::default()),
            };
            quote!(#name: #expr)
        });
        quote!(#path { #(#fields),* })
    }
}
