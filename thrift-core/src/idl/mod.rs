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

use std::collections::HashMap;

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
    /// Each defined name, and what defined it when known (a Rust type, a declaration).
    defined: HashMap<String, Option<String>>,
    definitions: Vec<String>,
    conflicts: Vec<String>,
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
        self.define_by(name, None, render);
    }

    /// [`Idl::define`] for the Rust type `T`, which the derives call: another type defining
    /// the same name (two enums both named `Color` in IDL) is not dropped but kept and
    /// reported by [`Idl::conflicts`].
    ///
    /// ```
    /// use thrift_core::Idl;
    /// struct A;
    /// struct B;
    /// let mut idl = Idl::new();
    /// idl.define_type::<A>("Thing", |_| "struct Thing {\n}\n".into());
    /// idl.define_type::<A>("Thing", |_| unreachable!("defined once"));
    /// assert!(idl.conflicts().is_empty());
    /// idl.define_type::<B>("Thing", |_| "enum Thing {\n}\n".into());
    /// assert_eq!(idl.conflicts().len(), 1, "{:?}", idl.conflicts());
    /// assert!(idl.conflicts()[0].starts_with("`Thing` is defined by both "), "{:?}", idl.conflicts());
    /// ```
    pub fn define_type<T: ?Sized>(&mut self, name: &str, render: impl FnOnce(&mut Idl) -> String) {
        self.define_by(name, Some(std::any::type_name::<T>().to_owned()), render);
    }

    /// Defines `name` for `owner` once; a second owner is a conflict, its definition kept so
    /// nothing is silently lost (Apache's compiler then rejects the duplicate too).
    fn define_by(&mut self, name: &str, owner: Option<String>, render: impl FnOnce(&mut Idl) -> String) {
        match self.defined.get(name) {
            None => {
                self.defined.insert(name.to_owned(), owner);
                let text = render(self);
                self.definitions.push(text);
            }
            Some(Some(first)) => {
                let Some(owner) = owner.filter(|owner| owner != first) else { return };
                let conflict =
                    format!("`{name}` is defined by both {first} and {owner}: give one of them another IDL name");
                if !self.conflicts.contains(&conflict) {
                    self.conflicts.push(conflict);
                    let text = render(self);
                    self.definitions.push(text);
                }
            }
            // Defined by something unnamed: the same definition as far as we can tell.
            Some(None) => {}
        }
    }

    /// The names two different things defined (types, typedefs, constants), each as a
    /// message; empty for a document Apache's compiler can take. Both definitions are in the
    /// document, so a conflict is never a silent loss.
    ///
    /// ```
    /// use thrift_core::Idl;
    /// let idl = Idl::new().constant("LIMIT", &1i32).constant("LIMIT", &2i32).clone();
    /// assert_eq!(idl.conflicts(), ["`LIMIT` is defined by both const i32 1 and const i32 2: give one of them another IDL name"]);
    /// assert_eq!(idl.render(), "const i32 LIMIT = 1\n\nconst i32 LIMIT = 2\n");
    /// ```
    pub fn conflicts(&self) -> &[String] {
        &self.conflicts
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
        let owner = format!("typedef {}", std::any::type_name::<T>());
        self.define_by(name, Some(owner), |idl| format!("typedef {} {name}\n", T::idl_type(idl)));
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
        let literal = value.idl_literal();
        let owner = format!("const {} {literal}", std::any::type_name::<T>());
        self.define_by(name, Some(owner), |idl| format!("const {} {name} = {literal}\n", T::idl_type(idl)));
        self
    }

    /// Whether `name` has been defined.
    pub fn is_defined(&self, name: &str) -> bool {
        self.defined.contains_key(name)
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
