//! The checked model of a `#[service]` trait: its methods, their arguments, returns and
//! declared exceptions.

use syn::{
    Attribute, FnArg, GenericArgument, Ident, ItemTrait, LitStr, Pat, Path, PathArguments, ReturnType, TraitItem,
    TraitItemFn, Type,
};

use crate::ast::{option_inner, unsupported_type};
use crate::attr;
use crate::ctxt::Ctxt;

/// Arguments of the `#[service(...)]` attribute.
#[derive(Default)]
pub struct ServiceArgs {
    pub name: Option<String>,
    /// The path to `thrift_net`.
    pub krate: Option<Path>,
    /// The name of the module the generated items go in (default: the trait's name in
    /// snake case).
    pub module: Option<Ident>,
}

impl ServiceArgs {
    pub fn parser(&mut self) -> impl syn::parse::Parser<Output = ()> + '_ {
        syn::meta::parser(move |meta| {
            if meta.path.is_ident("name") {
                self.name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("crate") {
                self.krate = Some(meta.value()?.parse::<LitStr>()?.parse::<Path>()?);
            } else if meta.path.is_ident("module") {
                self.module = Some(meta.value()?.parse::<LitStr>()?.parse::<Ident>()?);
            } else {
                return Err(meta.error("unknown service attribute; expected `name`, `module` or `crate`"));
            }
            Ok(())
        })
    }
}

#[derive(Clone)]
pub struct Arg {
    pub ident: Ident,
    /// The IDL name: `#[thrift(name = "...")]`, else the Rust name.
    pub name: String,
    /// The declared type (possibly `Option<T>`).
    pub ty: Type,
    pub id: i16,
    pub optional: bool,
}

#[derive(Clone)]
pub struct Method {
    pub ident: Ident,
    /// The IDL name.
    pub name: String,
    pub oneway: bool,
    /// Running it twice does no harm: a client may send it again after a failure.
    pub idempotent: bool,
    /// The handler's arguments in order: the request context or a Thrift argument.
    pub inputs: Vec<Input>,
    /// The Thrift arguments.
    pub args: Vec<Arg>,
    /// The success type; `None` for `void`.
    pub value: Option<Type>,
    /// The declared error type; `None` when the method returns no `Result`.
    pub error: Option<Type>,
    /// Doc comments and other attributes to keep on the trait method.
    pub attrs: Vec<Attribute>,
    /// The return type as written, for the trait.
    pub output: Type,
}

/// One argument of a handler method.
#[derive(Clone)]
pub enum Input {
    /// The request itself, `#[thrift(context)] request: &Request`: the server passes it, the
    /// client has no such parameter.
    Context(Ident),
    /// The Thrift argument at this index of [`Method::args`].
    Arg(usize),
}

#[derive(Clone)]
pub struct Service {
    pub item: ItemTrait,
    pub name: String,
    /// The module the generated items go in.
    pub module: Ident,
    pub methods: Vec<Method>,
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if t.elems.is_empty())
}

/// `(T, E)` when `ty` is spelled `Result<T, E>`.
fn result_parts(ty: &Type) -> Option<(Type, Type)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    let types: Vec<&Type> =
        args.args.iter().filter_map(|a| if let GenericArgument::Type(t) = a { Some(t) } else { None }).collect();
    match types.as_slice() {
        [value, error] => Some(((*value).clone(), (*error).clone())),
        _ => None,
    }
}

pub fn parse(cx: &mut Ctxt, args: ServiceArgs, item: ItemTrait) -> Service {
    let name = args.name.unwrap_or_else(|| item.ident.to_string());
    let module = args.module.unwrap_or_else(|| {
        let snake = crate::case::RenameRule::Snake.apply(item.ident.to_string().trim_start_matches("r#"));
        // A keyword (`Type` → `type`) is spelled raw; those that cannot be get a `_`.
        match syn::parse_str::<Ident>(&snake) {
            Ok(_) => Ident::new(&snake, item.ident.span()),
            Err(_) if matches!(snake.as_str(), "self" | "super" | "crate") => {
                Ident::new(&format!("{snake}_"), item.ident.span())
            }
            Err(_) => Ident::new_raw(&snake, item.ident.span()),
        }
    });
    if !item.generics.params.is_empty() {
        cx.error(&item.generics, "a service trait cannot be generic");
    }
    let mut methods = Vec::new();
    for trait_item in &item.items {
        match trait_item {
            TraitItem::Fn(f) => {
                if let Some(m) = parse_method(cx, f) {
                    methods.push(m);
                }
            }
            other => cx.error(other, "a service trait holds only `async fn` methods"),
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for m in &methods {
        if seen.contains(&m.name.as_str()) {
            cx.error(&m.ident, format!("duplicate method name `{}`", m.name));
        }
        seen.push(&m.name);
        crate::keywords::check(cx, &m.ident, "method", &m.name);
        for a in &m.args {
            crate::keywords::check(cx, &a.ident, "argument", &a.name);
        }
    }
    crate::keywords::check(cx, &item.ident, "service", &name);
    Service { item, name, module, methods }
}

fn parse_method(cx: &mut Ctxt, f: &TraitItemFn) -> Option<Method> {
    let sig = &f.sig;
    let (thrift_attrs, attrs): (Vec<_>, Vec<_>) = f.attrs.iter().cloned().partition(|a| a.path().is_ident("thrift"));
    let mut name = None;
    let mut oneway = false;
    let mut idempotent = false;
    for a in &thrift_attrs {
        let result = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("oneway") {
                oneway = true;
            } else if meta.path.is_ident("idempotent") {
                idempotent = true;
            } else {
                return Err(meta.error("unknown method attribute; expected `name`, `oneway` or `idempotent`"));
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    if sig.asyncness.is_none() {
        cx.error(sig.fn_token, format!("service method `{}` must be an `async fn`", sig.ident));
    }
    if f.default.is_some() {
        cx.error(&sig.ident, "service methods have no default body");
    }
    if !sig.generics.params.is_empty() {
        cx.error(&sig.generics, "service methods cannot be generic");
    }
    let mut inputs = sig.inputs.iter();
    match inputs.next() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        _ => cx.error(&sig.ident, format!("service method `{}` must take `&self` first", sig.ident)),
    }
    let mut args: Vec<Arg> = Vec::new();
    let mut handler_inputs = Vec::new();
    for input in inputs {
        let FnArg::Typed(typed) = input else { continue };
        let Pat::Ident(pat) = &*typed.pat else {
            cx.error(&typed.pat, "service arguments must be plain names");
            continue;
        };
        if typed.attrs.iter().any(is_context) {
            if handler_inputs.iter().any(|i| matches!(i, Input::Context(_))) {
                cx.error(&pat.ident, "a method takes the request context once");
            }
            if !matches!(&*typed.ty, Type::Reference(r) if r.mutability.is_none()) {
                cx.error(&typed.ty, "the request context is taken by reference: `&thrift_net::server::Request`");
            }
            handler_inputs.push(Input::Context(pat.ident.clone()));
            continue;
        }
        let member = attr::member(cx, &typed.attrs);
        crate::ast::reject_with(cx, &member, "service arguments (give the argument a Thrift type)");
        let Some((id, lit)) = member.id else {
            cx.error(&pat.ident, format!("argument `{}` needs an id: #[thrift(id = N)]", pat.ident));
            continue;
        };
        if let Some(message) = unsupported_type(&typed.ty) {
            cx.error(&typed.ty, message);
        }
        if let Some(other) = args.iter().find(|a| a.id == id) {
            cx.error(&lit, format!("duplicate argument id {id}: also used by `{}`", other.ident));
        }
        handler_inputs.push(Input::Arg(args.len()));
        args.push(Arg {
            name: member.name.clone().unwrap_or_else(|| pat.ident.to_string().trim_start_matches("r#").to_owned()),
            ident: pat.ident.clone(),
            ty: (*typed.ty).clone(),
            id,
            optional: option_inner(&typed.ty).is_some(),
        });
    }
    let output = match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    if matches!(output, Type::ImplTrait(_) | Type::Reference(_) | Type::Infer(_)) {
        cx.error(&output, "a service method returns an owned Thrift type or `Result<T, E>`");
    }
    let (value, error) = match result_parts(&output) {
        Some((value, error)) => (value, Some(error)),
        None => (output.clone(), None),
    };
    if let Some(message) = unsupported_type(&value) {
        cx.error(&value, message);
    }
    let value = (!is_unit(&value)).then_some(value);
    if oneway && (value.is_some() || error.is_some()) {
        cx.error(&output, "a oneway method returns nothing: its caller gets no reply");
    }
    Some(Method {
        name: name.unwrap_or_else(|| sig.ident.to_string()),
        ident: sig.ident.clone(),
        oneway,
        idempotent,
        inputs: handler_inputs,
        args,
        value,
        error,
        attrs,
        output,
    })
}

/// Whether `attr` is `#[thrift(context)]`.
fn is_context(attr: &Attribute) -> bool {
    attr.path().is_ident("thrift") && attr.parse_args::<Ident>().is_ok_and(|ident| ident == "context")
}

impl Service {
    /// The service as the items in its module name its types: a path relative to the
    /// trait's module (`super::x`, `self::x`) gains a `super`.
    pub fn deepened(&self) -> Service {
        let mut service = self.clone();
        for m in &mut service.methods {
            m.args.iter_mut().for_each(|a| deepen(&mut a.ty));
            m.value.iter_mut().for_each(deepen);
            m.error.iter_mut().for_each(deepen);
        }
        service
    }
}

fn deepen(ty: &mut Type) {
    match ty {
        Type::Path(p) => {
            if let Some(q) = &mut p.qself {
                deepen(&mut q.ty);
            }
            deepen_path(&mut p.path);
        }
        Type::Reference(r) => deepen(&mut r.elem),
        Type::Slice(s) => deepen(&mut s.elem),
        Type::Array(a) => deepen(&mut a.elem),
        Type::Paren(p) => deepen(&mut p.elem),
        Type::Group(g) => deepen(&mut g.elem),
        Type::Tuple(t) => t.elems.iter_mut().for_each(deepen),
        _ => {}
    }
}

fn deepen_path(path: &mut Path) {
    if path.leading_colon.is_none() {
        if let Some(first) = path.segments.first_mut() {
            if first.ident == "self" {
                first.ident = Ident::new("super", first.ident.span());
            } else if first.ident == "super" {
                let span = first.ident.span();
                path.segments.insert(0, syn::PathSegment::from(Ident::new("super", span)));
            }
        }
    }
    for segment in &mut path.segments {
        if let PathArguments::AngleBracketed(args) = &mut segment.arguments {
            for arg in &mut args.args {
                if let GenericArgument::Type(t) = arg {
                    deepen(t);
                }
            }
        }
    }
}
