//! Services: a trait under `#[thrift_net::service]`, which generates the server, client
//! and IDL definition from it.
//!
//! `#[service]` has no `extends`: a service's trait holds its parent's methods (the root
//! ancestor's first) followed by its own, so one handler serves them all and one client
//! calls them all, with the names on the wire unchanged. A method's declared exceptions
//! are its error type: the exception struct itself when it declares one named `err` with
//! id 1 (what the derive's `Exceptions` impl writes), else a generated `ThriftUnion` of
//! them, one variant per `throws` field.

use proc_macro2::TokenStream;
use quote::quote;

use super::items::int_literal;
use super::names::{ident, unraw};
use super::{doc_attrs, ErrorUnion, Gen};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::resolve::{Def, DefId, Function, Service};

impl Gen<'_> {
    pub(super) fn service(&self, id: DefId, s: &Service, diags: &mut Diagnostics) -> TokenStream {
        let names = &self.services[&id];
        let trait_name = ident(&names.trait_name);
        let doc = doc_attrs(s.doc.as_deref());
        let mut unions = Vec::new();
        for (f, error) in s.functions.iter().zip(&names.errors) {
            if let Some(error) = error {
                unions.push(self.error_union(s, f, error));
            }
        }
        let mut methods = Vec::new();
        for ancestor in self.ancestors(id) {
            let Def::Service(parent) = self.program.def(ancestor) else { continue };
            for (i, f) in parent.functions.iter().enumerate() {
                methods.push(self.method(ancestor, i, f, diags));
            }
        }
        for (i, f) in s.functions.iter().enumerate() {
            methods.push(self.method(id, i, f, diags));
        }
        let idl_name = &s.name;
        let net = &self.net;
        let net_text = quote!(#net).to_string().replace(' ', "");
        let krate = (net_text != "thrift_net" && net_text != "::thrift_net").then(|| quote!(, crate = #net_text));
        let inherited = self.ancestors(id).last().map(|p| {
            let text = format!(
                " Extends `{}`: its methods come first, as `#[service]` has no `extends`.",
                self.program.def(*p).name()
            );
            let blank = (!doc.is_empty()).then(|| quote!(#[doc = ""]));
            quote!(#blank #[doc = #text])
        });
        quote! {
            #(#unions)*

            #doc
            #inherited
            #[#net::service(name = #idl_name #krate)]
            pub trait #trait_name {
                #(#methods)*
            }
        }
    }

    /// The `ThriftUnion` of what `f` throws.
    fn error_union(&self, s: &Service, f: &Function, error: &ErrorUnion) -> TokenStream {
        self.uses.derive_union.set(true);
        let name = ident(&error.name);
        let text = format!(" What `{}` of `{}` throws: one variant per declared exception.", f.name, s.name);
        let variants = f.throws.iter().zip(&error.variants).map(|(t, variant_name)| {
            let variant = ident(variant_name);
            let ty = self.rust_type(&t.ty);
            let id = int_literal(i64::from(t.id));
            let field_name = &t.name;
            let doc = doc_attrs(t.doc.as_deref());
            quote!(#doc #[thrift(id = #id, name = #field_name)] #variant(#ty),)
        });
        let custom = self.container_attr_exception();
        quote! {
            #[doc = #text]
            #[derive(ThriftUnion, Debug, Clone, PartialEq)]
            #custom
            pub enum #name {
                #(#variants)*
            }
        }
    }

    /// Closed: a reply that throws an exception the method does not declare is an error.
    fn container_attr_exception(&self) -> TokenStream {
        let core = &self.core;
        let text = quote!(#core).to_string().replace(' ', "");
        if text != "thrift_core" && text != "::thrift_core" {
            quote!(#[thrift(exception, closed, crate = #text)])
        } else {
            quote!(#[thrift(exception, closed)])
        }
    }

    /// Method `index` of service `owner`, as a trait method.
    fn method(&self, owner: DefId, index: usize, f: &Function, diags: &mut Diagnostics) -> TokenStream {
        let names = &self.services[&owner];
        let method_name = &names.methods[index];
        let method = ident(method_name);
        let doc = doc_attrs(f.doc.as_deref());
        let mut attr_args = Vec::new();
        // The macro names a method after its identifier as written, `r#` included, so a
        // raw one always gets its name spelled out.
        if method_name.as_str() != f.name {
            let name = &f.name;
            attr_args.push(quote!(name = #name));
        }
        if f.oneway {
            attr_args.push(quote!(oneway));
        }
        let attr = (!attr_args.is_empty()).then(|| quote!(#[thrift(#(#attr_args),*)]));
        let args = f.args.iter().zip(&names.args[index]).map(|(a, arg_name)| {
            if a.default.is_some() && owner.file == self.current.get() {
                diags.push(
                    Diagnostic::warning(a.span, format!("the default value of argument `{}` is not generated", a.name))
                        .label("`#[service]` arguments have no defaults")
                        .note("a caller passes every argument; Apache's generated code behaves the same on the wire"),
                );
            }
            let arg = ident(arg_name);
            let ty = self.rust_type(&a.ty);
            let id = int_literal(i64::from(a.id));
            let name = (unraw(arg_name) != a.name).then(|| {
                let n = &a.name;
                quote!(, name = #n)
            });
            quote!(#[thrift(id = #id #name)] #arg: #ty)
        });
        let value = if f.oneway { None } else { f.returns.as_ref().map(|t| self.rust_type(t)) };
        let error = names.errors[index]
            .as_ref()
            .map(|e| self.path_in(owner, &e.name))
            .or_else(|| f.throws.first().map(|t| self.rust_type(&t.ty)));
        let output = self.method_output(f.oneway, value, error);
        quote! {
            #doc
            #attr
            async fn #method(&self, #(#args),*) #output;
        }
    }

    /// `-> T`, `-> Result<T, E>`, or nothing, as the config asks.
    fn method_output(&self, oneway: bool, value: Option<TokenStream>, error: Option<TokenStream>) -> TokenStream {
        if oneway {
            return TokenStream::new();
        }
        let value_or_unit = value.clone().unwrap_or_else(|| quote!(()));
        match (error, self.config.application_errors) {
            (Some(e), false) => quote!(-> Result<#value_or_unit, #e>),
            (Some(e), true) => {
                self.uses.or_application.set(true);
                quote!(-> Result<#value_or_unit, OrApplication<#e>>)
            }
            (None, true) => {
                self.uses.application_exception.set(true);
                quote!(-> Result<#value_or_unit, ApplicationException>)
            }
            (None, false) => value.map(|v| quote!(-> #v)).unwrap_or_default(),
        }
    }

    /// The path to a generated item `name` of `owner`'s module.
    fn path_in(&self, owner: DefId, name: &str) -> TokenStream {
        let name = ident(name);
        if owner.file == self.current.get() {
            quote!(#name)
        } else {
            let module = ident(&self.modules[owner.file.0 as usize]);
            quote!(super::#module::#name)
        }
    }
}
