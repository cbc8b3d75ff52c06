//! Rust names for IDL names: `CamelCase` types and variants, `snake_case` fields, methods
//! and modules, `SHOUTY_CASE` constants; `r#` before a Rust keyword, `_` after the four
//! that cannot be raw (`self`, `Self`, `crate`, `super`); a name already taken in its
//! namespace gets `_` appended until it is free. The IDL name stays on the item as
//! `#[thrift(name = "...")]` wherever the two differ, so the wire never changes.

use std::collections::HashSet;

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

/// Strict and reserved keywords of every edition.
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let",
    "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type",
    "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "crate", "super", "_"];

/// Names the generated code uses unqualified (the prelude, derives, imports): a type of
/// the IDL named like one gets a suffix rather than hide it.
pub const RESERVED_TYPES: &[&str] = &[
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "Default",
    "Clone",
    "Copy",
    "Debug",
    "PartialEq",
    "Eq",
    "Hash",
    "PartialOrd",
    "Ord",
    "Send",
    "Sync",
    "Sized",
    "From",
    "Into",
    "Iterator",
    "Drop",
    "BTreeMap",
    "BTreeSet",
    "HashMap",
    "HashSet",
    "Bytes",
    "SharedStr",
    "Uuid",
    "LazyLock",
    "ThriftStruct",
    "ThriftEnum",
    "ThriftUnion",
    "OrApplication",
    "ApplicationException",
    "OrderedDouble",
    "Ordering",
    "Hasher",
];

/// The case a name is written in.
#[derive(Clone, Copy)]
pub enum Case {
    /// Types, variants.
    Camel,
    /// Fields, methods, arguments, modules.
    Snake,
    /// Constants.
    Shouty,
}

/// `name` in `case`, a valid identifier (raw where it must be).
pub fn convert(name: &str, case: Case) -> String {
    let converted = match case {
        Case::Camel => name.to_upper_camel_case(),
        Case::Snake => name.to_snake_case(),
        Case::Shouty => name.to_shouty_snake_case(),
    };
    // Keep only what an identifier may hold; what heck could leave empty or starting with
    // a digit gets a prefix.
    let mut out: String = converted.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) || out.chars().all(|c| c == '_') {
        out = match case {
            Case::Camel => format!("T{out}"),
            Case::Snake => format!("f_{out}"),
            Case::Shouty => format!("C_{out}"),
        };
    }
    escape(out)
}

/// `r#name` for a keyword, `name_` for one that cannot be raw.
pub fn escape(name: String) -> String {
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// The name without `r#`: what the derives see as the IDL name.
pub fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// An identifier token for a name made by [`convert`] or [`Namespace::claim`].
pub fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// One Rust namespace (a module's types, a struct's fields...): hands out unique names.
#[derive(Default, Clone)]
pub struct Namespace {
    taken: HashSet<String>,
}

impl Namespace {
    /// A namespace where `reserved` are already taken.
    pub fn with_reserved(reserved: &[&str]) -> Namespace {
        Namespace { taken: reserved.iter().map(|s| (*s).to_owned()).collect() }
    }

    /// Whether `name` is free.
    pub fn is_free(&self, name: &str) -> bool {
        !self.taken.contains(unraw(name))
    }

    /// Takes `name`, or `name_`, `name__`... if taken.
    pub fn claim(&mut self, name: String) -> String {
        let mut name = name;
        while !self.is_free(&name) {
            name = escape(format!("{}_", unraw(&name)));
        }
        self.taken.insert(unraw(&name).to_owned());
        name
    }

    /// Marks `name` taken.
    pub fn take(&mut self, name: &str) {
        self.taken.insert(unraw(name).to_owned());
    }
}

/// The `CamelCase` the service macro makes of a method name (`say_hello` → `SayHello`),
/// so the names it derives (`ServiceSayHelloArgs`) can be reserved.
pub fn macro_camel(method: &str) -> String {
    unraw(method)
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// The module `#[service]` puts the items it generates for the trait `name` in, as the
/// macro names it: a word starting at each capital, in snake case (a keyword raw).
pub fn macro_snake(name: &str) -> String {
    let mut module = String::new();
    for c in unraw(name).chars() {
        if c.is_uppercase() && !module.is_empty() && !module.ends_with('_') {
            module.push('_');
        }
        module.extend(c.to_lowercase());
    }
    module
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_and_keywords() {
        assert_eq!(convert("testVoid", Case::Snake), "test_void");
        assert_eq!(convert("type", Case::Snake), "r#type");
        assert_eq!(convert("self", Case::Snake), "self_");
        assert_eq!(convert("Self", Case::Camel), "Self_");
        assert_eq!(convert("crate", Case::Snake), "crate_");
        assert_eq!(convert("NOW_EAT_THIS", Case::Camel), "NowEatThis");
        assert_eq!(convert("myInt", Case::Shouty), "MY_INT");
        assert_eq!(convert("_", Case::Snake), "f_");
        assert_eq!(convert("_1", Case::Camel), "T1");
    }

    #[test]
    fn namespaces_suffix_what_is_taken() {
        let mut ns = Namespace::with_reserved(&["Option"]);
        assert_eq!(ns.claim("Option".into()), "Option_");
        assert_eq!(ns.claim("a".into()), "a");
        assert_eq!(ns.claim("a".into()), "a_");
        assert_eq!(ns.claim("a".into()), "a__");
        assert_eq!(ns.claim("r#type".into()), "r#type");
        assert_eq!(ns.claim("r#type".into()), "type_");
    }

    #[test]
    fn the_macro_camel_case() {
        assert_eq!(macro_camel("test_void"), "TestVoid");
        assert_eq!(macro_camel("r#type"), "Type");
    }
}
