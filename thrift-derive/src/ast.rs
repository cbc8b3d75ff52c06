//! A typed, checked model of the deriving type, built from `syn`'s syntax tree.

use quote::ToTokens;
use syn::{Data, DeriveInput, Expr, Fields, GenericArgument, Ident, PathArguments, Type};

use crate::attr::{self, ContainerAttrs, MemberAttrs};
use crate::ctxt::Ctxt;

/// How a struct field behaves when absent on the wire or unset in Rust.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Requiredness {
    /// Always written; an error when absent.
    Required,
    /// An `Option`: written when `Some`; `None` when absent.
    Optional,
    /// Always written; `Default::default()` (or the `default` expression) when absent.
    Default,
}

impl Requiredness {
    pub fn idl(self) -> &'static str {
        match self {
            Requiredness::Required => "required",
            Requiredness::Optional => "optional",
            Requiredness::Default => "",
        }
    }
}

pub struct Field {
    pub ident: Ident,
    /// The IDL name.
    pub name: String,
    pub id: i16,
    pub requiredness: Requiredness,
    /// The type of the value on the wire: the field's type, or `T` for `Option<T>`.
    pub value_ty: Type,
    pub default: Option<Expr>,
}

pub struct EnumVariant {
    pub ident: Ident,
    pub name: String,
    pub value: Expr,
}

pub struct UnionVariant {
    pub ident: Ident,
    pub name: String,
    pub id: i16,
    pub ty: Type,
}

pub struct Container<'a> {
    pub input: &'a DeriveInput,
    pub attrs: ContainerAttrs,
    /// The IDL name.
    pub name: String,
}

impl<'a> Container<'a> {
    fn new(cx: &mut Ctxt, input: &'a DeriveInput) -> Self {
        let attrs = attr::container(cx, &input.attrs);
        let name = attrs.name.clone().unwrap_or_else(|| input.ident.to_string());
        Container { input, attrs, name }
    }
}

/// The IDL name of a member: its `name` attribute, else its Rust name without `r#`.
fn member_name(attrs: &MemberAttrs, ident: &Ident) -> String {
    attrs.name.clone().unwrap_or_else(|| ident.to_string().trim_start_matches("r#").to_owned())
}

/// `ty` without the invisible group a `macro_rules!` `$t:ty` fragment wraps it in, or
/// parentheses, so `Option<T>` passed through a declarative macro is still seen.
fn ungroup(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Group(group) => ty = &group.elem,
            Type::Paren(paren) => ty = &paren.elem,
            _ => return ty,
        }
    }
}

/// `T` when `ty` is spelled `Option<T>` (or `std::option::Option<T>`).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ungroup(ty) else { return None };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// A message for a field type that can never be a Thrift type, or `None`.
pub fn unsupported_type(ty: &Type) -> Option<String> {
    let Type::Path(path) = ungroup(ty) else { return None };
    let ident = path.path.get_ident()?.to_string();
    let hint = match ident.as_str() {
        "u8" => "use i8 for a Thrift `byte`, or Vec<u8>/Bytes for `binary`",
        "u16" => "use i16",
        "u32" => "use i32",
        "u64" => "use i64",
        "usize" | "isize" | "u128" | "i128" => "use i32 or i64",
        "f32" => "use f64 (Thrift `double`)",
        "char" => "use String",
        _ => return None,
    };
    Some(format!("`{ident}` is not a Thrift type (Thrift integers are signed and sized): {hint}"))
}

/// Checks ids are unique across members; `members` yields (id, span source, Rust name).
fn check_unique_ids<'m>(cx: &mut Ctxt, members: impl Iterator<Item = (i16, &'m dyn ToTokens, String)>) {
    let mut seen: Vec<(i16, String)> = Vec::new();
    for (id, span, name) in members {
        match seen.iter().find(|(other, _)| *other == id) {
            Some((_, first)) => cx.error(span, format!("duplicate field id {id}: also used by `{first}`")),
            None => seen.push((id, name)),
        }
    }
}

pub fn parse_struct<'a>(cx: &mut Ctxt, input: &'a DeriveInput) -> (Container<'a>, Vec<Field>) {
    let container = Container::new(cx, input);
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(named),
            Fields::Unnamed(_) => {
                cx.error(&input.ident, "ThriftStruct needs a struct with named fields, not a tuple struct");
                None
            }
            Fields::Unit => {
                cx.error(&input.ident, "ThriftStruct needs a struct with named fields, not a unit struct");
                None
            }
        },
        Data::Enum(_) => {
            cx.error(&input.ident, "ThriftStruct is for structs; use ThriftEnum or ThriftUnion on an enum");
            None
        }
        Data::Union(_) => {
            cx.error(&input.ident, "ThriftStruct is for structs, not Rust unions");
            None
        }
    };
    let mut fields = Vec::new();
    for field in named.into_iter().flat_map(|n| n.named.iter()) {
        let ident = field.ident.clone().expect("named fields have idents");
        let attrs = attr::member(cx, &field.attrs);
        if let Some(span) = attrs.unknown {
            cx.push(syn::Error::new(span, "`unknown` goes on an enum variant, not a struct field"));
        }
        let Some((id, _)) = attrs.id else {
            if !attrs.bad_id {
                cx.error(&ident, format!("field `{ident}` needs an id: #[thrift(id = N)]"));
            }
            continue;
        };
        if let Some(message) = unsupported_type(&field.ty) {
            cx.error(&field.ty, message);
        }
        let inner = option_inner(&field.ty);
        let requiredness = match (inner.is_some(), attrs.required, attrs.optional) {
            (true, Some(span), _) => {
                cx.push(syn::Error::new(
                    span,
                    format!("field `{ident}` is an Option, so it cannot be `required`: drop `required` or the Option"),
                ));
                Requiredness::Required
            }
            (false, _, Some(span)) => {
                cx.push(syn::Error::new(span, format!("`optional` field `{ident}` must have type Option<T>")));
                Requiredness::Optional
            }
            (true, None, _) => Requiredness::Optional,
            (false, Some(_), None) => Requiredness::Required,
            (false, None, None) => Requiredness::Default,
        };
        if let (Some(default), Some(_)) = (&attrs.default, inner) {
            cx.error(default, format!("field `{ident}` is an Option: it is None when absent and takes no `default`"));
        }
        fields.push(Field {
            name: member_name(&attrs, &ident),
            id,
            requiredness,
            value_ty: inner.unwrap_or(&field.ty).clone(),
            default: attrs.default,
            ident,
        });
    }
    check_unique_ids(cx, fields.iter().map(|f| (f.id, &f.ident as &dyn ToTokens, f.ident.to_string())));
    (container, fields)
}

pub fn parse_enum<'a>(cx: &mut Ctxt, input: &'a DeriveInput) -> (Container<'a>, Vec<EnumVariant>, Option<Ident>) {
    let container = Container::new(cx, input);
    let mut variants = Vec::new();
    let mut unknown: Option<Ident> = None;
    let Data::Enum(data) = &input.data else {
        cx.error(&input.ident, "ThriftEnum is for fieldless enums with explicit discriminants");
        return (container, variants, unknown);
    };
    for variant in &data.variants {
        let attrs = attr::member(cx, &variant.attrs);
        if attrs.unknown.is_some() {
            let holds_i32 = matches!(&variant.fields, Fields::Unnamed(f) if f.unnamed.len() == 1
                && f.unnamed[0].ty.to_token_stream().to_string() == "i32");
            if !holds_i32 {
                cx.error(&variant.ident, "the `unknown` variant must hold the value: `Name(i32)`");
            } else if let Some(first) = &unknown {
                cx.error(&variant.ident, format!("only one variant can be `unknown`; `{first}` already is"));
            } else {
                unknown = Some(variant.ident.clone());
            }
            continue;
        }
        if !matches!(variant.fields, Fields::Unit) {
            cx.error(&variant.ident, "ThriftEnum variants hold no data (except one `#[thrift(unknown)] Name(i32)`)");
            continue;
        }
        let Some((_, value)) = &variant.discriminant else {
            cx.error(
                &variant.ident,
                format!("variant `{}` needs an explicit value: `{} = N`", variant.ident, variant.ident),
            );
            continue;
        };
        variants.push(EnumVariant {
            name: member_name(&attrs, &variant.ident),
            ident: variant.ident.clone(),
            value: value.clone(),
        });
    }
    (container, variants, unknown)
}

pub fn parse_union<'a>(cx: &mut Ctxt, input: &'a DeriveInput) -> (Container<'a>, Vec<UnionVariant>) {
    let container = Container::new(cx, input);
    let mut variants = Vec::new();
    let Data::Enum(data) = &input.data else {
        cx.error(&input.ident, "ThriftUnion is for enums whose variants each hold one value: `#[thrift(id = 1)] A(T)`");
        return (container, variants);
    };
    for variant in &data.variants {
        let attrs = attr::member(cx, &variant.attrs);
        let ty = match &variant.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => Some(f.unnamed[0].ty.clone()),
            _ => {
                cx.error(
                    &variant.ident,
                    format!("union variant `{}` must hold exactly one value: `{}(T)`", variant.ident, variant.ident),
                );
                None
            }
        };
        let Some((id, _)) = attrs.id else {
            if !attrs.bad_id {
                cx.error(&variant.ident, format!("union variant `{}` needs an id: #[thrift(id = N)]", variant.ident));
            }
            continue;
        };
        if let Some(ty) = ty {
            if let Some(message) = unsupported_type(&ty) {
                cx.error(&ty, message);
            }
            variants.push(UnionVariant {
                name: member_name(&attrs, &variant.ident),
                ident: variant.ident.clone(),
                id,
                ty,
            });
        }
    }
    check_unique_ids(cx, variants.iter().map(|v| (v.id, &v.ident as &dyn ToTokens, v.ident.to_string())));
    (container, variants)
}
