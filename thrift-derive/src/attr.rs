//! Parsing of `#[thrift(...)]` attributes on containers, fields and variants.

use syn::spanned::Spanned;
use syn::{Attribute, Expr, LitInt, LitStr, Path};

use crate::ctxt::Ctxt;

/// Attributes of the deriving type: `#[thrift(name = "...", exception, crate = "...")]`.
#[derive(Default)]
pub struct ContainerAttrs {
    pub name: Option<String>,
    pub exception: bool,
    pub krate: Option<Path>,
    /// `closed`: an enum or union that rejects values it does not know.
    pub closed: Option<proc_macro2::Span>,
    /// `transparent`: a newtype struct that is its one field on the wire.
    pub transparent: Option<proc_macro2::Span>,
    /// `display = false`: an exception whose `Display` the user writes.
    pub display: bool,
    /// `bound = "T: Trait, ..."`: replaces the inferred bounds on type parameters.
    pub bound: Option<Vec<syn::WherePredicate>>,
    /// `rename_all = "..."`: the case of the IDL names of fields or variants.
    pub rename_all: Option<crate::case::RenameRule>,
    /// `throws(id = N, name = "...")`: the field an exception is thrown as in a method's
    /// result (default `1: err`).
    pub throws: Option<(i16, String, proc_macro2::Span)>,
}

/// Attributes of a struct field or union variant: `#[thrift(id = N, required, optional,
/// default = expr, name = "...")]`; on enum variants, `unknown` and `name`.
#[derive(Default)]
pub struct MemberAttrs {
    /// The id and the literal it came from, for spans.
    pub id: Option<(i16, LitInt)>,
    /// An error was reported in the attribute (a bad id, or a mistake before the id that
    /// stopped parsing), so a missing id is not reported as well.
    pub bad_id: bool,
    pub required: Option<proc_macro2::Span>,
    pub optional: Option<proc_macro2::Span>,
    pub default: Option<Expr>,
    pub name: Option<String>,
    pub unknown: Option<proc_macro2::Span>,
    /// `skip`: not on the wire; `Default::default()` (or `default`) when decoding.
    pub skip: Option<proc_macro2::Span>,
    /// `with = "module"`: the field goes through `module::encode` and `module::decode`.
    pub with: Option<(Path, proc_macro2::Span)>,
    /// `encode_with = "path"`: the function that turns the field into its wire value.
    pub encode_with: Option<(Path, proc_macro2::Span)>,
    /// `decode_with = "path"`: the function that turns the wire value into the field.
    pub decode_with: Option<(Path, proc_macro2::Span)>,
}

/// The path in `name = "path"`, spanned at the string.
fn path_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<(Path, proc_macro2::Span)> {
    let lit = meta.value()?.parse::<LitStr>()?;
    Ok((lit.parse::<Path>()?, lit.span()))
}

fn thrift_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("thrift"))
}

pub fn container(cx: &mut Ctxt, attrs: &[Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs { display: true, ..ContainerAttrs::default() };
    for attr in thrift_attrs(attrs) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                out.name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("exception") {
                out.exception = true;
            } else if meta.path.is_ident("crate") {
                let lit = meta.value()?.parse::<LitStr>()?;
                out.krate = Some(lit.parse::<Path>()?);
            } else if meta.path.is_ident("closed") {
                out.closed = Some(meta.path.span());
            } else if meta.path.is_ident("transparent") {
                out.transparent = Some(meta.path.span());
            } else if meta.path.is_ident("display") {
                out.display = meta.value()?.parse::<syn::LitBool>()?.value;
            } else if meta.path.is_ident("bound") {
                let lit = meta.value()?.parse::<LitStr>()?;
                let parsed = lit
                    .parse_with(syn::punctuated::Punctuated::<syn::WherePredicate, syn::Token![,]>::parse_terminated)?;
                out.bound = Some(parsed.into_iter().collect());
            } else if meta.path.is_ident("throws") {
                let span = meta.path.span();
                let (mut id, mut name) = (1i16, String::from("err"));
                meta.parse_nested_meta(|inner| {
                    if inner.path.is_ident("id") {
                        id = inner.value()?.parse::<LitInt>()?.base10_parse::<i16>()?;
                    } else if inner.path.is_ident("name") {
                        name = inner.value()?.parse::<LitStr>()?.value();
                    } else {
                        return Err(inner.error("expected `id = N` or `name = \"...\"`"));
                    }
                    Ok(())
                })?;
                out.throws = Some((id, name, span));
            } else if meta.path.is_ident("rename_all") {
                let lit = meta.value()?.parse::<LitStr>()?;
                match crate::case::RenameRule::parse(&lit.value()) {
                    Some(rule) => out.rename_all = Some(rule),
                    None => {
                        return Err(syn::Error::new(
                            lit.span(),
                            format!(
                                "unknown rename_all rule `{}`; expected one of {}",
                                lit.value(),
                                crate::case::RenameRule::NAMES
                            ),
                        ))
                    }
                }
            } else {
                return Err(meta.error(
                    "unknown thrift attribute; expected `name`, `exception`, `crate`, `closed`, `transparent`, \
                     `display`, `bound`, `rename_all` or `throws`",
                ));
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    out
}

pub fn member(cx: &mut Ctxt, attrs: &[Attribute]) -> MemberAttrs {
    let mut out = MemberAttrs::default();
    for attr in thrift_attrs(attrs) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("id") {
                let value = meta.value()?;
                let minus = value.parse::<Option<syn::Token![-]>>()?;
                let lit = value.parse::<LitInt>()?;
                let id = lit.base10_parse::<i64>().map(|v| if minus.is_some() { -v } else { v });
                match id.ok().and_then(|v| i16::try_from(v).ok()) {
                    Some(id) => out.id = Some((id, lit)),
                    None => {
                        out.bad_id = true;
                        // Spans the sign too: `-32769`, not `32769`.
                        cx.error(
                            quote::quote!(#minus #lit),
                            "field id out of range: Thrift field ids are i16 (-32768..=32767)",
                        );
                    }
                }
            } else if meta.path.is_ident("required") {
                out.required = Some(meta.path.span());
            } else if meta.path.is_ident("optional") {
                out.optional = Some(meta.path.span());
            } else if meta.path.is_ident("default") {
                out.default = Some(meta.value()?.parse::<Expr>()?);
            } else if meta.path.is_ident("name") {
                out.name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("unknown") {
                out.unknown = Some(meta.path.span());
            } else if meta.path.is_ident("skip") {
                out.skip = Some(meta.path.span());
            } else if meta.path.is_ident("with") {
                out.with = Some(path_value(&meta)?);
            } else if meta.path.is_ident("encode_with") {
                out.encode_with = Some(path_value(&meta)?);
            } else if meta.path.is_ident("decode_with") {
                out.decode_with = Some(path_value(&meta)?);
            } else {
                return Err(meta.error(
                    "unknown thrift attribute; expected `id`, `required`, `optional`, `default`, `name`, `unknown`, \
                     `skip`, `with`, `encode_with` or `decode_with`",
                ));
            }
            Ok(())
        });
        if let Err(e) = result {
            out.bad_id = true;
            cx.push(e);
        }
    }
    out
}
