//! A recursive-descent parser for the grammar of Apache's `thrifty.yy` (0.17).
//!
//! Written by hand rather than with a combinator crate: the grammar is LL(1) and about
//! thirty rules, and a hand-written parser gives exactly what this crate needs most:
//! messages that say what was expected where, recovery at the next definition so one run
//! reports several mistakes, a nesting bound so hostile input cannot overflow the stack,
//! and no way to panic. Every loop consumes a token or stops.

use crate::ast::*;
use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span};
use crate::lexer::{lex, Tok, Token};

/// The deepest nesting of types (`list<list<...>>`) and constant values accepted; deeper
/// input is an error, not a stack overflow.
pub const MAX_NESTING: u32 = 64;

/// Words Apache's scanner reserves: none can name anything.
const KEYWORDS: &[&str] = &[
    "namespace",
    "cpp_include",
    "cpp_type",
    "xsd_all",
    "xsd_optional",
    "xsd_nillable",
    "xsd_attrs",
    "include",
    "void",
    "bool",
    "byte",
    "i8",
    "i16",
    "i32",
    "i64",
    "double",
    "string",
    "binary",
    "slist",
    "senum",
    "map",
    "list",
    "set",
    "oneway",
    "async",
    "typedef",
    "struct",
    "union",
    "exception",
    "extends",
    "throws",
    "service",
    "enum",
    "const",
    "required",
    "optional",
    "cpp_namespace",
    "java_package",
    "delphi_namespace",
    "php_namespace",
    "py_module",
    "perl_package",
    "ruby_namespace",
    "smalltalk_category",
    "smalltalk_prefix",
    "xsd_namespace",
];

/// The per-language namespace words Apache removed, with the `namespace` scope to use.
const OLD_NAMESPACES: &[(&str, &str)] = &[
    ("cpp_namespace", "cpp"),
    ("java_package", "java"),
    ("delphi_namespace", "delphi"),
    ("php_namespace", "php"),
    ("py_module", "py"),
    ("perl_package", "perl"),
    ("ruby_namespace", "rb"),
    ("smalltalk_category", "st"),
    ("smalltalk_prefix", "st"),
    ("xsd_namespace", "xsd"),
];

const DEFINITION_WORDS: &[&str] = &["const", "typedef", "enum", "senum", "struct", "union", "exception", "service"];
const HEADER_WORDS: &[&str] = &["include", "cpp_include", "namespace"];

/// Parses one file. Syntax errors are reported into `diags`; the document holds every
/// definition that parsed.
pub fn parse(file: FileId, text: &str, diags: &mut Diagnostics) -> Document {
    let tokens = lex(file, text, diags);
    let mut parser = Parser { tokens, pos: 0, doc: None, diags, depth: 0 };
    parser.document()
}

/// The error was reported; the caller recovers.
struct Reported;

type PResult<T> = Result<T, Reported>;

struct Parser<'d> {
    tokens: Vec<Token>,
    pos: usize,
    /// The last doc comment not yet attached to anything.
    doc: Option<String>,
    diags: &'d mut Diagnostics,
    depth: u32,
}

impl Parser<'_> {
    // ---- token access ------------------------------------------------------------------

    /// Moves over doc comments, keeping the last one.
    fn skip_docs(&mut self) {
        while let Some(Token { tok: Tok::Doc(doc), .. }) = self.tokens.get(self.pos) {
            self.doc = Some(doc.clone());
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> &Token {
        self.skip_docs();
        // The lexer always ends with Eof, and `pos` never moves past it.
        let last = self.tokens.len() - 1;
        &self.tokens[self.pos.min(last)]
    }

    fn peek2(&mut self) -> &Tok {
        self.skip_docs();
        let mut i = self.pos + 1;
        while let Some(Token { tok: Tok::Doc(_), .. }) = self.tokens.get(i) {
            i += 1;
        }
        let last = self.tokens.len() - 1;
        &self.tokens[i.min(last)].tok
    }

    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        if token.tok != Tok::Eof {
            self.pos += 1;
        }
        token
    }

    fn take_doc(&mut self) -> Option<String> {
        self.skip_docs();
        self.doc.take()
    }

    fn is_word(&mut self, word: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(w) if w == word)
    }

    fn is_sym(&mut self, c: char) -> bool {
        self.peek().tok == Tok::Sym(c)
    }

    fn eat_sym(&mut self, c: char) -> bool {
        if self.is_sym(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, word: &str) -> Option<Span> {
        if self.is_word(word) {
            Some(self.next().span)
        } else {
            None
        }
    }

    fn error_here(&mut self, expected: &str) -> Reported {
        let token = self.peek().clone();
        let found = token.tok.describe();
        self.diags.push(
            Diagnostic::error(token.span, format!("expected {expected}, found {found}"))
                .label(format!("expected {expected}")),
        );
        Reported
    }

    fn expect_sym(&mut self, c: char) -> PResult<Span> {
        if self.is_sym(c) {
            Ok(self.next().span)
        } else {
            Err(self.error_here(&format!("`{c}`")))
        }
    }

    /// An optional `,` or `;`.
    fn separator(&mut self) {
        if !self.eat_sym(',') {
            self.eat_sym(';');
        }
    }

    /// A name: an identifier that is not a keyword.
    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let token = self.peek().clone();
        match token.tok {
            Tok::Ident(name) if KEYWORDS.contains(&name.as_str()) => {
                self.pos += 1;
                self.diags.push(
                    Diagnostic::error(token.span, format!("`{name}` is a keyword and cannot be used as {what}"))
                        .label("reserved by the Thrift grammar"),
                );
                // Taken as the name anyway, so what follows parses.
                Ok(Ident { name, span: token.span })
            }
            Tok::Ident(name) => {
                self.pos += 1;
                Ok(Ident { name, span: token.span })
            }
            _ => Err(self.error_here(what)),
        }
    }

    /// A name that must not hold a dot (what a definition, field or method is called).
    fn simple_ident(&mut self, what: &str) -> PResult<Ident> {
        let ident = self.ident(what)?;
        if ident.name.contains('.') {
            self.diags.push(
                Diagnostic::error(ident.span, format!("{what} `{}` cannot have a dot", ident.name))
                    .label("dots only qualify references to included files"),
            );
        }
        Ok(ident)
    }

    fn string(&mut self, what: &str) -> PResult<(String, Span)> {
        let token = self.peek().clone();
        match token.tok {
            Tok::Str(s) => {
                self.pos += 1;
                Ok((s, token.span))
            }
            _ => Err(self.error_here(what)),
        }
    }

    fn enter(&mut self, span: Span) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            self.diags.push(Diagnostic::error(span, format!("nested more than {MAX_NESTING} levels deep")));
            return Err(Reported);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips to the next token that can start a header or definition (keywords can name
    /// nothing else, so one is a safe place to start again), always moving on at least
    /// one token so recovery cannot loop.
    fn recover(&mut self, start: usize) {
        self.depth = 0;
        if self.pos == start {
            self.next();
        }
        loop {
            let tok = self.peek().tok.clone();
            match tok {
                Tok::Eof => return,
                Tok::Ident(w) if DEFINITION_WORDS.contains(&w.as_str()) || HEADER_WORDS.contains(&w.as_str()) => return,
                _ => {
                    self.next();
                }
            }
        }
    }

    // ---- the document ------------------------------------------------------------------

    fn document(&mut self) -> Document {
        let mut doc = Document::default();
        // The file's own doc comment is one directly before a header.
        self.skip_docs();
        if self.doc.is_some() && HEADER_WORDS.iter().any(|w| self.is_word(w)) {
            doc.doc = self.doc.take();
        }
        let mut seen_definition = false;
        loop {
            let start = self.pos;
            let token = self.peek().clone();
            let word = match &token.tok {
                Tok::Eof => break,
                Tok::Ident(w) => w.clone(),
                Tok::Sym(';' | ',') => {
                    self.next();
                    self.diags.push(
                        Diagnostic::warning(
                            token.span,
                            format!("stray `{}` between definitions", token.tok.describe().trim_matches('`')),
                        )
                        .label("Apache's compiler rejects this"),
                    );
                    continue;
                }
                _ => {
                    self.error_here("a definition (`struct`, `enum`, `service`, `const`, `typedef`...)");
                    self.recover(start);
                    continue;
                }
            };
            let result = if HEADER_WORDS.contains(&word.as_str()) || OLD_NAMESPACES.iter().any(|(w, _)| *w == word) {
                if seen_definition {
                    self.diags.push(
                        Diagnostic::error(token.span, format!("`{word}` must come before the first definition"))
                            .label("headers (include, namespace) go at the top of the file"),
                    );
                }
                let r = self.header(&word).map(|h| doc.headers.push(h));
                // A doc comment before a header documents nothing.
                self.doc = None;
                r
            } else {
                seen_definition = true;
                self.definition(&word).map(|d| doc.definitions.extend(d))
            };
            if result.is_err() {
                self.recover(start);
            }
        }
        doc
    }

    fn header(&mut self, word: &str) -> PResult<Header> {
        let keyword = self.next();
        if let Some((_, scope)) = OLD_NAMESPACES.iter().find(|(w, _)| *w == word) {
            self.diags.push(
                Diagnostic::error(keyword.span, format!("`{word}` is no longer supported"))
                    .label(format!("use `namespace {scope} ...`")),
            );
            // Its argument, so parsing goes on after it.
            self.next();
            return Err(Reported);
        }
        match word {
            "include" => {
                let (path, span) = self.string("the path of the included file, in quotes")?;
                Ok(Header::Include { path, span: keyword.span.to(span) })
            }
            "cpp_include" => Ok(Header::CppInclude(self.string("a C++ include path, in quotes")?.0)),
            _ => {
                let scope = if self.eat_sym('*') {
                    "*".to_owned()
                } else {
                    self.ident("a language (`rs`, `java`, `*`...)")?.name
                };
                let name = self.ident("the namespace")?;
                let annotations = if scope == "*" { Vec::new() } else { self.annotations()? };
                Ok(Header::Namespace { scope, name: name.name, annotations, span: keyword.span.to(name.span) })
            }
        }
    }

    fn definition(&mut self, word: &str) -> PResult<Option<Definition>> {
        let doc = self.take_doc();
        let keyword = self.next();
        match word {
            "const" => {
                let ty = self.field_type()?;
                let name = self.simple_ident("a constant name")?;
                self.expect_sym('=')?;
                let value = self.const_value()?;
                self.separator();
                Ok(Some(Definition::Const(Const { doc, ty, name, value })))
            }
            "typedef" => {
                let ty = self.field_type()?;
                let name = self.simple_ident("a typedef name")?;
                let annotations = self.annotations()?;
                self.separator();
                Ok(Some(Definition::Typedef(Typedef { doc, ty, name, annotations })))
            }
            "enum" => self.enum_def(doc).map(|e| Some(Definition::Enum(e))),
            "senum" => {
                // Apache's compilers before 0.17 read `senum Name { "a", "b" }` as a string
                // type named Name; the listed strings constrain nothing on the wire.
                self.diags.push(
                    Diagnostic::warning(keyword.span, "`senum` is deprecated: read as a typedef of `string`")
                        .label("Apache's compiler rejects it from 0.17 on; write `typedef string Name`"),
                );
                let name = self.simple_ident("a name for the senum")?;
                self.expect_sym('{')?;
                while !self.eat_sym('}') {
                    self.string("a string value of the senum, in quotes")?;
                    self.separator();
                }
                let annotations = self.annotations()?;
                let ty = Type { kind: TypeKind::String, annotations: Vec::new(), span: keyword.span };
                Ok(Some(Definition::Typedef(Typedef { doc, ty, name, annotations })))
            }
            "struct" | "union" | "exception" => {
                let kind = match word {
                    "struct" => StructKind::Struct,
                    "union" => StructKind::Union,
                    _ => StructKind::Exception,
                };
                let name = self.simple_ident(&format!("a name for the {word}"))?;
                if kind != StructKind::Exception {
                    self.eat_word("xsd_all");
                }
                self.expect_sym('{')?;
                let fields = self.fields('}', false)?;
                self.expect_sym('}')?;
                let annotations = self.annotations()?;
                Ok(Some(Definition::Struct(Struct { doc, kind, name, fields, annotations })))
            }
            "service" => self.service(doc).map(|s| Some(Definition::Service(s))),
            _ => {
                self.pos -= 1;
                Err(self.error_here("a definition (`struct`, `enum`, `service`, `const`, `typedef`...)"))
            }
        }
    }

    fn enum_def(&mut self, doc: Option<String>) -> PResult<Enum> {
        let name = self.simple_ident("a name for the enum")?;
        self.expect_sym('{')?;
        let mut values = Vec::new();
        while !self.is_sym('}') {
            let doc = self.take_doc();
            let value_name = self.simple_ident("an enum value name")?;
            let value = if self.eat_sym('=') {
                let token = self.next();
                match token.tok {
                    Tok::Int(v) => Some((v, token.span)),
                    other => {
                        self.diags.push(
                            Diagnostic::error(token.span, format!("expected an integer, found {}", other.describe()))
                                .label("enum values are integers"),
                        );
                        return Err(Reported);
                    }
                }
            } else {
                None
            };
            let annotations = self.annotations()?;
            self.separator();
            values.push(EnumValue { doc, name: value_name, value, annotations });
        }
        self.expect_sym('}')?;
        let annotations = self.annotations()?;
        Ok(Enum { doc, name, values, annotations })
    }

    fn service(&mut self, doc: Option<String>) -> PResult<Service> {
        let name = self.simple_ident("a name for the service")?;
        let extends =
            if self.eat_word("extends").is_some() { Some(self.ident("the name of the parent service")?) } else { None };
        self.expect_sym('{')?;
        let mut functions = Vec::new();
        while !self.is_sym('}') {
            if self.peek().tok == Tok::Eof {
                return Err(self.error_here("`}`"));
            }
            functions.push(self.function()?);
        }
        self.expect_sym('}')?;
        let annotations = self.annotations()?;
        Ok(Service { doc, name, extends, functions, annotations })
    }

    fn function(&mut self) -> PResult<Function> {
        let doc = self.take_doc();
        let mut oneway_span = self.eat_word("oneway");
        if oneway_span.is_none() {
            if let Some(span) = self.eat_word("async") {
                self.diags.push(Diagnostic::warning(span, "`async` is deprecated").label("it is called `oneway` now"));
                oneway_span = Some(span);
            }
        }
        let returns_span = self.peek().span;
        let returns = if self.eat_word("void").is_some() { None } else { Some(self.field_type()?) };
        let name = self.simple_ident("a method name")?;
        self.expect_sym('(')?;
        let args = self.fields(')', true)?;
        self.expect_sym(')')?;
        let throws = if self.eat_word("throws").is_some() {
            self.expect_sym('(')?;
            let throws = self.fields(')', true)?;
            self.expect_sym(')')?;
            throws
        } else {
            Vec::new()
        };
        let annotations = self.annotations()?;
        self.separator();
        Ok(Function {
            doc,
            oneway: oneway_span.is_some(),
            oneway_span,
            returns,
            returns_span,
            name,
            args,
            throws,
            annotations,
        })
    }

    /// Fields up to (not including) `close`.
    fn fields(&mut self, close: char, arglist: bool) -> PResult<Vec<Field>> {
        let mut fields = Vec::new();
        while !self.is_sym(close) {
            if self.peek().tok == Tok::Eof {
                return Err(self.error_here(&format!("`{close}`")));
            }
            fields.push(self.field(arglist)?);
        }
        Ok(fields)
    }

    fn field(&mut self, arglist: bool) -> PResult<Field> {
        let doc = self.take_doc();
        let id = match (self.peek().tok.clone(), self.peek2().clone()) {
            (Tok::Int(id), Tok::Sym(':')) => {
                let span = self.next().span;
                self.next();
                Some((id, span))
            }
            _ => None,
        };
        let (requiredness, requiredness_span) = if let Some(span) = self.eat_word("required") {
            (Requiredness::Required, Some(span))
        } else if let Some(span) = self.eat_word("optional") {
            if arglist {
                self.diags.push(
                    Diagnostic::warning(span, "`optional` is ignored in argument lists")
                        .label("arguments are always written"),
                );
                (Requiredness::Default, Some(span))
            } else {
                (Requiredness::Optional, Some(span))
            }
        } else {
            (Requiredness::Default, None)
        };
        let ty = self.field_type()?;
        let reference = self.eat_sym('&');
        let name = self.simple_ident("a field name")?;
        let default = if self.eat_sym('=') { Some(self.const_value()?) } else { None };
        self.eat_word("xsd_optional");
        self.eat_word("xsd_nillable");
        if self.eat_word("xsd_attrs").is_some() {
            self.expect_sym('{')?;
            self.fields('}', arglist)?;
            self.expect_sym('}')?;
        }
        let annotations = self.annotations()?;
        self.separator();
        Ok(Field { doc, id, requiredness, requiredness_span, ty, reference, name, default, annotations })
    }

    fn field_type(&mut self) -> PResult<Type> {
        let token = self.peek().clone();
        let Tok::Ident(word) = &token.tok else {
            return Err(self.error_here("a type"));
        };
        let base = match word.as_str() {
            "bool" => Some(TypeKind::Bool),
            "byte" | "i8" => Some(TypeKind::I8),
            "i16" => Some(TypeKind::I16),
            "i32" => Some(TypeKind::I32),
            "i64" => Some(TypeKind::I64),
            "double" => Some(TypeKind::Double),
            "string" => Some(TypeKind::String),
            "binary" => Some(TypeKind::Binary),
            "uuid" => Some(TypeKind::Uuid),
            _ => None,
        };
        if let Some(kind) = base {
            self.next();
            if word == "byte" {
                self.diags.push(
                    Diagnostic::warning(token.span, "`byte` is a compatibility alias for `i8`")
                        .label("use `i8` to say it is signed"),
                );
            }
            let annotations = self.annotations()?;
            return Ok(Type { kind, annotations, span: token.span });
        }
        match word.as_str() {
            "map" | "set" | "list" => {
                self.next();
                self.enter(token.span)?;
                let result = self.container(word, token.span);
                self.leave();
                result
            }
            "slist" => {
                self.next();
                self.diags.push(
                    Diagnostic::warning(token.span, "`slist` is deprecated: read as `string`")
                        .label("Apache's compiler rejects it from 0.17 on; write `string`"),
                );
                Ok(Type { kind: TypeKind::String, annotations: Vec::new(), span: token.span })
            }
            "void" => {
                self.next();
                self.diags.push(
                    Diagnostic::error(token.span, "`void` is not a type of values")
                        .label("only a method can return `void`"),
                );
                Err(Reported)
            }
            _ => {
                let ident = self.ident("a type")?;
                Ok(Type { kind: TypeKind::Named(ident.clone()), annotations: Vec::new(), span: ident.span })
            }
        }
    }

    fn container(&mut self, word: &str, start: Span) -> PResult<Type> {
        if word != "list" {
            self.cpp_type()?;
        }
        self.expect_sym('<')?;
        let kind = match word {
            "map" => {
                let key = self.field_type()?;
                self.expect_sym(',')?;
                let value = self.field_type()?;
                TypeKind::Map(Box::new(key), Box::new(value))
            }
            "set" => TypeKind::Set(Box::new(self.field_type()?)),
            _ => TypeKind::List(Box::new(self.field_type()?)),
        };
        let end = self.expect_sym('>')?;
        if word == "list" {
            self.cpp_type()?;
        }
        let annotations = self.annotations()?;
        Ok(Type { kind, annotations, span: start.to(end) })
    }

    /// `cpp_type "..."`, which only C++ reads.
    fn cpp_type(&mut self) -> PResult<()> {
        if self.eat_word("cpp_type").is_some() {
            self.string("a C++ type name, in quotes")?;
        }
        Ok(())
    }

    fn annotations(&mut self) -> PResult<Vec<Annotation>> {
        let mut out = Vec::new();
        if !self.eat_sym('(') {
            return Ok(out);
        }
        while !self.eat_sym(')') {
            let key = self.ident("an annotation name")?;
            let value =
                if self.eat_sym('=') { self.string("the annotation's value, in quotes")?.0 } else { "1".to_owned() };
            self.separator();
            out.push(Annotation { key, value });
        }
        Ok(out)
    }

    fn const_value(&mut self) -> PResult<ConstValue> {
        let token = self.next();
        let kind = match token.tok {
            Tok::Int(value) => ConstKind::Int { value, is_bool: token.is_bool },
            Tok::Double(d) => ConstKind::Double(d),
            Tok::Str(s) => ConstKind::String(s),
            Tok::Ident(name) if KEYWORDS.contains(&name.as_str()) => {
                self.pos -= 1;
                return Err(self.error_here("a constant value"));
            }
            Tok::Ident(name) => ConstKind::Ident(name),
            Tok::Sym('[') => {
                self.enter(token.span)?;
                let mut items = Vec::new();
                while !self.is_sym(']') {
                    if self.peek().tok == Tok::Eof {
                        return Err(self.error_here("`]`"));
                    }
                    items.push(self.const_value()?);
                    self.separator();
                }
                let end = self.next().span;
                self.leave();
                return Ok(ConstValue { kind: ConstKind::List(items), span: token.span.to(end) });
            }
            Tok::Sym('{') => {
                self.enter(token.span)?;
                let mut entries = Vec::new();
                while !self.is_sym('}') {
                    if self.peek().tok == Tok::Eof {
                        return Err(self.error_here("`}`"));
                    }
                    let key = self.const_value()?;
                    self.expect_sym(':')?;
                    let value = self.const_value()?;
                    self.separator();
                    entries.push((key, value));
                }
                let end = self.next().span;
                self.leave();
                return Ok(ConstValue { kind: ConstKind::Map(entries), span: token.span.to(end) });
            }
            _ => {
                if token.tok != Tok::Eof {
                    self.pos -= 1;
                }
                return Err(self.error_here("a constant value"));
            }
        };
        Ok(ConstValue { kind, span: token.span })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Document {
        let mut diags = Diagnostics::new();
        let doc = parse(FileId(0), text, &mut diags);
        assert!(!diags.has_errors(), "{diags:?}");
        doc
    }

    fn parse_errors(text: &str) -> Vec<String> {
        let mut diags = Diagnostics::new();
        parse(FileId(0), text, &mut diags);
        diags.errors().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn headers_and_definitions() {
        let doc = parse_ok(
            r#"/** The file. */
            include "shared.thrift"
            namespace rs hello
            namespace * all
            cpp_include "<map>"
            /** A thing. */
            struct Thing {
              /** the id */
              1: required i64 id,
              2: optional list<string> tags = ["a", 'b'];
              string untagged (x.y = "z", flag)
            } (final)
            const map<string, i32> M = {"a": 1, 'b': -2}
            typedef Thing T
            enum E { A = 1, B, C = 0x10 }
            exception Oops { 1: string why }
            union U { 1: i32 i; 2: string s }
            service S extends shared.Base {
              oneway void ping(),
              Thing get(1: i64 id) throws (1: Oops oops) (deprecated)
            }"#,
        );
        assert_eq!(doc.doc.as_deref(), Some("The file."));
        assert_eq!(doc.headers.len(), 4);
        assert_eq!(doc.definitions.len(), 7);
        let Definition::Struct(thing) = &doc.definitions[0] else { panic!() };
        assert_eq!(thing.doc.as_deref(), Some("A thing."));
        assert_eq!(thing.fields[0].doc.as_deref(), Some("the id"));
        assert_eq!(thing.fields[2].id, None);
        assert_eq!(thing.fields[2].annotations[1].value, "1");
        assert_eq!(thing.annotations[0].key.name, "final");
        let Definition::Service(s) = &doc.definitions[6] else { panic!() };
        assert_eq!(s.extends.as_ref().unwrap().name, "shared.Base");
        assert!(s.functions[0].oneway && s.functions[0].returns.is_none());
        assert_eq!(s.functions[1].throws.len(), 1);
    }

    #[test]
    fn several_errors_in_one_run() {
        let errors = parse_errors("struct A { 1: i32 }\nstruct B { 1 i32 x }\nenum C { X = y }\nstruct D {}");
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("expected a field name"), "{errors:?}");
    }

    #[test]
    fn keywords_and_dots_are_not_names() {
        let errors = parse_errors("struct list {}\nstruct a.b {}");
        assert!(errors[0].contains("`list` is a keyword"), "{errors:?}");
        assert!(errors[1].contains("cannot have a dot"), "{errors:?}");
    }

    #[test]
    fn removed_forms_say_what_to_use() {
        let errors = parse_errors("cpp_namespace foo");
        assert!(errors.iter().any(|e| e.contains("`cpp_namespace` is no longer supported")), "{errors:?}");
    }

    /// What Apache's compilers before 0.17 took, with a warning.
    #[test]
    fn senum_and_slist_are_strings() {
        let mut diags = Diagnostics::new();
        let doc = parse(FileId(0), "senum S { \"a\", \"b\"; } (x = \"y\")\nstruct A { 1: slist s }", &mut diags);
        assert!(!diags.has_errors(), "{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>());
        let warnings: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            warnings,
            ["`senum` is deprecated: read as a typedef of `string`", "`slist` is deprecated: read as `string`"]
        );
        let Definition::Typedef(t) = &doc.definitions[0] else { panic!("{:?}", doc.definitions[0]) };
        assert_eq!((t.name.name.as_str(), &t.ty.kind), ("S", &TypeKind::String));
        let Definition::Struct(a) = &doc.definitions[1] else { panic!("{:?}", doc.definitions[1]) };
        assert_eq!(a.fields[0].ty.kind, TypeKind::String);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("typedef {}i32{} T", "list<".repeat(10_000), ">".repeat(10_000));
        let errors = parse_errors(&deep);
        assert!(errors.iter().any(|e| e.contains("nested more than")), "{errors:?}");
        let deep = format!("const list<i32> C = {}", "[".repeat(10_000));
        assert!(!parse_errors(&deep).is_empty());
    }
}
