//! The syntax tree of one IDL file, as written: names unresolved, every node with its span.

use crate::diagnostics::Span;

/// A name and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name, dots included (`shared.Thing`).
    pub name: String,
    /// Where.
    pub span: Span,
}

/// `( key = "value", ... )` after a type, field or definition. A key without a value gets
/// `"1"`, as in Apache's compiler.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    /// The key, dots included.
    pub key: Ident,
    /// The value.
    pub value: String,
}

/// One IDL file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// The doc comment of the file itself (before its first header).
    pub doc: Option<String>,
    /// The headers: includes, namespaces, `cpp_include`s.
    pub headers: Vec<Header>,
    /// The definitions, in order.
    pub definitions: Vec<Definition>,
}

/// What comes before the definitions.
#[derive(Clone, Debug, PartialEq)]
pub enum Header {
    /// `include "path"`.
    Include {
        /// The path as written.
        path: String,
        /// Where.
        span: Span,
    },
    /// `cpp_include "path"`.
    CppInclude(String),
    /// `namespace scope name`; `scope` is `*` for every language.
    Namespace {
        /// `rs`, `java`, `*`...
        scope: String,
        /// The namespace.
        name: String,
        /// Annotations after it.
        annotations: Vec<Annotation>,
        /// Where.
        span: Span,
    },
}

/// A type as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    /// What type.
    pub kind: TypeKind,
    /// Annotations after it: `list<i32> (cpp.template = "std::list")`.
    pub annotations: Vec<Annotation>,
    /// Where.
    pub span: Span,
}

/// The kinds of types.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// `bool`.
    Bool,
    /// `i8` or `byte`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `binary`.
    Binary,
    /// `uuid` (Apache 0.19 and later).
    Uuid,
    /// `list<T>`.
    List(Box<Type>),
    /// `set<T>`.
    Set(Box<Type>),
    /// `map<K, V>`.
    Map(Box<Type>, Box<Type>),
    /// A typedef, enum, struct, union or exception, maybe qualified by an include.
    Named(Ident),
}

/// A constant value as written.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstValue {
    /// What value.
    pub kind: ConstKind,
    /// Where.
    pub span: Span,
}

/// The kinds of constant values.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstKind {
    /// An integer; `is_bool` when written `true` or `false`.
    Int {
        /// The value.
        value: i64,
        /// Written as `true` or `false`.
        is_bool: bool,
    },
    /// A double.
    Double(f64),
    /// A string.
    String(String),
    /// A reference to a constant or an enum value.
    Ident(String),
    /// `[a, b]`, for lists and sets.
    List(Vec<ConstValue>),
    /// `{k: v}`, for maps and structs.
    Map(Vec<(ConstValue, ConstValue)>),
}

/// `required`, `optional` or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requiredness {
    /// Always written; an error when absent.
    Required,
    /// Written when set.
    Optional,
    /// Neither word: always written, tolerated when absent.
    Default,
}

/// A field of a struct, union, exception, argument list or `throws`.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The doc comment.
    pub doc: Option<String>,
    /// The id as written, or `None` when left out.
    pub id: Option<(i64, Span)>,
    /// Requiredness.
    pub requiredness: Requiredness,
    /// Where `required`/`optional` is written.
    pub requiredness_span: Option<Span>,
    /// The type.
    pub ty: Type,
    /// Whether the type is followed by `&` (a C++ reference).
    pub reference: bool,
    /// The name.
    pub name: Ident,
    /// `= value`.
    pub default: Option<ConstValue>,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}

/// The three kinds of field lists that define a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructKind {
    /// `struct`.
    Struct,
    /// `union`.
    Union,
    /// `exception`.
    Exception,
}

impl StructKind {
    /// The IDL keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            StructKind::Struct => "struct",
            StructKind::Union => "union",
            StructKind::Exception => "exception",
        }
    }
}

/// A definition.
#[derive(Clone, Debug, PartialEq)]
pub enum Definition {
    /// `const T NAME = value`.
    Const(Const),
    /// `typedef T Name`.
    Typedef(Typedef),
    /// `enum Name { ... }`.
    Enum(Enum),
    /// `struct`, `union` or `exception`.
    Struct(Struct),
    /// `service Name [extends Parent] { ... }`.
    Service(Service),
}

impl Definition {
    /// The defined name.
    pub fn name(&self) -> &Ident {
        match self {
            Definition::Const(c) => &c.name,
            Definition::Typedef(t) => &t.name,
            Definition::Enum(e) => &e.name,
            Definition::Struct(s) => &s.name,
            Definition::Service(s) => &s.name,
        }
    }
}

/// `const T NAME = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Const {
    /// The doc comment.
    pub doc: Option<String>,
    /// The declared type.
    pub ty: Type,
    /// The name.
    pub name: Ident,
    /// The value.
    pub value: ConstValue,
}

/// `typedef T Name`.
#[derive(Clone, Debug, PartialEq)]
pub struct Typedef {
    /// The doc comment.
    pub doc: Option<String>,
    /// The type it names.
    pub ty: Type,
    /// The name.
    pub name: Ident,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}

/// `enum Name { A = 1, B }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Enum {
    /// The doc comment.
    pub doc: Option<String>,
    /// The name.
    pub name: Ident,
    /// The values, in order.
    pub values: Vec<EnumValue>,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}

/// One value of an enum.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumValue {
    /// The doc comment.
    pub doc: Option<String>,
    /// The name.
    pub name: Ident,
    /// The value as written, or `None` for the previous value plus one.
    pub value: Option<(i64, Span)>,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}

/// A `struct`, `union` or `exception`.
#[derive(Clone, Debug, PartialEq)]
pub struct Struct {
    /// The doc comment.
    pub doc: Option<String>,
    /// Which of the three.
    pub kind: StructKind,
    /// The name.
    pub name: Ident,
    /// The fields, in order.
    pub fields: Vec<Field>,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}

/// `service Name extends Parent { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Service {
    /// The doc comment.
    pub doc: Option<String>,
    /// The name.
    pub name: Ident,
    /// The parent service.
    pub extends: Option<Ident>,
    /// The methods, in order.
    pub functions: Vec<Function>,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}

/// One method of a service.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The doc comment.
    pub doc: Option<String>,
    /// `oneway` (or the deprecated `async`).
    pub oneway: bool,
    /// Where `oneway` is written.
    pub oneway_span: Option<Span>,
    /// The return type; `None` for `void`.
    pub returns: Option<Type>,
    /// Where the return type (or `void`) is written.
    pub returns_span: Span,
    /// The name.
    pub name: Ident,
    /// The arguments.
    pub args: Vec<Field>,
    /// The declared exceptions.
    pub throws: Vec<Field>,
    /// Annotations.
    pub annotations: Vec<Annotation>,
}
