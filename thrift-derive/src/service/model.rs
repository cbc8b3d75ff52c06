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
}

impl ServiceArgs {
    pub fn parser(&mut self) -> impl syn::parse::Parser<Output = ()> + '_ {
        syn::meta::parser(move |meta| {
            if meta.path.is_ident("name") {
                self.name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("crate") {
                self.krate = Some(meta.value()?.parse::<LitStr>()?.parse::<Path>()?);
            } else {
                return Err(meta.error("unknown service attribute; expected `name` or `crate`"));
            }
            Ok(())
        })
    }
}

pub struct Arg {
    pub ident: Ident,
    /// The IDL name: `#[thrift(name = "...")]`, else the Rust name.
    pub name: String,
    /// The declared type (possibly `Option<T>`).
    pub ty: Type,
    pub id: i16,
    pub optional: bool,
}

pub struct Method {
    pub ident: Ident,
    /// The IDL name.
    pub name: String,
    pub oneway: bool,
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

pub struct Service {
    pub item: ItemTrait,
    pub name: String,
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
    Service { item, name, methods }
}

fn parse_method(cx: &mut Ctxt, f: &TraitItemFn) -> Option<Method> {
    let sig = &f.sig;
    let (thrift_attrs, attrs): (Vec<_>, Vec<_>) = f.attrs.iter().cloned().partition(|a| a.path().is_ident("thrift"));
    let mut name = None;
    let mut oneway = false;
    for a in &thrift_attrs {
        let result = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("oneway") {
                oneway = true;
            } else {
                return Err(meta.error("unknown method attribute; expected `name` or `oneway`"));
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
    for input in inputs {
        let FnArg::Typed(typed) = input else { continue };
        let Pat::Ident(pat) = &*typed.pat else {
            cx.error(&typed.pat, "service arguments must be plain names");
            continue;
        };
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
        args,
        value,
        error,
        attrs,
        output,
    })
}
