//! The words Apache's IDL compiler reserves: a type, field, variant or method named one of
//! them exports IDL that does not parse (`list<User> list()` is a syntax error).

use crate::ctxt::Ctxt;

/// The keywords of Apache Thrift's lexer (`compiler/cpp/src/thrift/thriftl.ll`, 0.17), with
/// `uuid`, a type since 0.19.
const KEYWORDS: &[&str] = &[
    "async",
    "binary",
    "bool",
    "byte",
    "const",
    "cpp_include",
    "cpp_namespace",
    "cpp_type",
    "delphi_namespace",
    "double",
    "enum",
    "exception",
    "extends",
    "false",
    "i16",
    "i32",
    "i64",
    "i8",
    "include",
    "java_package",
    "list",
    "map",
    "namespace",
    "oneway",
    "optional",
    "perl_package",
    "php_namespace",
    "py_module",
    "required",
    "ruby_namespace",
    "senum",
    "service",
    "set",
    "slist",
    "smalltalk_category",
    "smalltalk_prefix",
    "string",
    "struct",
    "throws",
    "true",
    "typedef",
    "union",
    "uuid",
    "void",
    "xsd_all",
    "xsd_attrs",
    "xsd_namespace",
    "xsd_nillable",
    "xsd_optional",
];

/// Reports `name` (the IDL name of `what`) when Apache's compiler reserves it.
pub fn check(cx: &mut Ctxt, span: impl quote::ToTokens, what: &str, name: &str) {
    check_with(cx, span, what, name, "#[thrift(name = \"...\")]");
}

/// [`check`], with `fix` as the attribute that renames it.
pub fn check_with(cx: &mut Ctxt, span: impl quote::ToTokens, what: &str, name: &str, fix: &str) {
    if KEYWORDS.binary_search(&name).is_ok() {
        cx.error(
            span,
            format!(
                "`{name}` is a Thrift IDL keyword, so the exported IDL would not parse: give the {what} another IDL \
                 name with {fix}"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keywords_are_sorted_for_binary_search() {
        assert!(super::KEYWORDS.windows(2).all(|w| w[0] < w[1]));
    }
}
