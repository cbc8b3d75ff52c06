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

    /// Whether `name` has been defined.
    pub fn is_defined(&self, name: &str) -> bool {
        self.defined.contains(name)
    }

    /// The document: each definition in dependency order, separated by blank lines.
    pub fn render(&self) -> String {
        self.definitions.join("\n")
    }
}
