//! `#[derive(ThriftArbitrary)]`: `thrift_core::testing::ThriftArbitrary` and proptest's
//! `Arbitrary` from the same model the Thrift derives use, inside `if_proptest!` so they
//! exist only with thrift-core's `proptest` feature: a library derives it on its types and
//! turns the feature on for its tests alone (a dev-dependency's features apply then).
//!
//! Values respect the Thrift meaning of the type: required and default fields always set,
//! optional ones sometimes absent, `skip` fields at their default, `with` fields made by
//! their `decode` from generated wire values, open enums sometimes an
//! unknown value (never a known one), open unions sometimes their unknown case (as
//! `Unknown(0)`, what an empty union decodes to). Every nested struct or union takes the
//! sizes one level down, so recursion ends where containers are empty and options absent.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{GenericParam, Generics, Ident, WherePredicate};

use super::{default_value, wrap, Impls};
use crate::ast::{Container, EnumVariant, Field, Requiredness, Transparent, UnionVariant};

/// Most strategies proptest combines in one tuple (it implements up to 12).
const TUPLE_MAX: usize = 10;

/// The impl header for `trait_` on the type, lifetimes set to `'static` (a strategy makes
/// owned values; borrowed fields are generated through their owned form), every type
/// parameter bound by `ThriftArbitrary`.
fn head(impls: &Impls<'_>, trait_: TokenStream) -> TokenStream {
    let krate = &impls.krate;
    let input = impls.container.input;
    let ident = &input.ident;
    let mut generics = Generics { where_clause: input.generics.where_clause.clone(), ..Generics::default() };
    let mut args = Vec::new();
    for param in &input.generics.params {
        match param {
            GenericParam::Lifetime(_) => args.push(quote!('static)),
            GenericParam::Type(t) => {
                let mut t = t.clone();
                t.eq_token = None;
                t.default = None;
                let name = &t.ident;
                args.push(quote!(#name));
                generics.params.push(GenericParam::Type(t));
            }
            GenericParam::Const(c) => {
                let mut c = c.clone();
                c.eq_token = None;
                c.default = None;
                let name = &c.ident;
                args.push(quote!(#name));
                generics.params.push(GenericParam::Const(c));
            }
        }
    }
    let type_params: Vec<_> = generics.type_params().map(|p| p.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for param in &type_params {
        let predicate: WherePredicate = syn::parse_quote!(#param: #krate::testing::ThriftArbitrary);
        where_clause.predicates.push(predicate);
    }
    if let Some(extra) = &impls.container.attrs.bound {
        where_clause.predicates.extend(extra.iter().cloned());
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let args = if args.is_empty() { quote!() } else { quote!(<#(#args),*>) };
    quote!(impl #impl_generics #trait_ for #ident #args #where_clause)
}

/// Both impls around `body`, an expression of `sizes: Sizes` giving the strategy.
fn impls_with(impls: &Impls<'_>, body: TokenStream) -> TokenStream {
    let krate = &impls.krate;
    let arbitrary = head(impls, quote!(#krate::testing::ThriftArbitrary));
    let proptest_arbitrary = head(impls, quote!(#krate::__private::proptest::arbitrary::Arbitrary));
    let strategy = quote!(#krate::__private::proptest::strategy::BoxedStrategy<Self>);
    wrap(quote! {
        #krate::__private::if_proptest! {
            #arbitrary {
                #[allow(unused_variables)]
                fn arbitrary_with(sizes: #krate::testing::Sizes) -> #strategy {
                    // For the method calls; a struct's body spells them out.
                    #[allow(unused_imports)]
                    use #krate::__private::proptest::strategy::Strategy as _;
                    #body
                }
            }

            #proptest_arbitrary {
                type Parameters = #krate::testing::Sizes;
                type Strategy = #strategy;

                fn arbitrary_with(sizes: #krate::testing::Sizes) -> #strategy {
                    <Self as #krate::testing::ThriftArbitrary>::arbitrary_with(sizes)
                }
            }
        }
    })
}

/// Strategies combined into one (tuples of at most [`TUPLE_MAX`], nested), and the pattern
/// that destructures its value into `names`.
fn combine(krate: &syn::Path, strategies: &[TokenStream], names: &[Ident]) -> (TokenStream, TokenStream) {
    if strategies.is_empty() {
        return (quote!(#krate::__private::proptest::strategy::Just(())), quote!(()));
    }
    if strategies.len() <= TUPLE_MAX {
        return (quote!((#(#strategies,)*)), quote!((#(#names,)*)));
    }
    let (strategies, patterns): (Vec<_>, Vec<_>) = strategies
        .chunks(TUPLE_MAX)
        .zip(names.chunks(TUPLE_MAX))
        .map(|(strategies, names)| combine(krate, strategies, names))
        .unzip();
    let names: Vec<Ident> = (0..strategies.len()).map(|i| format_ident!("__group{}", i)).collect();
    let (strategy, pattern) = combine(krate, &strategies, &names);
    // Each group's pattern stands where its name was.
    let pattern = substitute(pattern, &names, &patterns);
    (strategy, pattern)
}

/// `pattern` with each identifier of `names` replaced by the matching tokens.
fn substitute(pattern: TokenStream, names: &[Ident], with: &[TokenStream]) -> TokenStream {
    pattern
        .into_iter()
        .map(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) => match names.iter().position(|n| *n == ident) {
                Some(i) => with[i].clone(),
                None => quote!(#ident),
            },
            proc_macro2::TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(group.delimiter(), substitute(group.stream(), names, with));
                inner.set_span(group.span());
                quote!(#inner)
            }
            other => quote!(#other),
        })
        .collect()
}

pub fn expand_struct(container: &Container<'_>, fields: &[Field]) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let (skipped, fields): (Vec<&Field>, Vec<&Field>) = fields.iter().partition(|f| f.skip);
    // Type inference finds each field's type from the struct literal, so no type (which
    // may name the struct's lifetimes) is spelled here.
    let strategies: Vec<_> = fields
        .iter()
        .map(|f| match (&f.with, f.requiredness) {
            // A `with` field: wire values its `decode` accepts, turned into the field.
            (Some(with), Requiredness::Optional) => {
                let decode = &with.decode;
                quote!(#krate::__private::with_optional_strategy(nested, #decode))
            }
            (Some(with), _) => {
                let decode = &with.decode;
                quote!(#krate::__private::with_strategy(nested, #decode))
            }
            (None, Requiredness::Optional) => quote!(#krate::testing::optional(nested)),
            (None, _) => quote!(<_ as #krate::testing::ThriftArbitrary>::arbitrary_with(nested)),
        })
        .collect();
    let names: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("__f{}", i)).collect();
    let (strategy, pattern) = combine(krate, &strategies, &names);
    let build = fields.iter().zip(&names).map(|(f, name)| {
        let ident = &f.ident;
        quote!(#ident: #name,)
    });
    let build_skipped = skipped.iter().map(|f| {
        let (ident, ty) = (&f.ident, &f.value_ty);
        let value = match &f.default {
            Some(default) => default_value(default, ty),
            None => quote!(::core::default::Default::default()),
        };
        quote!(#ident: #value,)
    });
    impls_with(
        &impls,
        quote! {
            let nested = sizes.nested();
            #krate::__private::proptest::strategy::Strategy::boxed(
                #krate::__private::proptest::strategy::Strategy::prop_map(
                    #strategy,
                    |#pattern| Self { #(#build)* #(#build_skipped)* },
                )
            )
        },
    )
}

pub fn expand_transparent(container: &Container<'_>, field: &Transparent) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let build = match &field.member {
        syn::Member::Named(ident) => quote!(Self { #ident: v }),
        syn::Member::Unnamed(_) => quote!(Self(v)),
    };
    // The newtype is its field on the wire: same sizes, same level.
    impls_with(
        &impls,
        quote! {
            <_ as #krate::testing::ThriftArbitrary>::arbitrary_with(sizes).prop_map(|v| #build).boxed()
        },
    )
}

pub fn expand_enum(container: &Container<'_>, variants: &[EnumVariant], unknown: Option<&Ident>) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let proptest = quote!(#krate::__private::proptest);
    let idents: Vec<_> = variants.iter().map(|v| &v.ident).collect();
    let values: Vec<_> = variants.iter().map(|v| &v.value).collect();
    let count = variants.len();
    let indices = 0..count;
    // Shrinks toward the first variant.
    let known = (count > 0).then(|| {
        quote! {
            (0..#count).prop_map(|i| match i {
                #(#indices => Self::#idents,)*
                _ => ::core::unreachable!("the index is below the variant count"),
            }).boxed()
        }
    });
    // An unknown value equal to a known one would decode as that variant.
    let unknown = unknown.map(|u| {
        quote! {
            #proptest::arbitrary::any::<i32>()
                .prop_filter("a known value", |v| ![#(#values),*].contains(v))
                .prop_map(Self::#u)
                .boxed()
        }
    });
    let body = match (known, unknown) {
        (Some(known), Some(unknown)) => {
            quote!(#proptest::strategy::Union::new_weighted(::std::vec![(3, #known), (1, #unknown)]).boxed())
        }
        (Some(one), None) | (None, Some(one)) => one,
        // No value to make: an enum without variants has no Arbitrary.
        (None, None) => return TokenStream::new(),
    };
    impls_with(&impls, body)
}

pub fn expand_union(container: &Container<'_>, variants: &[UnionVariant], unknown: Option<&Ident>) -> TokenStream {
    let impls = Impls::new(container);
    let krate = &impls.krate;
    let proptest = quote!(#krate::__private::proptest);
    if variants.is_empty() && unknown.is_none() {
        return TokenStream::new();
    }
    let members: Vec<_> = variants
        .iter()
        .map(|v| {
            let variant = &v.ident;
            quote!(<_ as #krate::testing::ThriftArbitrary>::arbitrary_with(nested).prop_map(Self::#variant).boxed())
        })
        .collect();
    // An unknown member is not kept, only its id, and encodes as an empty union, which
    // decodes as `Unknown(0)`: the one unknown value that roundtrips.
    let unknown_case = unknown.map(|u| quote!(#proptest::strategy::LazyJust::new(|| Self::#u(0)).boxed()));
    let unknown_arm = unknown_case.iter();
    let bottom = match &unknown_case {
        // At the last level an open union ends recursion in its unknown case.
        Some(case) => case.clone(),
        // A closed one picks members lazily: each is built only when drawn, so a recursive
        // member does not build itself forever and a leaf ends it.
        None => {
            let lazy = members.iter().map(|m| quote!(#krate::__private::Lazy::new(move || #m).boxed()));
            quote!(#proptest::strategy::Union::new(::std::vec![#(#lazy),*]).boxed())
        }
    };
    impls_with(
        &impls,
        quote! {
            let nested = sizes.nested();
            if sizes.at_bottom() {
                return #bottom;
            }
            #proptest::strategy::Union::new(::std::vec![#(#members,)* #(#unknown_arm)*]).boxed()
        },
    )
}
