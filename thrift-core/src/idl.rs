//! Rendering Thrift IDL from Rust types, so other languages can share them.

use std::collections::HashSet;

use crate::encode::ThriftType;

/// A Thrift IDL document built from Rust types, each definition after its dependencies.
///
/// Derived types define themselves through [`Idl::define`]; plain types only name
/// themselves.
///
/// ```
/// use thrift_core::Idl;
/// let mut idl = Idl::new();
/// assert_eq!(idl.type_name::<Vec<String>>(), "list<string>");
/// assert_eq!(idl.render(), "");
/// ```
#[derive(Debug, Default, Clone)]
pub struct Idl {
    defined: HashSet<String>,
    definitions: Vec<String>,
}

impl Idl {
    /// An empty document.
    pub fn new() -> Idl {
        Idl::default()
    }

    /// Adds `T` and everything it depends on.
    pub fn add<T: ThriftType + ?Sized>(&mut self) -> &mut Idl {
        T::idl_type(self);
        self
    }

    /// The IDL spelling of `T`, defining it (and its dependencies) if it is a named type.
    pub fn type_name<T: ThriftType + ?Sized>(&mut self) -> String {
        T::idl_type(self)
    }

    /// Defines the named type `name` once: `render` is called the first time only, and may
    /// define dependencies, which then come first in the document. A recursive reference
    /// to `name` while it renders sees it as already defined.
    pub fn define(&mut self, name: &str, render: impl FnOnce(&mut Idl) -> String) {
        if self.defined.insert(name.to_owned()) {
            let text = render(self);
            self.definitions.push(text);
        }
    }

    /// Adds the service `S` and every type it uses.
    pub fn add_service<S: crate::service::ServiceDefinition>(&mut self) -> &mut Idl {
        S::define(self);
        self
    }

    /// Whether `name` has been defined.
    pub fn is_defined(&self, name: &str) -> bool {
        self.defined.contains(name)
    }

    /// The document: each definition in dependency order, separated by blank lines.
    pub fn render(&self) -> String {
        self.definitions.join("\n")
    }
}

/// One field of a struct, union or exception definition, for [`Idl::struct_definition`].
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
    pub default: Option<&'static str>,
}

impl Idl {
    /// Renders `keyword name { fields }` (`keyword` is `struct`, `union` or `exception`).
    ///
    /// ```
    /// use thrift_core::{Idl, IdlField};
    /// let field = IdlField { id: 1, requiredness: "required", ty: "string".into(), name: "name", default: None };
    /// assert_eq!(
    ///     Idl::struct_definition("struct", "Hello", &[field]),
    ///     "struct Hello {\n  1: required string name\n}\n"
    /// );
    /// ```
    pub fn struct_definition(keyword: &str, name: &str, fields: &[IdlField]) -> String {
        let mut out = format!("{keyword} {name} {{\n");
        for f in fields {
            out.push_str(&format!("  {}: ", f.id));
            if !f.requiredness.is_empty() {
                out.push_str(f.requiredness);
                out.push(' ');
            }
            out.push_str(&format!("{} {}", f.ty, f.name));
            if let Some(default) = f.default {
                out.push_str(&format!(" = {default}"));
            }
            out.push('\n');
        }
        out.push_str("}\n");
        out
    }

    /// Renders `enum name { variant = value, ... }`.
    ///
    /// ```
    /// use thrift_core::Idl;
    /// assert_eq!(Idl::enum_definition("Color", &[("RED", 1), ("GREEN", 2)]), "enum Color {\n  RED = 1\n  GREEN = 2\n}\n");
    /// ```
    pub fn enum_definition(name: &str, variants: &[(&str, i32)]) -> String {
        let mut out = format!("enum {name} {{\n");
        for (variant, value) in variants {
            out.push_str(&format!("  {variant} = {value}\n"));
        }
        out.push_str("}\n");
        out
    }
}

/// One method of a service definition, for [`Idl::service_definition`].
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
}

impl Idl {
    /// Renders `service name { methods }`.
    ///
    /// ```
    /// use thrift_core::{Idl, IdlField, IdlMethod};
    /// let arg = IdlField { id: 1, requiredness: "", ty: "string".into(), name: "who", default: None };
    /// let hello = IdlMethod { name: "hello", oneway: false, returns: "string".into(), args: vec![arg], throws: vec![] };
    /// assert_eq!(Idl::service_definition("Greeter", &[hello]), "service Greeter {\n  string hello(1: string who)\n}\n");
    /// ```
    pub fn service_definition(name: &str, methods: &[IdlMethod]) -> String {
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
        let mut out = format!("service {name} {{\n");
        for m in methods {
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
}
