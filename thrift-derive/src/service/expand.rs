//! Code generation for `#[service]`: the handler trait, wire types, server dispatcher,
//! typed client and IDL definition.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Path, Type};

use super::model::{Method, Service};

/// `say_hello` → `SayHello`.
fn upper_camel(ident: &Ident) -> String {
    ident
        .to_string()
        .trim_start_matches("r#")
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

struct Names<'a> {
    service: &'a Service,
    net: Path,
    core: TokenStream,
}

impl Names<'_> {
    fn prefixed(&self, suffix: &str) -> Ident {
        format_ident!("{}{}", self.service.item.ident, suffix)
    }
    fn args(&self, m: &Method) -> Ident {
        self.prefixed(&format!("{}Args", upper_camel(&m.ident)))
    }
    /// `MethodResult<Returns<T> | Void, E | NoException>` types of a method.
    fn return_field(&self, m: &Method) -> TokenStream {
        let core = &self.core;
        match &m.value {
            Some(ty) => quote!(#core::__private::Returns<#ty>),
            None => quote!(#core::__private::Void),
        }
    }
    fn error(&self, m: &Method) -> TokenStream {
        let core = &self.core;
        match &m.error {
            Some(ty) => quote!(#ty),
            None => quote!(#core::NoException),
        }
    }
}

pub fn expand(service: &Service, net: Path) -> TokenStream {
    let core = quote!(#net::thrift_core);
    let names = Names { service, net, core };
    let handler_trait = handler_trait(&names);
    let wire = service.methods.iter().map(|m| args_struct(&names, m));
    let server = server(&names);
    let client = client(&names);
    let definition = definition(&names);
    quote! {
        #handler_trait
        #(#wire)*
        #server
        #client
        #definition
    }
}

/// The trait as users implement it: each `async fn` becomes a method returning a `Send`
/// future, so handlers can run on any tokio worker.
fn handler_trait(names: &Names<'_>) -> TokenStream {
    let item = &names.service.item;
    let (attrs, vis, ident) = (&item.attrs, &item.vis, &item.ident);
    let methods = names.service.methods.iter().map(|m| {
        let (attrs, name, output) = (&m.attrs, &m.ident, &m.output);
        let args = m.args.iter().map(|a| {
            let (ident, ty) = (&a.ident, &a.ty);
            quote!(#ident: #ty)
        });
        quote! {
            #(#attrs)*
            fn #name(&self, #(#args),*) -> impl ::core::future::Future<Output = #output> + ::core::marker::Send;
        }
    });
    quote! {
        #(#attrs)*
        #vis trait #ident: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }
    }
}

/// The `method_args` struct, derived like any user struct.
fn args_struct(names: &Names<'_>, m: &Method) -> TokenStream {
    let core = &names.core;
    let vis = &names.service.item.vis;
    let ident = names.args(m);
    let idl_name = format!("{}_args", m.name);
    let krate = core.to_string();
    let fields = m.args.iter().map(|a| {
        let (ident, ty, id, name) = (&a.ident, &a.ty, a.id, &a.name);
        let required = (!a.optional).then(|| quote!(, required));
        let doc = format!("Argument {id}, `{name}`.");
        quote!(#[doc = #doc] #[thrift(id = #id, name = #name #required)] pub #ident: #ty)
    });
    let doc = format!("The arguments of `{}`, as the `{}` struct on the wire.", m.name, idl_name);
    quote! {
        #[doc = #doc]
        #[derive(#core::ThriftStruct)]
        #[thrift(crate = #krate, name = #idl_name)]
        #vis struct #ident { #(#fields),* }
    }
}

fn server(names: &Names<'_>) -> TokenStream {
    let (net, core) = (&names.net, &names.core);
    let service = names.service;
    let (vis, trait_ident, name) = (&service.item.vis, &service.item.ident, &service.name);
    let server = names.prefixed("Server");
    let arms = service.methods.iter().map(|m| {
        let (method, method_name) = (&m.ident, &m.name);
        let args_ty = names.args(m);
        let arg_names: Vec<_> = m.args.iter().map(|a| &a.ident).collect();
        let call = quote_spanned!(crate::expand::span_at(&m.output)=> self.handler.#method(#(args.#arg_names),*).await);
        let respond = if m.oneway {
            quote! {
                #call;
                request.no_reply()
            }
        } else {
            let (ret, err) = (names.return_field(m), names.error(m));
            let result = match m.error {
                Some(_) => quote!(#call),
                None => quote!(::core::result::Result::<_, #core::NoException>::Ok(#call)),
            };
            quote!(request.reply_result::<#ret, #err>(#result))
        };
        quote! {
            #method_name => {
                let args: #args_ty = match request.decode_args() {
                    ::core::result::Result::Ok(args) => args,
                    ::core::result::Result::Err(error) => return request.protocol_error(error),
                };
                #respond
            }
        }
    });
    let doc = format!("Serves `{name}` by dispatching each call to a [`{trait_ident}`] handler.");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, Default)]
        #vis struct #server<H> {
            handler: H,
        }

        impl<H> #server<H> {
            /// Serves calls with `handler`.
            pub fn new(handler: H) -> Self {
                #server { handler }
            }

            /// The handler.
            pub fn handler(&self) -> &H {
                &self.handler
            }
        }

        impl<H: #trait_ident> #net::Service for #server<H> {
            const NAME: &'static str = #name;

            fn call(
                &self,
                request: #net::Incoming,
            ) -> impl ::core::future::Future<Output = #net::Outgoing> + ::core::marker::Send + '_ {
                async move {
                    match request.method() {
                        #(#arms)*
                        _ => request.unknown_method(),
                    }
                }
            }
        }
    }
}

fn client(names: &Names<'_>) -> TokenStream {
    let net = &names.net;
    let service = names.service;
    let (vis, name) = (&service.item.vis, &service.name);
    let client = names.prefixed("Client");
    let methods = service.methods.iter().map(|m| {
        let (attrs, method, method_name) = (&m.attrs, &m.ident, &m.name);
        let args_ty = names.args(m);
        let params = m.args.iter().map(|a| {
            let (ident, ty) = (&a.ident, &a.ty);
            quote!(#ident: #ty)
        });
        let arg_names: Vec<_> = m.args.iter().map(|a| &a.ident).collect();
        let (ret, err) = (names.return_field(m), names.error(m));
        let value: Type = m.value.clone().unwrap_or_else(|| syn::parse_quote!(()));
        let body = if m.oneway {
            quote! {
                self.channel.oneway(#name, #method_name, &args).await.map_err(#net::CallError::widen)?;
                ::core::result::Result::Ok(())
            }
        } else {
            quote! {
                let reply = self.channel.call(#name, #method_name, &args).await.map_err(#net::CallError::widen)?;
                reply.into_result::<#ret, #err>()
            }
        };
        quote! {
            #(#attrs)*
            pub async fn #method(&self, #(#params),*) -> ::core::result::Result<#value, #net::CallError<#err>> {
                let args = #args_ty { #(#arg_names),* };
                #body
            }
        }
    });
    let doc = format!(
        "A typed client of `{name}` over any [`Channel`]({}::Channel).",
        quote!(#net).to_string().replace(' ', "")
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        #vis struct #client<C> {
            channel: C,
        }

        impl<C: #net::Channel> #client<C> {
            /// A client calling over `channel`.
            pub fn new(channel: C) -> Self {
                #client { channel }
            }

            /// The channel calls go over.
            pub fn channel(&self) -> &C {
                &self.channel
            }

            #(#methods)*
        }
    }
}

fn definition(names: &Names<'_>) -> TokenStream {
    let core = &names.core;
    let service = names.service;
    let (vis, name) = (&service.item.vis, &service.name);
    let ident = names.prefixed("Definition");
    let service_doc = crate::ast::doc_of(&service.item.attrs);
    let methods = service.methods.iter().map(|m| {
        let (method_name, oneway) = (&m.name, m.oneway);
        let doc = crate::ast::doc_of(&m.attrs);
        let err = names.error(m);
        let args = m.args.iter().map(|a| {
            let value_ty = crate::ast::option_inner(&a.ty).unwrap_or(&a.ty);
            // Apache ignores (and warns about) requiredness on arguments: an `Option`
            // argument is one the caller may leave unset, which default requiredness says.
            crate::expand::idl_field(core, a.id, "", value_ty, &a.name, None, "")
        });
        let returns = match &m.value {
            Some(ty) => quote!(<#ty as #core::IdlType>::idl_type(idl)),
            None => quote!(<::std::string::String as ::core::convert::From<&str>>::from("void")),
        };
        quote! {
            #core::__private::IdlMethod {
                name: #method_name,
                oneway: #oneway,
                returns: #returns,
                args: ::std::vec![#(#args),*],
                throws: <#err as #core::__private::IdlThrows>::idl_throws(idl),
                doc: #doc,
            }
        }
    });
    let doc = format!("The IDL definition of `{name}`: `Idl::new().add_service::<{ident}>()`.");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ident;

        #core::__private::if_idl! {
            impl #core::ServiceDefinition for #ident {
                const NAME: &'static str = #name;

                fn define(idl: &mut #core::Idl) {
                    idl.define(#name, |idl| {
                        let methods = [#(#methods),*];
                        #core::__private::service_definition(#name, #service_doc, &methods)
                    });
                }
            }
        }
    }
}
