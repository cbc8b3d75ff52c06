//! The checked model of a set of IDL files: every name resolved to its definition, field
//! ids assigned, enum values numbered, constants typed.

use std::path::PathBuf;

pub use crate::ast::{Requiredness, StructKind};
use crate::diagnostics::{FileId, SourceMap, Span};

/// A definition: the file it is in and its index among that file's definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId {
    /// The file.
    pub file: FileId,
    /// The index in [`File::definitions`].
    pub index: usize,
}

/// Every file read, each after the files it includes.
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// The text of every file, for diagnostics.
    pub sources: SourceMap,
    /// The files, indexed by [`FileId`].
    pub files: Vec<File>,
    /// The files asked for (the others were included).
    pub roots: Vec<FileId>,
    /// Every file in an order where each comes after those it includes.
    pub order: Vec<FileId>,
}

impl Program {
    /// The file `id`.
    ///
    /// # Panics
    /// When `id` is not a file of this program (a caller's bug, not bad input).
    pub fn file(&self, id: FileId) -> &File {
        &self.files[id.0 as usize]
    }

    /// The definition `id`.
    ///
    /// # Panics
    /// When `id` is not a definition of this program.
    pub fn def(&self, id: DefId) -> &Def {
        &self.file(id.file).definitions[id.index]
    }

    /// The type `ty` names, through every typedef (at most 64 of them: a longer chain is a
    /// cycle, already reported).
    pub fn true_type<'a>(&'a self, mut ty: &'a Type) -> &'a Type {
        for _ in 0..64 {
            match ty {
                Type::Typedef(id) => match self.def(*id) {
                    Def::Typedef(t) => ty = &t.ty,
                    _ => return ty,
                },
                _ => return ty,
            }
        }
        ty
    }

    /// The struct, union or exception `id`, if it is one.
    pub fn struct_def(&self, id: DefId) -> Option<&Struct> {
        match self.def(id) {
            Def::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// The enum `id`, if it is one.
    pub fn enum_def(&self, id: DefId) -> Option<&Enum> {
        match self.def(id) {
            Def::Enum(e) => Some(e),
            _ => None,
        }
    }

    /// How the IDL names `id` from a file that includes its file: `Name` in its own file,
    /// `file.Name` elsewhere.
    pub fn idl_name(&self, id: DefId, from: FileId) -> String {
        let name = self.def(id).name();
        if id.file == from {
            name.to_owned()
        } else {
            format!("{}.{}", self.file(id.file).name, name)
        }
    }
}

/// One IDL file.
#[derive(Debug, Clone)]
pub struct File {
    /// Its id in the source map.
    pub id: FileId,
    /// Its path.
    pub path: PathBuf,
    /// What other files call it: the file name without `.thrift`.
    pub name: String,
    /// Its doc comment.
    pub doc: Option<String>,
    /// The files it includes, with the names they are referred to by.
    pub includes: Vec<Include>,
    /// `namespace` headers: scope (`rs`, `java`, `*`) and name.
    pub namespaces: Vec<(String, String)>,
    /// The definitions, in IDL order.
    pub definitions: Vec<Def>,
}

impl File {
    /// The namespace for `scope` (`rs`, `java`...), else the one for `*`.
    pub fn namespace(&self, scope: &str) -> Option<&str> {
        let find = |s: &str| self.namespaces.iter().find(|(k, _)| k == s).map(|(_, v)| v.as_str());
        find(scope).or_else(|| find("*"))
    }
}

/// An `include` of a file.
#[derive(Debug, Clone)]
pub struct Include {
    /// The included file.
    pub file: FileId,
    /// The name references use: `shared` in `shared.Thing`.
    pub name: String,
    /// Where the include is written.
    pub span: Span,
}

/// A type, resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `bool`.
    Bool,
    /// `i8` (`byte`).
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
    /// `uuid`.
    Uuid,
    /// `list<T>`.
    List(Box<Type>),
    /// `set<T>`.
    Set(Box<Type>),
    /// `map<K, V>`.
    Map(Box<Type>, Box<Type>),
    /// A typedef.
    Typedef(DefId),
    /// An enum.
    Enum(DefId),
    /// A struct, union or exception.
    Struct(DefId),
    /// A type that did not resolve; only in a program with errors.
    Invalid,
}

impl Type {
    /// The IDL keyword of a base type.
    pub fn base_name(&self) -> Option<&'static str> {
        Some(match self {
            Type::Bool => "bool",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::Double => "double",
            Type::String => "string",
            Type::Binary => "binary",
            Type::Uuid => "uuid",
            _ => return None,
        })
    }
}

/// A constant value, checked against its type.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A `bool`.
    Bool(bool),
    /// An integer of any width.
    Int(i64),
    /// A `double`.
    Double(f64),
    /// A `string` or `binary`.
    String(String),
    /// A `uuid`.
    Uuid([u8; 16]),
    /// A `list`.
    List(Vec<Value>),
    /// A `set`, as written: in IDL order, duplicates kept, as in Apache's model (the
    /// generated collection holds each element once).
    Set(Vec<Value>),
    /// A `map`, in IDL order, later duplicate keys replacing earlier ones.
    Map(Vec<(Value, Value)>),
    /// A value of an enum: the enum and the index of the value.
    Enum(DefId, usize),
    /// A struct, union or exception: the fields given, by index, in IDL order.
    Struct(DefId, Vec<(usize, Value)>),
}

/// A definition.
#[derive(Debug, Clone)]
pub enum Def {
    /// `const`.
    Const(Const),
    /// `typedef`.
    Typedef(Typedef),
    /// `enum`.
    Enum(Enum),
    /// `struct`, `union`, `exception`.
    Struct(Struct),
    /// `service`.
    Service(Service),
}

impl Def {
    /// The IDL name.
    pub fn name(&self) -> &str {
        match self {
            Def::Const(d) => &d.name,
            Def::Typedef(d) => &d.name,
            Def::Enum(d) => &d.name,
            Def::Struct(d) => &d.name,
            Def::Service(d) => &d.name,
        }
    }

    /// Where the name is written.
    pub fn span(&self) -> Span {
        match self {
            Def::Const(d) => d.span,
            Def::Typedef(d) => d.span,
            Def::Enum(d) => d.span,
            Def::Struct(d) => d.span,
            Def::Service(d) => d.span,
        }
    }
}

/// `const T NAME = value`.
#[derive(Debug, Clone)]
pub struct Const {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// The declared type.
    pub ty: Type,
    /// The value; `None` when it did not check (an error was reported).
    pub value: Option<Value>,
}

/// `typedef T Name`.
#[derive(Debug, Clone)]
pub struct Typedef {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// The type named.
    pub ty: Type,
}

/// An enum.
#[derive(Debug, Clone)]
pub struct Enum {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// The values, in IDL order.
    pub values: Vec<EnumValue>,
}

impl Enum {
    /// The index of the value named `name`.
    pub fn value_named(&self, name: &str) -> Option<usize> {
        self.values.iter().position(|v| v.name == name)
    }
}

/// One value of an enum.
#[derive(Debug, Clone)]
pub struct EnumValue {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// The number: as written, or one more than the previous.
    pub value: i32,
}

/// A struct, union or exception.
#[derive(Debug, Clone)]
pub struct Struct {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// Which of the three.
    pub kind: StructKind,
    /// The fields, in IDL order.
    pub fields: Vec<Field>,
}

impl Struct {
    /// The index of the field named `name`.
    pub fn field_named(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// A field of a struct, an argument or a declared exception.
#[derive(Debug, Clone)]
pub struct Field {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// The id: as written, or assigned -1, -2... in order when left out.
    pub id: i16,
    /// Whether the id was assigned rather than written.
    pub auto_id: bool,
    /// Requiredness.
    pub requiredness: Requiredness,
    /// The type.
    pub ty: Type,
    /// Where the type is.
    pub ty_span: Span,
    /// The default value.
    pub default: Option<Value>,
}

/// A service.
#[derive(Debug, Clone)]
pub struct Service {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// The parent service.
    pub extends: Option<DefId>,
    /// The methods, in IDL order.
    pub functions: Vec<Function>,
}

/// One method.
#[derive(Debug, Clone)]
pub struct Function {
    /// The name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The doc comment.
    pub doc: Option<String>,
    /// `oneway`.
    pub oneway: bool,
    /// The return type; `None` for `void`.
    pub returns: Option<Type>,
    /// The arguments.
    pub args: Vec<Field>,
    /// The declared exceptions.
    pub throws: Vec<Field>,
}
