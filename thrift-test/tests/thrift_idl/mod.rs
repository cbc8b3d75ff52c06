//! A reader of Thrift IDL documents, enough for Apache's `ThriftTest.thrift` and for what
//! our derives export: the structure (types, field ids and types, requiredness, methods)
//! with typedefs resolved, and nothing else (comments, namespaces, constants, defaults and
//! annotations are read past).

use std::collections::BTreeMap;
use std::fmt;

/// A field's type, typedefs resolved and `byte` spelled `i8`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A base type or a named struct, union, exception or enum.
    Name(String),
    /// `list<T>`.
    List(Box<Ty>),
    /// `set<T>`.
    Set(Box<Ty>),
    /// `map<K, V>`.
    Map(Box<Ty>, Box<Ty>),
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Name(n) => f.write_str(n),
            Ty::List(t) => write!(f, "list<{t}>"),
            Ty::Set(t) => write!(f, "set<{t}>"),
            Ty::Map(k, v) => write!(f, "map<{k},{v}>"),
        }
    }
}

/// A field of a struct, or an argument or exception of a method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub id: i16,
    /// `""`, `"required"` or `"optional"`.
    pub requiredness: String,
    pub ty: Ty,
    pub name: String,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let req = if self.requiredness.is_empty() { String::new() } else { format!("{} ", self.requiredness) };
        write!(f, "{}: {req}{} {}", self.id, self.ty, self.name)
    }
}

/// A method of a service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    pub oneway: bool,
    pub returns: Ty,
    pub args: Vec<Field>,
    pub throws: Vec<Field>,
}

/// A document's definitions by name.
#[derive(Clone, Debug, Default)]
pub struct Document {
    pub enums: BTreeMap<String, Vec<(String, i32)>>,
    /// `(keyword, fields)`: keyword is `struct`, `union` or `exception`.
    pub structs: BTreeMap<String, (String, Vec<Field>)>,
    pub services: BTreeMap<String, Vec<(String, Method)>>,
    /// Typedefs, as read: they are resolved in every type above.
    pub typedefs: BTreeMap<String, Ty>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Str,
    Punct(char),
}

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '#' || (c == '/' && next == Some('/')) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let end = (i + 2..chars.len().saturating_sub(1))
                .find(|&j| chars[j] == '*' && chars[j + 1] == '/')
                .ok_or("unterminated /* comment")?;
            i = end + 2;
        } else if c == '"' || c == '\'' {
            let end = (i + 1..chars.len()).find(|&j| chars[j] == c).ok_or("unterminated string literal")?;
            out.push(Tok::Str);
            i = end + 1;
        } else if "{}()<>,;:=[]".contains(c) {
            out.push(Tok::Punct(c));
            i += 1;
        } else if c.is_alphanumeric() || "_.+-*".contains(c) {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || "_.+-*".contains(chars[i])) {
                i += 1;
            }
            out.push(Tok::Word(chars[start..i].iter().collect()));
        } else {
            return Err(format!("unexpected character {c:?}"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    doc: Document,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Result<Tok, String> {
        let tok = self.toks.get(self.pos).cloned().ok_or("unexpected end of document")?;
        self.pos += 1;
        Ok(tok)
    }

    fn word(&mut self) -> Result<String, String> {
        match self.next()? {
            Tok::Word(w) => Ok(w),
            other => Err(format!("expected a name, found {other:?} (token {})", self.pos)),
        }
    }

    fn punct(&mut self, c: char) -> Result<(), String> {
        match self.next()? {
            Tok::Punct(p) if p == c => Ok(()),
            other => Err(format!("expected {c:?}, found {other:?} (token {})", self.pos)),
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Word(x)) if x == w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn separator(&mut self) {
        let _ = self.eat(',') || self.eat(';');
    }

    /// Skips a bracketed group whose opening bracket was just read.
    fn skip_group(&mut self, open: char) -> Result<(), String> {
        let close = match open {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            _ => '>',
        };
        let mut depth = 1;
        while depth > 0 {
            match self.next()? {
                Tok::Punct(p) if p == open => depth += 1,
                Tok::Punct(p) if p == close => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn annotations(&mut self) -> Result<(), String> {
        if self.eat('(') {
            self.skip_group('(')?;
        }
        Ok(())
    }

    /// A constant value: a literal, a name, or a bracketed list or map.
    fn value(&mut self) -> Result<(), String> {
        match self.next()? {
            Tok::Punct(open @ ('[' | '{')) => self.skip_group(open),
            Tok::Word(_) | Tok::Str => Ok(()),
            other => Err(format!("expected a value, found {other:?}")),
        }
    }

    fn ty(&mut self) -> Result<Ty, String> {
        let name = self.word()?;
        let ty = match name.as_str() {
            "list" | "set" => {
                self.punct('<')?;
                let elem = Box::new(self.ty()?);
                self.punct('>')?;
                if name == "list" {
                    Ty::List(elem)
                } else {
                    Ty::Set(elem)
                }
            }
            "map" => {
                self.punct('<')?;
                let key = Box::new(self.ty()?);
                self.punct(',')?;
                let value = Box::new(self.ty()?);
                self.punct('>')?;
                Ty::Map(key, value)
            }
            "byte" => Ty::Name("i8".into()),
            _ => Ty::Name(name),
        };
        self.annotations()?;
        Ok(ty)
    }

    /// Fields up to the closing `close`.
    fn fields(&mut self, close: char) -> Result<Vec<Field>, String> {
        let mut fields = Vec::new();
        while !self.eat(close) {
            let id = self.word()?;
            let id: i16 = id.parse().map_err(|e| format!("bad field id {id:?}: {e}"))?;
            self.punct(':')?;
            let requiredness = if self.eat_word("required") {
                "required"
            } else if self.eat_word("optional") {
                "optional"
            } else {
                ""
            };
            let ty = self.ty()?;
            let name = self.word()?;
            if self.eat('=') {
                self.value()?;
            }
            self.annotations()?;
            self.separator();
            fields.push(Field { id, requiredness: requiredness.into(), ty, name });
        }
        Ok(fields)
    }

    fn definition(&mut self) -> Result<(), String> {
        let keyword = self.word()?;
        match keyword.as_str() {
            "namespace" => {
                self.word()?;
                self.word()?;
                self.annotations()?;
            }
            "include" | "cpp_include" => {
                self.next()?;
            }
            "const" => {
                self.ty()?;
                self.word()?;
                self.punct('=')?;
                self.value()?;
                self.separator();
            }
            "typedef" => {
                let ty = self.ty()?;
                let name = self.word()?;
                self.annotations()?;
                self.separator();
                self.doc.typedefs.insert(name, ty);
            }
            "enum" => {
                let name = self.word()?;
                self.punct('{')?;
                let mut values = Vec::new();
                let mut next = 0;
                while !self.eat('}') {
                    let variant = self.word()?;
                    if self.eat('=') {
                        let v = self.word()?;
                        next = v.parse().map_err(|e| format!("bad enum value {v:?}: {e}"))?;
                    }
                    self.annotations()?;
                    self.separator();
                    values.push((variant, next));
                    next += 1;
                }
                self.annotations()?;
                self.doc.enums.insert(name, values);
            }
            "struct" | "union" | "exception" => {
                let name = self.word()?;
                self.punct('{')?;
                let fields = self.fields('}')?;
                self.annotations()?;
                self.doc.structs.insert(name, (keyword, fields));
            }
            "service" => {
                let name = self.word()?;
                if self.eat_word("extends") {
                    self.word()?;
                }
                self.punct('{')?;
                let mut methods = Vec::new();
                while !self.eat('}') {
                    let oneway = self.eat_word("oneway");
                    let returns = self.ty()?;
                    let method = self.word()?;
                    self.punct('(')?;
                    let args = self.fields(')')?;
                    let throws = if self.eat_word("throws") {
                        self.punct('(')?;
                        self.fields(')')?
                    } else {
                        Vec::new()
                    };
                    self.annotations()?;
                    self.separator();
                    methods.push((method, Method { oneway, returns, args, throws }));
                }
                self.annotations()?;
                self.doc.services.insert(name, methods);
            }
            other => return Err(format!("unknown definition keyword {other:?} (token {})", self.pos)),
        }
        Ok(())
    }
}

/// Replaces typedef names by what they name, however deep.
fn resolve(ty: &Ty, typedefs: &BTreeMap<String, Ty>) -> Ty {
    match ty {
        Ty::Name(n) => match typedefs.get(n) {
            Some(t) => resolve(t, typedefs),
            None => ty.clone(),
        },
        Ty::List(t) => Ty::List(Box::new(resolve(t, typedefs))),
        Ty::Set(t) => Ty::Set(Box::new(resolve(t, typedefs))),
        Ty::Map(k, v) => Ty::Map(Box::new(resolve(k, typedefs)), Box::new(resolve(v, typedefs))),
    }
}

fn resolve_fields(fields: &mut [Field], typedefs: &BTreeMap<String, Ty>) {
    for f in fields {
        f.ty = resolve(&f.ty, typedefs);
    }
}

/// Reads `text`.
pub fn parse(text: &str) -> Result<Document, String> {
    let mut p = Parser { toks: tokenize(text)?, pos: 0, doc: Document::default() };
    while p.peek().is_some() {
        p.definition()?;
    }
    let mut doc = p.doc;
    let typedefs = doc.typedefs.clone();
    for (_, fields) in doc.structs.values_mut() {
        resolve_fields(fields, &typedefs);
    }
    for methods in doc.services.values_mut() {
        for (_, m) in methods {
            m.returns = resolve(&m.returns, &typedefs);
            resolve_fields(&mut m.args, &typedefs);
            resolve_fields(&mut m.throws, &typedefs);
        }
    }
    Ok(doc)
}

fn compare_fields(place: &str, want: &[Field], got: &[Field], out: &mut Vec<String>) {
    let by_id = |fields: &[Field]| fields.iter().map(|f| (f.id, f.clone())).collect::<BTreeMap<_, _>>();
    let (want, got) = (by_id(want), by_id(got));
    for (id, w) in &want {
        match got.get(id) {
            None => out.push(format!("{place}: field `{w}` is missing")),
            Some(g) if g != w => out.push(format!("{place}: field `{w}` is exported as `{g}`")),
            Some(_) => {}
        }
    }
    for (id, g) in &got {
        if !want.contains_key(id) {
            out.push(format!("{place}: field `{g}` is not in the reference"));
        }
    }
}

fn compare_names<V>(kind: &str, want: &BTreeMap<String, V>, got: &BTreeMap<String, V>, out: &mut Vec<String>) {
    for name in want.keys().filter(|n| !got.contains_key(*n)) {
        out.push(format!("{kind} {name} is missing"));
    }
    for name in got.keys().filter(|n| !want.contains_key(*n)) {
        out.push(format!("{kind} {name} is not in the reference"));
    }
}

/// Every structural difference of `got` from the reference `want`, one line each.
pub fn differences(want: &Document, got: &Document) -> Vec<String> {
    let mut out = Vec::new();
    compare_names("enum", &want.enums, &got.enums, &mut out);
    for (name, values) in &want.enums {
        if let Some(g) = got.enums.get(name) {
            if g != values {
                out.push(format!("enum {name}: values {values:?}, exported {g:?}"));
            }
        }
    }
    compare_names("type", &want.structs, &got.structs, &mut out);
    for (name, (keyword, fields)) in &want.structs {
        if let Some((g_keyword, g_fields)) = got.structs.get(name) {
            if g_keyword != keyword {
                out.push(format!("{name}: a {keyword}, exported as a {g_keyword}"));
            }
            compare_fields(name, fields, g_fields, &mut out);
        }
    }
    compare_names("service", &want.services, &got.services, &mut out);
    for (service, methods) in &want.services {
        let Some(g_methods) = got.services.get(service) else { continue };
        let want_names: Vec<&String> = methods.iter().map(|(n, _)| n).collect();
        let got_names: Vec<&String> = g_methods.iter().map(|(n, _)| n).collect();
        if want_names != got_names {
            out.push(format!("service {service}: methods {want_names:?}, exported {got_names:?}"));
        }
        for (name, m) in methods {
            let Some((_, g)) = g_methods.iter().find(|(n, _)| n == name) else { continue };
            let place = format!("{service}.{name}");
            if (m.oneway, &m.returns) != (g.oneway, &g.returns) {
                out.push(format!(
                    "{place}: returns {}{}, exported {}{}",
                    if m.oneway { "oneway " } else { "" },
                    m.returns,
                    if g.oneway { "oneway " } else { "" },
                    g.returns
                ));
            }
            compare_fields(&format!("{place} argument"), &m.args, &g.args, &mut out);
            compare_fields(&format!("{place} throws"), &m.throws, &g.throws, &mut out);
        }
    }
    out
}
