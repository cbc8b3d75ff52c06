//! Constants and default values, checked against their declared types.
//!
//! As in Apache's compiler: `true`/`false` are the integers 1/0; a double takes an integer;
//! sets are written as lists; a struct is a map from field names to values; an enum value
//! is written `Enum.NAME` (only the part after the last dot is looked up, in the expected
//! enum) or as its number; a name refers to a constant defined above it, or to an enum
//! value. Unlike Apache's, integers must fit the declared width.

use super::{Def, DefId, Kind, Resolver, StructKind, Type, Value};
use crate::ast::{self, ConstKind};
use crate::diagnostics::{Diagnostic, FileId, Span};

/// A value that did not check; the error was reported.
struct Bad;

impl Resolver<'_> {
    /// Checks the value of a constant, or the defaults of a struct's or method's fields.
    pub(super) fn values(&mut self, id: DefId, d: &ast::Definition) {
        match d {
            ast::Definition::Const(c) => {
                let ty = match self.program.def(id) {
                    Def::Const(model) => model.ty.clone(),
                    _ => return,
                };
                let value = self.check(id.file, &c.value, &ty, c.ty.span).ok();
                if let Def::Const(model) = &mut self.program.files[id.file.0 as usize].definitions[id.index] {
                    model.value = value;
                }
                self.resolved_consts.insert(id);
            }
            ast::Definition::Struct(s) => {
                let defaults = self.defaults(id, &s.fields, |def| match def {
                    Def::Struct(model) => Some(&model.fields),
                    _ => None,
                });
                if let Def::Struct(model) = &mut self.program.files[id.file.0 as usize].definitions[id.index] {
                    for (field, value) in model.fields.iter_mut().zip(defaults) {
                        field.default = value;
                    }
                }
            }
            ast::Definition::Service(s) => {
                for (i, f) in s.functions.iter().enumerate() {
                    let defaults = self.defaults(id, &f.args, |def| match def {
                        Def::Service(model) => model.functions.get(i).map(|f| &f.args),
                        _ => None,
                    });
                    if let Def::Service(model) = &mut self.program.files[id.file.0 as usize].definitions[id.index] {
                        if let Some(func) = model.functions.get_mut(i) {
                            for (field, value) in func.args.iter_mut().zip(defaults) {
                                field.default = value;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The checked default of each field of the model (matched to the AST by name, since
    /// fields that failed to resolve were left out of the model).
    fn defaults(
        &mut self,
        id: DefId,
        ast_fields: &[ast::Field],
        model_fields: impl Fn(&Def) -> Option<&Vec<super::Field>>,
    ) -> Vec<Option<Value>> {
        let fields: Vec<(String, Type, Span)> = model_fields(self.program.def(id))
            .map(|fs| fs.iter().map(|f| (f.name.clone(), f.ty.clone(), f.ty_span)).collect())
            .unwrap_or_default();
        fields
            .iter()
            .map(|(name, ty, ty_span)| {
                let ast_field = ast_fields.iter().find(|f| &f.name.name == name)?;
                let value = ast_field.default.as_ref()?;
                self.check(id.file, value, ty, *ty_span).ok()
            })
            .collect()
    }

    /// `value` as a value of `ty` (declared at `decl`), in the scope of `file`.
    fn check(&mut self, file: FileId, value: &ast::ConstValue, ty: &Type, decl: Span) -> Result<Value, Bad> {
        let target = self.program.true_type(ty).clone();
        match &value.kind {
            ConstKind::Int { value: i, is_bool } => {
                let v = if *is_bool { Value::Bool(*i != 0) } else { Value::Int(*i) };
                self.convert(file, v, &target, value.span, decl)
            }
            ConstKind::Double(d) => self.convert(file, Value::Double(*d), &target, value.span, decl),
            ConstKind::String(s) => self.convert(file, Value::String(s.clone()), &target, value.span, decl),
            ConstKind::Ident(name) => {
                if let Type::Enum(e) = target {
                    if let Some(v) = self.enum_value(file, e, name, value.span) {
                        return Ok(v);
                    }
                }
                let found = self.const_ref(file, name, value.span)?;
                self.convert(file, found, &target, value.span, decl)
            }
            ConstKind::List(items) if items.is_empty() && matches!(target, Type::Map(..)) => Ok(Value::Map(Vec::new())),
            ConstKind::List(items) => {
                let elem = match &target {
                    Type::List(e) | Type::Set(e) => (**e).clone(),
                    Type::Invalid => return Err(Bad),
                    _ => return Err(self.mismatch(file, &target, "a list", value.span, decl)),
                };
                let mut out = Vec::with_capacity(items.len());
                let mut ok = true;
                for item in items {
                    match self.check(file, item, &elem, decl) {
                        Ok(v) => out.push(v),
                        Err(Bad) => ok = false,
                    }
                }
                if !ok {
                    return Err(Bad);
                }
                Ok(if matches!(target, Type::Set(_)) { Value::Set(out) } else { Value::List(out) })
            }
            // Apache reads an empty `{}` as an empty list or set, and `[]` as an empty map.
            ConstKind::Map(entries) if entries.is_empty() && matches!(target, Type::List(_) | Type::Set(_)) => {
                Ok(if matches!(target, Type::Set(_)) { Value::Set(Vec::new()) } else { Value::List(Vec::new()) })
            }
            ConstKind::Map(entries) => match &target {
                Type::Map(k, v) => {
                    let (k, v) = ((**k).clone(), (**v).clone());
                    let mut out = Vec::with_capacity(entries.len());
                    let mut ok = true;
                    for (key, val) in entries {
                        match (self.check(file, key, &k, decl), self.check(file, val, &v, decl)) {
                            (Ok(key), Ok(val)) => out.push((key, val)),
                            _ => ok = false,
                        }
                    }
                    if !ok {
                        return Err(Bad);
                    }
                    Ok(Value::Map(dedup_keys(out)))
                }
                Type::Struct(s) => self.struct_value(file, *s, entries, value.span, decl),
                Type::Invalid => Err(Bad),
                _ => Err(self.mismatch(file, &target, "a map", value.span, decl)),
            },
        }
    }

    fn struct_value(
        &mut self,
        file: FileId,
        id: DefId,
        entries: &[(ast::ConstValue, ast::ConstValue)],
        span: Span,
        decl: Span,
    ) -> Result<Value, Bad> {
        let Some(s) = self.program.struct_def(id) else { return Err(Bad) };
        let (name, kind) = (s.name.clone(), s.kind);
        let fields: Vec<(String, Type, Span)> =
            s.fields.iter().map(|f| (f.name.clone(), f.ty.clone(), f.ty_span)).collect();
        let mut out: Vec<(usize, Value)> = Vec::new();
        let mut ok = true;
        for (key, val) in entries {
            let ConstKind::String(field_name) = &key.kind else {
                self.diags.push(
                    Diagnostic::error(key.span, format!("a `{name}` value names its fields in quotes"))
                        .label("expected a field name as a string"),
                );
                ok = false;
                continue;
            };
            let Some(index) = fields.iter().position(|(n, _, _)| n == field_name) else {
                let known: Vec<&str> = fields.iter().map(|(n, _, _)| n.as_str()).collect();
                self.diags.push(
                    Diagnostic::error(key.span, format!("`{name}` has no field `{field_name}`"))
                        .label("unknown field")
                        .note(format!(
                            "its fields: {}",
                            if known.is_empty() { "none".into() } else { known.join(", ") }
                        )),
                );
                ok = false;
                continue;
            };
            let (_, ty, ty_span) = &fields[index];
            match self.check(file, val, ty, *ty_span) {
                Ok(v) => {
                    out.retain(|(i, _)| *i != index);
                    out.push((index, v));
                }
                Err(Bad) => ok = false,
            }
        }
        if !ok {
            return Err(Bad);
        }
        if kind == StructKind::Union && out.len() != 1 {
            self.diags.push(
                Diagnostic::error(span, format!("a value of union `{name}` sets exactly one field, not {}", out.len()))
                    .label("one field, in quotes, and its value")
                    .with_secondary(decl, "declared here"),
            );
            return Err(Bad);
        }
        Ok(Value::Struct(id, out))
    }

    /// `name` as a value of enum `e`: the part after the last dot names the value.
    fn enum_value(&mut self, file: FileId, e: DefId, name: &str, span: Span) -> Option<Value> {
        let en = self.program.enum_def(e)?;
        let (prefix, last) = match name.rsplit_once('.') {
            Some((p, l)) => (Some(p), l),
            None => (None, name),
        };
        let index = en.value_named(last)?;
        if let Some(prefix) = prefix {
            match self.lookup(file, prefix) {
                Some((other, Kind::Enum)) if other != e => {
                    let other_name = self.program.def(other).name().to_owned();
                    let enum_name = en.name.clone();
                    self.diags.push(
                        Diagnostic::warning(
                            span,
                            format!("`{name}` names enum `{other_name}`, but the value is a `{enum_name}`"),
                        )
                        .label(format!("read as `{enum_name}.{last}`, as Apache's compiler does")),
                    );
                }
                _ => {}
            }
        }
        Some(Value::Enum(e, index))
    }

    /// The value of the constant or enum value `name`.
    fn const_ref(&mut self, file: FileId, name: &str, span: Span) -> Result<Value, Bad> {
        if let Some(&index) = self.scopes[file.0 as usize].consts.get(name) {
            return self.const_value(DefId { file, index }, name, span);
        }
        if let Some((enum_name, value_name)) = name.rsplit_once('.') {
            if let Some((e, Kind::Enum)) = self.lookup(file, enum_name) {
                if let Some(index) = self.program.enum_def(e).and_then(|en| en.value_named(value_name)) {
                    return Ok(Value::Enum(e, index));
                }
            }
        }
        let target = self.includes[file.0 as usize].iter().find_map(|(include, target, _)| {
            let rest = name.strip_prefix(include.as_str())?.strip_prefix('.')?;
            self.scopes[target.0 as usize].consts.get(rest).map(|&index| DefId { file: *target, index })
        });
        if let Some(id) = target {
            return self.const_value(id, name, span);
        }
        self.diags.push(
            Diagnostic::error(span, format!("no constant or enum value named `{name}`"))
                .label("not defined above, nor in an included file"),
        );
        Err(Bad)
    }

    fn const_value(&mut self, id: DefId, name: &str, span: Span) -> Result<Value, Bad> {
        if !self.resolved_consts.contains(&id) {
            let def_span = self.program.def(id).span();
            self.diags.push(
                Diagnostic::error(span, format!("constant `{name}` is used before its definition"))
                    .label("a constant can only refer to constants above it")
                    .with_secondary(def_span, "defined here"),
            );
            return Err(Bad);
        }
        match self.program.def(id) {
            Def::Const(c) => c.value.clone().ok_or(Bad),
            _ => Err(Bad),
        }
    }

    /// `value` as a value of `target` (a true type, no typedef).
    fn convert(&mut self, file: FileId, value: Value, target: &Type, span: Span, decl: Span) -> Result<Value, Bad> {
        let range = |lo: i64, hi: i64, name: &str, v: i64| -> Result<Value, String> {
            if (lo..=hi).contains(&v) {
                Ok(Value::Int(v))
            } else {
                Err(format!("integer {v} does not fit in an {name} ({lo} to {hi})"))
            }
        };
        let result: Result<Value, String> = match (target, value) {
            (Type::Invalid, _) => return Err(Bad),
            (Type::Bool, Value::Bool(b)) => Ok(Value::Bool(b)),
            (Type::Bool, Value::Int(i @ (0 | 1))) => Ok(Value::Bool(i == 1)),
            (Type::Bool, Value::Int(i)) => Err(format!("integer {i} is not a bool: write true, false, 1 or 0")),
            (Type::I8 | Type::I16 | Type::I32 | Type::I64, Value::Bool(b)) => Ok(Value::Int(i64::from(b))),
            (Type::I8, Value::Int(i)) => range(i8::MIN.into(), i8::MAX.into(), "i8", i),
            (Type::I16, Value::Int(i)) => range(i16::MIN.into(), i16::MAX.into(), "i16", i),
            (Type::I32, Value::Int(i)) => range(i32::MIN.into(), i32::MAX.into(), "i32", i),
            (Type::I64, Value::Int(i)) => Ok(Value::Int(i)),
            (Type::I8 | Type::I16 | Type::I32 | Type::I64, Value::Enum(e, index)) => {
                let v = self.program.enum_def(e).map_or(0, |en| en.values[index].value);
                Ok(Value::Int(i64::from(v)))
            }
            (Type::Double, Value::Int(i)) => Ok(Value::Double(i as f64)),
            (Type::Double, Value::Double(d)) => Ok(Value::Double(d)),
            (Type::String | Type::Binary, Value::String(s)) => Ok(Value::String(s)),
            (Type::Uuid, Value::String(s)) => parse_uuid(&s)
                .map(Value::Uuid)
                .ok_or_else(|| format!("`{s}` is not a uuid (8-4-4-4-12 hex digits, in braces or not)")),
            (Type::Uuid, Value::Uuid(u)) => Ok(Value::Uuid(u)),
            (Type::Enum(e), Value::Enum(other, index)) if *e == other => Ok(Value::Enum(other, index)),
            (Type::Enum(e), Value::Int(i)) => {
                let en = self.program.enum_def(*e);
                match en.and_then(|en| en.values.iter().position(|v| i64::from(v.value) == i)) {
                    Some(index) => Ok(Value::Enum(*e, index)),
                    None => Err(format!("enum `{}` has no value {i}", en.map_or("?", |en| en.name.as_str()))),
                }
            }
            (Type::Struct(s), Value::Struct(other, fields)) if *s == other => Ok(Value::Struct(other, fields)),
            (Type::List(elem) | Type::Set(elem), Value::List(items) | Value::Set(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.convert(file, item, &self.program.true_type(elem).clone(), span, decl)?);
                }
                return Ok(if matches!(target, Type::Set(_)) { Value::Set(out) } else { Value::List(out) });
            }
            (Type::Map(k, v), Value::Map(entries)) => {
                let (k, v) = (self.program.true_type(k).clone(), self.program.true_type(v).clone());
                let mut out = Vec::with_capacity(entries.len());
                for (key, val) in entries {
                    out.push((self.convert(file, key, &k, span, decl)?, self.convert(file, val, &v, span, decl)?));
                }
                return Ok(Value::Map(dedup_keys(out)));
            }
            (_, value) => return Err(self.mismatch(file, target, describe(&value), span, decl)),
        };
        result.map_err(|message| {
            self.diags.push(
                Diagnostic::error(span, format!("mismatched constant: {message}"))
                    .label(format!("expected {}", self.type_name(target, file)))
                    .with_secondary(decl, "type declared here"),
            );
            Bad
        })
    }

    fn mismatch(&mut self, file: FileId, target: &Type, found: &str, span: Span, decl: Span) -> Bad {
        let expected = self.type_name(target, file);
        self.diags.push(
            Diagnostic::error(span, format!("mismatched constant: expected {expected}, found {found}"))
                .label(format!("expected {expected}"))
                .with_secondary(decl, "type declared here"),
        );
        Bad
    }

    /// The IDL spelling of `ty` as `from` would write it.
    pub(super) fn type_name(&self, ty: &Type, from: FileId) -> String {
        match ty {
            Type::List(e) => format!("list<{}>", self.type_name(e, from)),
            Type::Set(e) => format!("set<{}>", self.type_name(e, from)),
            Type::Map(k, v) => format!("map<{}, {}>", self.type_name(k, from), self.type_name(v, from)),
            Type::Typedef(id) | Type::Enum(id) | Type::Struct(id) => self.program.idl_name(*id, from),
            Type::Invalid => "an unknown type".into(),
            base => base.base_name().unwrap_or("?").into(),
        }
    }
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "a bool",
        Value::Int(_) => "an integer",
        Value::Double(_) => "a double",
        Value::String(_) => "a string",
        Value::Uuid(_) => "a uuid",
        Value::List(_) => "a list",
        Value::Set(_) => "a set",
        Value::Map(_) => "a map",
        Value::Enum(..) => "an enum value",
        Value::Struct(..) => "a struct",
    }
}

/// A map's entries with one per key: the last value given, at the first key's place.
fn dedup_keys(entries: Vec<(Value, Value)>) -> Vec<(Value, Value)> {
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out: Vec<(Value, Value)> = Vec::new();
    for (k, v) in entries {
        let key = format!("{k:?}");
        match index.get(&key) {
            Some(&i) => out[i].1 = v,
            None => {
                index.insert(key, out.len());
                out.push((k, v));
            }
        }
    }
    out
}

/// `00112233-4455-6677-8899-aabbccddeeff` as its 16 bytes, in either case, also in the GUID
/// braces Apache's compiler takes (`{00112233-...}`).
fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let s = s.strip_prefix('{').and_then(|s| s.strip_suffix('}')).unwrap_or(s);
    let groups: Vec<&str> = s.split('-').collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    if lens != [8, 4, 4, 4, 12] {
        return None;
    }
    let hex: String = groups.concat();
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::parse_uuid;

    #[test]
    fn uuids() {
        assert_eq!(parse_uuid("00112233-4455-6677-8899-aabbccddeeff").unwrap()[15], 0xff);
        assert!(parse_uuid("0011-2233").is_none());
        assert_eq!(
            parse_uuid("{00112233-4455-6677-8899-aaBBccDDeeFF}"),
            parse_uuid("00112233-4455-6677-8899-aabbccddeeff")
        );
        assert!(parse_uuid("{00112233-4455-6677-8899-aabbccddeeff").is_none());
        assert!(parse_uuid("0g112233-4455-6677-8899-aabbccddeeff").is_none());
    }
}
