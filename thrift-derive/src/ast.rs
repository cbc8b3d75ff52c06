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
    /// The `///` doc comment, for the IDL.
    pub doc: String,
    /// `skip`: never on the wire, built from `default` or `Default::default()`.
    pub skip: bool,
    /// `with`, or `encode_with` and `decode_with`: the field is on the wire as the value
    /// these functions exchange.
    pub with: Option<WithFns>,
}

/// The two functions of a `with` field.
pub struct WithFns {
    /// `fn(&T) -> W`, `W` a Thrift type.
    pub encode: syn::Path,
    /// `fn(W) -> Result<T, E>`, `E: Display`.
    pub decode: syn::Path,
}

/// The functions `with`, `encode_with` and `decode_with` name, or `None` (with errors for a
/// half or doubly given pair).
fn with_fns(cx: &mut Ctxt, attrs: &MemberAttrs, ident: &Ident) -> Option<WithFns> {
    let narrow = |path: &(syn::Path, proc_macro2::Span)| path.0.clone();
    match (&attrs.with, &attrs.encode_with, &attrs.decode_with) {
        (None, None, None) => None,
        (Some((module, span)), None, None) => {
            // `module::encode`, spanned at the attribute's string like the module.
            let in_module = |f: &str| {
                let mut path = module.clone();
                path.segments.push(syn::PathSegment::from(Ident::new(f, *span)));
                path
            };
            Some(WithFns { encode: in_module("encode"), decode: in_module("decode") })
        }
        (Some((_, with_span)), encode, decode) => {
            let span = encode.as_ref().or(decode.as_ref()).map_or(*with_span, |(_, span)| *span);
            cx.push(syn::Error::new(
                span,
                format!(
                    "field `{ident}` has `with`, which names both functions (`encode` and `decode` in the module): \
                     drop `encode_with`/`decode_with`, or `with`"
                ),
            ));
            None
        }
        (None, Some(encode), Some(decode)) => Some(WithFns { encode: narrow(encode), decode: narrow(decode) }),
        (None, Some((_, span)), None) | (None, None, Some((_, span))) => {
            cx.push(syn::Error::new(
                *span,
                format!(
                    "field `{ident}` needs both `encode_with` and `decode_with`: the two functions agree on the wire \
                     value, so what one peer writes the other reads (for a module with `encode` and `decode`, use \
                     `with = \"module\"`)"
                ),
            ));
            None
        }
    }
}

/// The one field of a `transparent` newtype.
pub struct Transparent {
    pub member: syn::Member,
    pub ty: Type,
}

pub struct EnumVariant {
    pub ident: Ident,
    pub name: String,
    pub value: Expr,
    pub doc: String,
}

pub struct UnionVariant {
    pub ident: Ident,
    pub name: String,
    /// The field name when the union is a method's error type, in `throws (...)`: `name`
    /// when given, else the variant in the union's `rename_all` case, else in snake_case
    /// (`NotFound(NotFoundError)` is thrown as `not_found`), as IDL fields are spelled.
    pub thrown_name: String,
    pub id: i16,
    pub ty: Type,
    pub doc: String,
}

pub struct Container<'a> {
    pub input: &'a DeriveInput,
    pub attrs: ContainerAttrs,
    /// The IDL name.
    pub name: String,
    /// The `///` doc comment, for the IDL.
    pub doc: String,
}

/// The text of the `///` comments (`#[doc = "..."]`) in `attrs`, one line each, without the
/// space rustdoc's convention puts after `///`.
pub fn doc_of(attrs: &[syn::Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(syn::MetaNameValue {
            value: Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }),
            ..
        }) = &attr.meta
        {
            let value = s.value();
            // `split`, not `lines`: an empty `///` is a blank line of the comment.
            for line in value.split('\n') {
                lines.push(line.strip_prefix(' ').unwrap_or(line).to_owned());
            }
        }
    }
    lines.join("\n")
}

impl<'a> Container<'a> {
    fn new(cx: &mut Ctxt, input: &'a DeriveInput) -> Self {
        let attrs = attr::container(cx, &input.attrs);
        let name = attrs.name.clone().unwrap_or_else(|| input.ident.to_string());
        crate::keywords::check(cx, &input.ident, "type", &name);
        Container { input, attrs, name, doc: doc_of(&input.attrs) }
    }
}

/// The IDL name of a member: its `name` attribute, else its Rust name without `r#`, in the
/// container's `rename_all` case.
fn member_name(container: &ContainerAttrs, attrs: &MemberAttrs, ident: &Ident) -> String {
    attrs.name.clone().unwrap_or_else(|| {
        let rust = ident.to_string().trim_start_matches("r#").to_owned();
        match container.rename_all {
            Some(rule) => rule.apply(&rust),
            None => rust,
        }
    })
}

/// Tokens that only carry `span`, for errors about an attribute.
fn span_tokens(span: proc_macro2::Span) -> proc_macro2::TokenStream {
    quote::quote_spanned!(span=> throws)
}

/// Reports container attributes that do not apply to `what`.
fn reject_container_attrs(cx: &mut Ctxt, attrs: &ContainerAttrs, what: &str, closed_ok: bool, transparent_ok: bool) {
    if let (Some(span), false) = (attrs.closed, closed_ok) {
        cx.push(syn::Error::new(span, format!("`closed` is for ThriftEnum and ThriftUnion, not {what}")));
    }
    if let (Some(span), false) = (attrs.transparent, transparent_ok) {
        cx.push(syn::Error::new(span, format!("`transparent` is for a ThriftStruct newtype, not {what}")));
    }
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

/// The one field of a `#[thrift(transparent)]` struct, or `None` (with errors) when it has
/// not exactly one.
pub fn parse_transparent(cx: &mut Ctxt, input: &DeriveInput) -> Option<Transparent> {
    let Data::Struct(data) = &input.data else {
        cx.error(&input.ident, "`transparent` is for a struct with exactly one field");
        return None;
    };
    let mut fields = data.fields.iter();
    let (Some(field), None) = (fields.next(), fields.next()) else {
        cx.error(&input.ident, "a `transparent` struct has exactly one field: the value it is on the wire");
        return None;
    };
    let attrs = attr::member(cx, &field.attrs);
    if attrs.id.is_some() || attrs.required.is_some() || attrs.optional.is_some() || attrs.default.is_some() {
        cx.error(
            field,
            "the field of a `transparent` struct is the value itself: it takes no id, requiredness or default",
        );
    }
    reject_with(cx, &attrs, "the field of a `transparent` struct (implement the traits by hand instead)");
    if let Some(message) = unsupported_type(&field.ty) {
        cx.error(&field.ty, message);
    }
    let member = match &field.ident {
        Some(ident) => syn::Member::Named(ident.clone()),
        None => syn::Member::Unnamed(syn::Index::from(0)),
    };
    Some(Transparent { member, ty: field.ty.clone() })
}

pub fn parse_struct<'a>(cx: &mut Ctxt, input: &'a DeriveInput) -> (Container<'a>, Vec<Field>) {
    let container = Container::new(cx, input);
    reject_container_attrs(cx, &container.attrs, "a struct", false, true);
    if container.attrs.transparent.is_some() {
        return (container, Vec::new());
    }
    if let (false, false) = (container.attrs.display, container.attrs.exception) {
        cx.error(&input.ident, "`display = false` is for an `exception`, which otherwise derives Display");
    }
    if let Some((_, name, span)) = &container.attrs.throws {
        if !container.attrs.exception {
            cx.push(syn::Error::new(
                *span,
                "`throws(...)` names the field an `exception` is thrown as; this struct is not one",
            ));
        }
        crate::keywords::check_with(cx, span_tokens(*span), "thrown field", name, "throws(name = \"...\")");
    }
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
        if let Some(span) = attrs.skip {
            reject_with(cx, &attrs, "a `skip` field, which is not on the wire");
            if attrs.id.is_some() || attrs.required.is_some() || attrs.optional.is_some() {
                cx.push(syn::Error::new(
                    span,
                    format!("field `{ident}` is `skip`: it is not on the wire, so it takes no id or requiredness"),
                ));
            }
            fields.push(Field {
                name: member_name(&container.attrs, &attrs, &ident),
                id: 0,
                requiredness: Requiredness::Default,
                value_ty: field.ty.clone(),
                default: attrs.default,
                doc: String::new(),
                skip: true,
                with: None,
                ident,
            });
            continue;
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
        let with = with_fns(cx, &attrs, &ident);
        fields.push(Field {
            name: member_name(&container.attrs, &attrs, &ident),
            id,
            requiredness,
            value_ty: inner.unwrap_or(&field.ty).clone(),
            default: attrs.default,
            doc: doc_of(&field.attrs),
            skip: false,
            with,
            ident,
        });
    }
    for f in fields.iter().filter(|f| !f.skip) {
        crate::keywords::check(cx, &f.ident, "field", &f.name);
    }
    check_unique_ids(
        cx,
        fields.iter().filter(|f| !f.skip).map(|f| (f.id, &f.ident as &dyn ToTokens, f.ident.to_string())),
    );
    (container, fields)
}

pub fn parse_enum<'a>(cx: &mut Ctxt, input: &'a DeriveInput) -> (Container<'a>, Vec<EnumVariant>, Option<Ident>) {
    let container = Container::new(cx, input);
    reject_container_attrs(cx, &container.attrs, "an enum", true, false);
    let mut variants = Vec::new();
    let mut unknown: Option<Ident> = None;
    let mut marked = false;
    let Data::Enum(data) = &input.data else {
        cx.error(&input.ident, "ThriftEnum is for fieldless enums with explicit discriminants");
        return (container, variants, unknown);
    };
    for variant in &data.variants {
        let attrs = attr::member(cx, &variant.attrs);
        reject_skip(cx, &attrs);
        marked |= attrs.unknown.is_some();
        if attrs.unknown.is_some() {
            if !holds(&variant.fields, "i32") {
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
            name: member_name(&container.attrs, &attrs, &variant.ident),
            ident: variant.ident.clone(),
            value: value.clone(),
            doc: doc_of(&variant.attrs),
        });
    }
    for v in &variants {
        crate::keywords::check(cx, &v.ident, "variant", &v.name);
    }
    check_open_or_closed(cx, &container, unknown.as_ref(), marked, "Unknown(i32)", "values");
    (container, variants, unknown)
}

/// Every enum and union says what becomes of what a newer peer adds: kept in a declared
/// `unknown` variant, or rejected (`closed`). A derive cannot add the variant itself, and a
/// silent strict default would break old readers the day a peer evolves.
fn check_open_or_closed(
    cx: &mut Ctxt,
    container: &Container<'_>,
    unknown: Option<&Ident>,
    marked: bool,
    example: &str,
    what: &str,
) {
    let ident = &container.input.ident;
    match (unknown, container.attrs.closed) {
        // A variant marked `unknown` but malformed already has its own error.
        (None, None) if !marked => cx.error(
            ident,
            format!(
                "`{ident}` must say what happens to {what} a newer peer adds: declare a variant \
                 `#[thrift(unknown)] {example}` to keep them, or put `#[thrift(closed)]` on `{ident}` to reject them"
            ),
        ),
        (Some(unknown), Some(_)) => {
            cx.error(unknown, format!("`{ident}` is `closed`, so it has no `unknown` variant: drop one or the other"))
        }
        _ => {}
    }
}

/// `skip` and `with` are for struct fields: every variant of an enum or union is a value it
/// can hold, of a Thrift type.
fn reject_skip(cx: &mut Ctxt, attrs: &MemberAttrs) {
    if let Some(span) = attrs.skip {
        cx.push(syn::Error::new(span, "`skip` is for struct fields, not variants"));
    }
    reject_with(cx, attrs, "a variant (wrap the value in a struct field or a `transparent` newtype)");
}

/// Reports `with`, `encode_with` and `decode_with` on `what`, which cannot have them.
pub fn reject_with(cx: &mut Ctxt, attrs: &MemberAttrs, what: &str) {
    for (attr, given) in
        [("with", &attrs.with), ("encode_with", &attrs.encode_with), ("decode_with", &attrs.decode_with)]
    {
        if let Some((_, span)) = given {
            cx.push(syn::Error::new(*span, format!("`{attr}` is for struct fields, not {what}")));
        }
    }
}

/// Whether an enum is a `ThriftEnum` (every variant a unit, but the `unknown` one) rather
/// than a `ThriftUnion` (variants that hold values).
pub fn is_thrift_enum(data: &syn::DataEnum) -> bool {
    data.variants.iter().all(|v| {
        matches!(v.fields, Fields::Unit)
            || (holds(&v.fields, "i32") && v.attrs.iter().any(|a| a.path().is_ident("thrift") && is_unknown(a)))
    })
}

/// Whether a `#[thrift(...)]` attribute says `unknown`.
fn is_unknown(attr: &syn::Attribute) -> bool {
    let mut unknown = false;
    // Errors are the Thrift derive's to report; here a malformed attribute is not `unknown`.
    let _ = attr.parse_nested_meta(|meta| {
        unknown |= meta.path.is_ident("unknown");
        if meta.input.peek(syn::Token![=]) {
            let _: Expr = meta.value()?.parse()?;
        }
        Ok(())
    });
    unknown
}

/// Whether a variant holds exactly one value of the type spelled `ty`.
fn holds(fields: &Fields, ty: &str) -> bool {
    matches!(fields, Fields::Unnamed(f) if f.unnamed.len() == 1 && f.unnamed[0].ty.to_token_stream().to_string() == ty)
}

pub fn parse_union<'a>(cx: &mut Ctxt, input: &'a DeriveInput) -> (Container<'a>, Vec<UnionVariant>, Option<Ident>) {
    let container = Container::new(cx, input);
    reject_container_attrs(cx, &container.attrs, "a union", true, false);
    let mut variants = Vec::new();
    let mut unknown: Option<Ident> = None;
    let mut marked = false;
    let Data::Enum(data) = &input.data else {
        cx.error(&input.ident, "ThriftUnion is for enums whose variants each hold one value: `#[thrift(id = 1)] A(T)`");
        return (container, variants, unknown);
    };
    for variant in &data.variants {
        let attrs = attr::member(cx, &variant.attrs);
        reject_skip(cx, &attrs);
        marked |= attrs.unknown.is_some();
        if attrs.unknown.is_some() {
            if attrs.id.is_some() {
                cx.error(
                    &variant.ident,
                    "the `unknown` variant has no id: it holds the id of the member it stands for",
                );
            }
            if !holds(&variant.fields, "i16") {
                cx.error(&variant.ident, "the `unknown` variant of a union holds the unknown field id: `Name(i16)`");
            } else if let Some(first) = &unknown {
                cx.error(&variant.ident, format!("only one variant can be `unknown`; `{first}` already is"));
            } else {
                unknown = Some(variant.ident.clone());
            }
            continue;
        }
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
            let thrown_name = match (&attrs.name, container.attrs.rename_all) {
                (None, None) => crate::case::RenameRule::Snake.apply(&variant.ident.to_string()),
                _ => member_name(&container.attrs, &attrs, &variant.ident),
            };
            variants.push(UnionVariant {
                thrown_name,
                name: member_name(&container.attrs, &attrs, &variant.ident),
                ident: variant.ident.clone(),
                id,
                ty,
                doc: doc_of(&variant.attrs),
            });
        }
    }
    for v in &variants {
        crate::keywords::check(cx, &v.ident, "variant", &v.name);
        if v.thrown_name != v.name {
            crate::keywords::check(cx, &v.ident, "variant (as a thrown field)", &v.thrown_name);
        }
    }
    check_unique_ids(cx, variants.iter().map(|v| (v.id, &v.ident as &dyn ToTokens, v.ident.to_string())));
    check_open_or_closed(cx, &container, unknown.as_ref(), marked, "Unknown(i16)", "members");
    (container, variants, unknown)
}
