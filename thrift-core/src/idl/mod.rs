//! Rendering Thrift IDL from Rust types, so other languages can share them.
//!
//! The schema is kept apart from the wire: [`ThriftType`](crate::ThriftType),
//! [`Encode`](crate::Encode) and [`Decode`](crate::Decode) know only bytes, and [`IdlType`],
//! which the derives emit beside them, knows only how a type is spelled and defined in IDL.

mod defaults;
mod literal;
mod render;
mod std_types;

pub use literal::IdlLiteral;

#[doc(hidden)]
pub use defaults::{
    struct_literal, with_idl_type, CompositeLiteral, LiteralOf, NoIdlLiteral, ViaComposite, ViaIdlLiteral,
};
#[doc(hidden)]
pub use render::{doc_comment, enum_definition, service_definition, struct_definition, IdlField, IdlMethod, IdlThrows};

use std::collections::HashSet;

/// A Rust type with an IDL spelling: `i32`, `list<string>`, or a named definition.
///
/// The derives implement it for structs, unions, exceptions and enums; this crate for the
/// standard types it encodes.
///
/// ```
/// use thrift_core::{Idl, IdlType};
/// let mut idl = Idl::new();
/// assert_eq!(<std::collections::BTreeMap<String, Vec<i64>>>::idl_type(&mut idl), "map<string, list<i64>>");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no Thrift IDL spelling",
    label = "no IDL spelling",
    note = "derive `ThriftStruct`, `ThriftEnum` or `ThriftUnion` for it, implement `IdlType` for a hand-written Thrift type, or turn off thrift-core's `idl` feature"
)]
pub trait IdlType {
    /// The IDL spelling of this type as a field type (`"i32"`, `"list<string>"`,
    /// `"HelloRequest"`), defining it and its dependencies in `idl` first when it is a
    /// named type.
    fn idl_type(idl: &mut Idl) -> String;
}

/// A service's IDL definition, implemented by the service macro.
pub trait ServiceDefinition {
    /// The IDL service name.
    const NAME: &'static str;
    /// Defines the service (and the types it uses) in `idl`.
    fn define(idl: &mut Idl);
}

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
    namespaces: Vec<String>,
    defined: HashSet<String>,
    definitions: Vec<String>,
}

impl Idl {
    /// An empty document.
    pub fn new() -> Idl {
        Idl::default()
    }

    /// Adds `T` and everything it depends on.
    pub fn add<T: IdlType + ?Sized>(&mut self) -> &mut Idl {
        T::idl_type(self);
        self
    }

    /// The IDL spelling of `T`, defining it (and its dependencies) if it is a named type.
    pub fn type_name<T: IdlType + ?Sized>(&mut self) -> String {
        T::idl_type(self)
    }

    /// Adds the service `S` and every type it uses.
    pub fn add_service<S: ServiceDefinition>(&mut self) -> &mut Idl {
        S::define(self);
        self
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

    /// Adds `namespace <scope> <name>` to the document's head (`scope` is a language, `py`,
    /// `java`, ..., or `*`).
    ///
    /// ```
    /// use thrift_core::Idl;
    /// let idl = Idl::new().namespace("py", "accounts").namespace("java", "com.example.accounts").render();
    /// assert_eq!(idl, "namespace py accounts\nnamespace java com.example.accounts\n");
    /// ```
    pub fn namespace(&mut self, scope: &str, name: &str) -> &mut Idl {
        self.namespaces.push(format!("namespace {scope} {name}\n"));
        self
    }

    /// Adds `typedef <T> <name>`: another name for `T` in the schema (a Rust newtype is
    /// better declared `#[thrift(transparent)]`, which exports its own typedef).
    ///
    /// ```
    /// use thrift_core::Idl;
    /// let idl = Idl::new().typedef::<Vec<i64>>("Ids").render();
    /// assert_eq!(idl, "typedef list<i64> Ids\n");
    /// ```
    pub fn typedef<T: IdlType + ?Sized>(&mut self, name: &str) -> &mut Idl {
        self.define(name, |idl| format!("typedef {} {name}\n", T::idl_type(idl)));
        self
    }

    /// Adds `const <T> <name> = <value>`, the value rendered as an IDL literal.
    ///
    /// ```
    /// use thrift_core::Idl;
    /// let idl = Idl::new()
    ///     .constant("MAX_PAGE", &100i32)
    ///     .constant("GREETING", "hi \"you\"")
    ///     .constant("PRIMES", &vec![2i64, 3, 5])
    ///     .render();
    /// assert_eq!(
    ///     idl,
    ///     "const i32 MAX_PAGE = 100\n\nconst string GREETING = \"hi \\\"you\\\"\"\n\nconst list<i64> PRIMES = [2, 3, 5]\n"
    /// );
    /// ```
    pub fn constant<T: IdlType + IdlLiteral + ?Sized>(&mut self, name: &str, value: &T) -> &mut Idl {
        self.define(name, |idl| format!("const {} {name} = {}\n", T::idl_type(idl), value.idl_literal()));
        self
    }

    /// Whether `name` has been defined.
    pub fn is_defined(&self, name: &str) -> bool {
        self.defined.contains(name)
    }

    /// The document: the namespaces, then each definition in dependency order, separated
    /// by blank lines.
    pub fn render(&self) -> String {
        let head = self.namespaces.concat();
        let body = self.definitions.join("\n");
        match (head.is_empty(), body.is_empty()) {
            (false, false) => format!("{head}\n{body}"),
            _ => head + &body,
        }
    }
}
