//! The text of IDL definitions, which the derives and the service macro render through.

use super::Idl;

/// One field of a struct, union or exception definition, for [`struct_definition`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdlField {
    /// The field id.
    pub id: i16,
    /// `"required"`, `"optional"` or `""` (default requiredness).
    pub requiredness: &'static str,
    /// The field's IDL type, as [`Idl::type_name`] spells it.
    pub ty: String,
    /// The field's IDL name.
    pub name: &'static str,
    /// The default value as an IDL literal, when it has one.
    pub default: Option<String>,
    /// The field's doc comment (from `///`), `""` for none.
    pub doc: &'static str,
}

/// One method of a service definition, for [`service_definition`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdlMethod {
    /// The method's IDL name.
    pub name: &'static str,
    /// Whether it is `oneway`.
    pub oneway: bool,
    /// The IDL return type (`void` for none).
    pub returns: String,
    /// The arguments.
    pub args: Vec<IdlField>,
    /// The declared exceptions.
    pub throws: Vec<IdlField>,
    /// The method's doc comment, `""` for none.
    pub doc: &'static str,
}

/// The `throws (...)` fields of a method's error type.
pub trait IdlThrows {
    /// The fields, defining their types in `idl`.
    fn idl_throws(idl: &mut Idl) -> Vec<IdlField>;
}

/// `doc` as an IDL doc comment (`/** ... */`, which Apache's compiler attaches to what
/// follows and passes to the generated code) indented by `indent`, or `""` for no doc.
///
/// ```
/// use thrift_core::__private::doc_comment;
/// assert_eq!(doc_comment("One.\nTwo */ three.", "  "), "  /**\n   * One.\n   * Two * / three.\n   */\n");
/// assert_eq!(doc_comment("", ""), "");
/// ```
pub fn doc_comment(doc: &str, indent: &str) -> String {
    if doc.trim().is_empty() {
        return String::new();
    }
    let mut out = format!("{indent}/**\n");
    for line in doc.lines() {
        // `*/` would end the comment early.
        let line = line.replace("*/", "* /");
        let line = line.trim_end();
        if line.is_empty() {
            out.push_str(&format!("{indent} *\n"));
        } else {
            out.push_str(&format!("{indent} * {line}\n"));
        }
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

/// Renders `keyword name { fields }` (`keyword` is `struct`, `union` or `exception`), after
/// its doc comment.
///
/// ```
/// use thrift_core::__private::{struct_definition, IdlField};
/// let field = IdlField { id: 1, requiredness: "required", ty: "string".into(), name: "name", default: None, doc: "" };
/// assert_eq!(struct_definition("struct", "Hello", "", &[field]), "struct Hello {\n  1: required string name\n}\n");
/// ```
pub fn struct_definition(keyword: &str, name: &str, doc: &str, fields: &[IdlField]) -> String {
    let mut out = doc_comment(doc, "");
    out.push_str(&format!("{keyword} {name} {{\n"));
    for f in fields {
        out.push_str(&doc_comment(f.doc, "  "));
        out.push_str(&format!("  {}: ", f.id));
        if !f.requiredness.is_empty() {
            out.push_str(f.requiredness);
            out.push(' ');
        }
        out.push_str(&format!("{} {}", f.ty, f.name));
        if let Some(default) = &f.default {
            out.push_str(&format!(" = {default}"));
        }
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// Renders `enum name { variant = value, ... }`; each variant is (name, value, doc).
///
/// ```
/// use thrift_core::__private::enum_definition;
/// assert_eq!(enum_definition("Color", "", &[("RED", 1, ""), ("GREEN", 2, "")]), "enum Color {\n  RED = 1\n  GREEN = 2\n}\n");
/// ```
pub fn enum_definition(name: &str, doc: &str, variants: &[(&str, i32, &str)]) -> String {
    let mut out = doc_comment(doc, "");
    out.push_str(&format!("enum {name} {{\n"));
    for (variant, value, doc) in variants {
        out.push_str(&doc_comment(doc, "  "));
        out.push_str(&format!("  {variant} = {value}\n"));
    }
    out.push_str("}\n");
    out
}

/// Renders `service name { methods }`.
///
/// ```
/// use thrift_core::__private::{service_definition, IdlField, IdlMethod};
/// let arg = IdlField { id: 1, requiredness: "", ty: "string".into(), name: "who", default: None, doc: "" };
/// let hello =
///     IdlMethod { name: "hello", oneway: false, returns: "string".into(), args: vec![arg], throws: vec![], doc: "" };
/// assert_eq!(service_definition("Greeter", "", &[hello]), "service Greeter {\n  string hello(1: string who)\n}\n");
/// ```
pub fn service_definition(name: &str, doc: &str, methods: &[IdlMethod]) -> String {
    let fields = |fields: &[IdlField]| {
        let rendered: Vec<String> = fields
            .iter()
            .map(|f| {
                let req = if f.requiredness.is_empty() { String::new() } else { format!("{} ", f.requiredness) };
                format!("{}: {req}{} {}", f.id, f.ty, f.name)
            })
            .collect();
        rendered.join(", ")
    };
    let mut out = doc_comment(doc, "");
    out.push_str(&format!("service {name} {{\n"));
    for m in methods {
        out.push_str(&doc_comment(m.doc, "  "));
        out.push_str("  ");
        if m.oneway {
            out.push_str("oneway ");
        }
        out.push_str(&format!("{} {}({})", m.returns, m.name, fields(&m.args)));
        if !m.throws.is_empty() {
            out.push_str(&format!(" throws ({})", fields(&m.throws)));
        }
        out.push('\n');
    }
    out.push_str("}\n");
    out
}
