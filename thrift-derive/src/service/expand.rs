//! Code generation for `#[service]`: the handler trait, wire types, server dispatcher,
//! typed client and IDL definition.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Path, Type};

use super::model::{Input, Method, Service};

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
    fn args(&self, m: &Method) -> Ident {
        format_ident!("{}Args", upper_camel(&m.ident))
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
    let handler_trait = handler_trait(&Names { service, net: net.clone(), core: core.clone() });
    // Inside the module, types relative to the trait's module reach one level further.
    let deepened = service.deepened();
    let names = Names { service: &deepened, net, core };
    let wire = deepened.methods.iter().map(|m| args_struct(&names, m));
    let server = server(&names);
    let client = client(&names);
    let definition = definition(&names);
    let (vis, module, trait_ident, name) = (&service.item.vis, &service.module, &service.item.ident, &service.name);
    let doc = format!(
        "The `{name}` service's generated items: its [`Server`], typed [`Client`], argument structs and \
         IDL [`Definition`]; the handler trait is [`{trait_ident}`](super::{trait_ident})."
    );
    let idempotent = service.methods.iter().filter(|m| m.idempotent).map(|m| &m.name);
    let inner = inner_vis(&service.item.vis);
    quote! {
        #handler_trait

        #[doc = #doc]
        #vis mod #module {
            // The argument, result and exception types are named as the trait names them.
            #[allow(unused_imports)]
            use super::*;

            /// The IDL names of the methods marked `#[thrift(idempotent)]`: running one twice
            /// does no harm, so a client may send it again after a failure.
            #inner const IDEMPOTENT_METHODS: &[&str] = &[#(#idempotent),*];

            #(#wire)*
            #server
            #client
            #definition
        }
    }
}

/// The visibility of an item in the service's module that is as visible as the trait.
fn inner_vis(vis: &syn::Visibility) -> TokenStream {
    match vis {
        syn::Visibility::Public(_) => quote!(pub),
        syn::Visibility::Inherited => quote!(pub(super)),
        syn::Visibility::Restricted(r) if r.path.is_ident("crate") => quote!(pub(crate)),
        syn::Visibility::Restricted(r) if r.path.is_ident("self") => quote!(pub(super)),
        syn::Visibility::Restricted(r) if r.path.is_ident("super") => quote!(pub(in super::super)),
        syn::Visibility::Restricted(r) => {
            let path = &r.path;
            match path.leading_colon.is_none() && path.segments.first().is_some_and(|s| s.ident == "crate") {
                true => quote!(pub(in #path)),
                // `pub(in self::a)` and the like, relative to the trait's module.
                false => quote!(pub(in super::#path)),
            }
        }
    }
}

/// The trait as users implement it: each `async fn` becomes a method returning a `Send`
/// future, so handlers can run on any tokio worker. It is implemented for `Arc<T>` and
/// `&'static T` of any handler `T`, so a shared handler serves as it is.
fn handler_trait(names: &Names<'_>) -> TokenStream {
    let item = &names.service.item;
    let (attrs, vis, ident, net) = (&item.attrs, &item.vis, &item.ident, &names.net);
    let signatures: Vec<_> = names
        .service
        .methods
        .iter()
        .map(|m| {
            let (name, output) = (&m.ident, &m.output);
            let inputs = m.inputs.iter().map(|input| match input {
                Input::Context(ident) => quote!(#ident: &#net::server::Request),
                Input::Arg(i) => {
                    let (ident, ty) = (&m.args[*i].ident, &m.args[*i].ty);
                    quote!(#ident: #ty)
                }
            });
            quote!(fn #name(&self, #(#inputs),*) -> impl ::core::future::Future<Output = #output> + ::core::marker::Send)
        })
        .collect();
    let methods = names.service.methods.iter().zip(&signatures).map(|(m, signature)| {
        let attrs = &m.attrs;
        quote!(#(#attrs)* #signature;)
    });
    let forwarded = names.service.methods.iter().zip(&signatures).map(|(m, signature)| {
        let (name, inputs) = (&m.ident, input_idents(m));
        quote!(#signature { (**self).#name(#(#inputs),*) })
    });
    let forwarded: Vec<_> = forwarded.collect();
    quote! {
        #(#attrs)*
        #vis trait #ident: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
        }

        impl<T: #ident> #ident for ::std::sync::Arc<T> {
            #(#forwarded)*
        }

        impl<T: #ident> #ident for &'static T {
            #(#forwarded)*
        }
    }
}

/// The handler method's parameter names, in order.
fn input_idents(m: &Method) -> Vec<&Ident> {
    m.inputs
        .iter()
        .map(|input| match input {
            Input::Context(ident) => ident,
            Input::Arg(i) => &m.args[*i].ident,
        })
        .collect()
}

/// The `method_args` struct, derived like any user struct.
fn args_struct(names: &Names<'_>, m: &Method) -> TokenStream {
    let core = &names.core;
    let vis = inner_vis(&names.service.item.vis);
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
    let (trait_ident, name) = (&service.item.ident, &service.name);
    let vis = inner_vis(&service.item.vis);
    let arms = service.methods.iter().map(|m| {
        let (method, method_name) = (&m.ident, &m.name);
        let args_ty = names.args(m);
        let inputs = m.inputs.iter().map(|input| match input {
            Input::Context(_) => quote!(request),
            Input::Arg(i) => {
                let ident = &m.args[*i].ident;
                quote!(args.#ident)
            }
        });
        let call = quote_spanned!(crate::expand::span_at(&m.output)=> handler.#method(#(#inputs),*).await);
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
    let doc = format!(
        "Serves `{name}`: a `tower::Service` of [`Request`]({net}::server::Request)s that dispatches each \
         call to a [`{trait_ident}`] handler, shared by the clones tower makes of it.",
        net = quote!(#net).to_string().replace(' ', "")
    );
    quote! {
        #[doc = #doc]
        #vis struct Server<H> {
            handler: ::std::sync::Arc<H>,
        }

        impl<H> Server<H> {
            /// Serves calls with `handler`.
            pub fn new(handler: H) -> Self {
                Server { handler: ::std::sync::Arc::new(handler) }
            }

            /// Serves calls with a handler already shared.
            pub fn from_arc(handler: ::std::sync::Arc<H>) -> Self {
                Server { handler }
            }

            /// The handler.
            pub fn handler(&self) -> &H {
                &self.handler
            }
        }

        impl<H> ::core::clone::Clone for Server<H> {
            fn clone(&self) -> Self {
                Server { handler: ::std::sync::Arc::clone(&self.handler) }
            }
        }

        impl<H: ::core::fmt::Debug> ::core::fmt::Debug for Server<H> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct("Server").field("handler", &self.handler).finish()
            }
        }

        impl<H> #net::server::NamedService for Server<H> {
            const NAME: &'static str = #name;
        }

        impl<H: #trait_ident> #net::__private::Service<#net::server::Request> for Server<H> {
            type Response = #net::server::Response;
            type Error = ::core::convert::Infallible;
            type Future = #net::__private::Answer;

            fn poll_ready(
                &mut self,
                _: &mut ::core::task::Context<'_>,
            ) -> ::core::task::Poll<::core::result::Result<(), ::core::convert::Infallible>> {
                ::core::task::Poll::Ready(::core::result::Result::Ok(()))
            }

            fn call(&mut self, request: #net::server::Request) -> Self::Future {
                let handler = ::std::sync::Arc::clone(&self.handler);
                ::std::boxed::Box::pin(async move { ::core::result::Result::Ok(dispatch(&*handler, &request).await) })
            }
        }

        /// Decodes the arguments of `request`'s method, calls `handler`, and encodes its
        /// outcome. (The request by reference: an `async fn` keeps two copies of each
        /// argument in its future, boxed for every call.)
        async fn dispatch<H: #trait_ident>(handler: &H, request: &#net::server::Request) -> #net::server::Response {
            // A `Service:` prefix must name this service, as Apache's plain
            // processors answer any other with "unknown method".
            if request.service().is_some_and(|service| service != #name) {
                return request.unknown_method();
            }
            match request.method() {
                #(#arms)*
                _ => request.unknown_method(),
            }
        }
    }
}

fn client(names: &Names<'_>) -> TokenStream {
    let net = &names.net;
    let service = names.service;
    let name = &service.name;
    let vis = inner_vis(&service.item.vis);
    let client = format_ident!("Client");
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
        let mut call = quote!(#net::Call::new(#name, #method_name, #args_ty { #(#arg_names),* }));
        if m.idempotent {
            call = quote!(#call.idempotent());
        }
        let body = if m.oneway {
            quote! {
                #net::__private::send(&self.channel, #call.oneway()).await.map_err(#net::CallError::widen)?;
                ::core::result::Result::Ok(())
            }
        } else {
            quote! {
                #net::__private::call::<_, #ret, #err>(&self.channel, #call).await
            }
        };
        quote! {
            #(#attrs)*
            pub async fn #method(&self, #(#params),*) -> ::core::result::Result<#value, #net::CallError<#err>> {
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
    let name = &service.name;
    let vis = inner_vis(&service.item.vis);
    let ident = format_ident!("Definition");
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
    let doc = format!("The IDL definition of `{name}`: `Idl::new().add_service::<{}::{ident}>()`.", service.module);
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
