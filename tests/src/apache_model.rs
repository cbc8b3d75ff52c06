//! A resolved thrift-build [`Program`] and Apache's compiler's model of the same IDL file
//! (`thrift --gen json`), in one shape, compared field by field.
//!
//! [`ours`] writes a file of the program as Apache's JSON generator writes it: types
//! through typedefs (an enum as `i32`, as Apache writes it), structs, unions and exceptions
//! by `typeId` and `class` (`file.Name` across an include), requiredness as `required`,
//! `optional` or `req_out`, values as JSON (booleans as 1 or 0, map keys as strings, struct
//! values by field name). [`verdict`] runs Apache's compiler and keeps what is compared:
//! every struct, union and exception with its fields (ids, names, types, requiredness,
//! defaults), every enum's values, every constant's type and value, every typedef, every
//! service with `extends` and its methods (names, arguments, return types, `oneway`,
//! `throws`). Docs, annotations and namespaces are left out of both. [`diff`] names each
//! place where the two differ.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Map, Value as Json};
use thrift_build::diagnostics::FileId;
use thrift_build::resolve::{Def, Field, Program, Requiredness, StructKind, Type, Value};

/// What Apache's compiler says of an IDL file.
#[derive(Debug)]
pub enum Verdict {
    /// It accepts the file; its model, pruned to what is compared.
    Model(Json),
    /// Its parser accepts the file, but its JSON generator writes no readable model: it
    /// refuses a word some language reserves where another of its generators (Python,
    /// Java, Rust) takes the file, or it writes invalid JSON (a map whose keys are
    /// containers). Why, in words.
    AcceptedWithoutModel(String),
    /// It rejects the file, with its message.
    Rejected(String),
}

/// Runs Apache's compiler (`thrift --gen json`, with `include_dirs`) on `idl`.
///
/// # Panics
/// Apache's compiler `thrift` cannot be run: `scripts/install-test-deps.sh` installs it.
pub fn verdict(idl: &Path, include_dirs: &[PathBuf]) -> Verdict {
    let run = run(idl, include_dirs, "json");
    if run.success {
        return match serde_json::from_str::<Json>(&run.json) {
            Ok(json) => Verdict::Model(prune(json)),
            Err(e) => Verdict::AcceptedWithoutModel(format!("its JSON generator writes invalid JSON: {e}")),
        };
    }
    if !run.message.contains("[FAILURE:generation") {
        return Verdict::Rejected(run.message);
    }
    match ["py", "java", "rs"].into_iter().find(|generator| self::run(idl, include_dirs, generator).success) {
        Some(generator) => Verdict::AcceptedWithoutModel(format!(
            "its JSON generator refuses it ({}), its {generator} generator takes it",
            run.message.trim()
        )),
        None => Verdict::Rejected(run.message),
    }
}

/// One run of Apache's compiler.
struct Run {
    success: bool,
    /// What it printed.
    message: String,
    /// The `{stem}.json` it wrote, for the JSON generator; else empty.
    json: String,
}

fn run(idl: &Path, include_dirs: &[PathBuf], generator: &str) -> Run {
    let out = tempdir(idl);
    let mut command = Command::new("thrift");
    for dir in include_dirs {
        command.arg("-I").arg(dir);
    }
    let output = command.args(["--gen", generator, "-out"]).arg(&out).arg(idl).output().unwrap_or_else(|e| {
        panic!("cannot run Apache's compiler `thrift` (scripts/install-test-deps.sh installs it): {e}")
    });
    let stem = idl.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let json = std::fs::read_to_string(out.join(format!("{stem}.json"))).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&out);
    Run {
        success: output.status.success(),
        message: format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)),
        json,
    }
}

/// A folder of its own for one run of the compiler.
fn tempdir(idl: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let stem = idl.file_stem().and_then(|s| s.to_str()).unwrap_or("idl");
    let dir = std::env::temp_dir().join(format!(
        "thrift-apache-model-{}-{}-{stem}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("the temp folder is writable");
    dir
}

/// Apache's JSON without what is not compared: docs, annotations, namespaces, includes.
fn prune(json: Json) -> Json {
    match json {
        Json::Object(map) => Json::Object(
            map.into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "doc" | "annotations" | "namespaces" | "includes"))
                .map(|(k, v)| (k, prune(v)))
                .collect(),
        ),
        Json::Array(items) => Json::Array(items.into_iter().map(prune).collect()),
        other => other,
    }
}

/// File `file` of `program` in the shape of Apache's model ([`Verdict::Model`]).
pub fn ours(program: &Program, file: FileId) -> Json {
    let w = Writer { program, file };
    let f = program.file(file);
    let mut enums = Vec::new();
    let mut typedefs = Vec::new();
    let mut structs = Vec::new();
    let mut constants = Vec::new();
    let mut services = Vec::new();
    for def in &f.definitions {
        match def {
            Def::Enum(e) => enums.push(json!({
                "name": e.name,
                "members": e.values.iter().map(|v| json!({"name": v.name, "value": v.value})).collect::<Vec<_>>(),
            })),
            Def::Typedef(t) => {
                let mut out = named(&t.name);
                w.put_type(&mut out, &t.ty, "typeId", "type");
                typedefs.push(Json::Object(out));
            }
            Def::Struct(s) => structs.push(json!({
                "name": s.name,
                "isException": s.kind == StructKind::Exception,
                "isUnion": s.kind == StructKind::Union,
                "fields": s.fields.iter().map(|f| w.field(f)).collect::<Vec<_>>(),
            })),
            Def::Const(c) => {
                let mut out = named(&c.name);
                w.put_type(&mut out, &c.ty, "typeId", "type");
                if let Some(v) = &c.value {
                    out.insert("value".into(), w.value(v, &c.ty));
                }
                constants.push(Json::Object(out));
            }
            Def::Service(s) => {
                let mut out = named(&s.name);
                if let Some(parent) = s.extends {
                    out.insert("extends".into(), json!(program.idl_name(parent, file)));
                }
                let functions = s.functions.iter().map(|m| {
                    let mut f = named(&m.name);
                    match &m.returns {
                        Some(ty) => w.put_type(&mut f, ty, "returnTypeId", "returnType"),
                        None => {
                            f.insert("returnTypeId".into(), json!("void"));
                        }
                    }
                    f.insert("oneway".into(), json!(m.oneway));
                    f.insert("arguments".into(), m.args.iter().map(|a| w.field(a)).collect());
                    f.insert("exceptions".into(), m.throws.iter().map(|a| w.field(a)).collect());
                    Json::Object(f)
                });
                out.insert("functions".into(), functions.collect());
                services.push(Json::Object(out));
            }
        }
    }
    json!({
        "name": f.name,
        "enums": enums,
        "typedefs": typedefs,
        "structs": structs,
        "constants": constants,
        "services": services,
    })
}

/// An object holding `name`, the first key of every definition Apache writes.
fn named(name: &str) -> Map<String, Json> {
    let mut out = Map::new();
    out.insert("name".into(), json!(name));
    out
}

struct Writer<'a> {
    program: &'a Program,
    file: FileId,
}

impl Writer<'_> {
    /// `ty` into `out` as Apache writes a type: its `typeId` under `id_key`, and for a
    /// container or a struct the detail under `type_key`.
    fn put_type(&self, out: &mut Map<String, Json>, ty: &Type, id_key: &str, type_key: &str) {
        out.insert(id_key.into(), json!(self.type_id(ty)));
        if let Some(detail) = self.type_detail(ty) {
            out.insert(type_key.into(), detail);
        }
    }

    fn type_id(&self, ty: &Type) -> &'static str {
        match self.program.true_type(ty) {
            Type::List(_) => "list",
            Type::Set(_) => "set",
            Type::Map(..) => "map",
            Type::Enum(_) => "i32",
            Type::Struct(id) => match self.program.struct_def(*id).map(|s| s.kind) {
                Some(StructKind::Union) => "union",
                Some(StructKind::Exception) => "exception",
                _ => "struct",
            },
            other => other.base_name().unwrap_or("invalid"),
        }
    }

    /// What Apache writes under `type`: a container's element types, a struct's class.
    fn type_detail(&self, ty: &Type) -> Option<Json> {
        let ty = self.program.true_type(ty);
        let mut out = Map::new();
        out.insert("typeId".into(), json!(self.type_id(ty)));
        match ty {
            Type::List(e) | Type::Set(e) => self.put_type(&mut out, e, "elemTypeId", "elemType"),
            Type::Map(k, v) => {
                self.put_type(&mut out, k, "keyTypeId", "keyType");
                self.put_type(&mut out, v, "valueTypeId", "valueType");
            }
            Type::Struct(id) => {
                out.insert("class".into(), json!(self.program.idl_name(*id, self.file)));
            }
            _ => return None,
        }
        Some(Json::Object(out))
    }

    fn field(&self, f: &Field) -> Json {
        let mut out = Map::new();
        out.insert("key".into(), json!(f.id));
        out.insert("name".into(), json!(f.name));
        self.put_type(&mut out, &f.ty, "typeId", "type");
        let required = match f.requiredness {
            Requiredness::Required => "required",
            Requiredness::Optional => "optional",
            Requiredness::Default => "req_out",
        };
        out.insert("required".into(), json!(required));
        if let Some(v) = &f.default {
            out.insert("default".into(), self.value(v, &f.ty));
        }
        Json::Object(out)
    }

    /// A value as Apache's JSON generator writes it.
    fn value(&self, v: &Value, ty: &Type) -> Json {
        let ty = self.program.true_type(ty);
        match v {
            Value::Bool(b) => json!(u8::from(*b)),
            Value::Int(i) if matches!(ty, Type::Double) => json!(*i as f64),
            Value::Int(i) => json!(i),
            Value::Double(d) => json!(d),
            Value::String(s) => json!(s),
            Value::Uuid(bytes) => json!(uuid_text(bytes)),
            Value::Enum(id, index) => {
                json!(self.program.enum_def(*id).map_or(0, |e| e.values[*index].value))
            }
            Value::List(items) | Value::Set(items) => {
                let elem = match ty {
                    Type::List(e) | Type::Set(e) => e.as_ref(),
                    _ => &Type::Invalid,
                };
                items.iter().map(|item| self.value(item, elem)).collect()
            }
            Value::Map(entries) => {
                let (k, vt) = match ty {
                    Type::Map(k, v) => (k.as_ref(), v.as_ref()),
                    _ => (&Type::Invalid, &Type::Invalid),
                };
                let mut out = Map::new();
                for (key, value) in entries {
                    out.insert(map_key(&self.value(key, k)), self.value(value, vt));
                }
                Json::Object(out)
            }
            Value::Struct(id, given) => {
                let Some(s) = self.program.struct_def(*id) else { return Json::Null };
                let mut out = Map::new();
                for (index, value) in given {
                    let f = &s.fields[*index];
                    out.insert(f.name.clone(), self.value(value, &f.ty));
                }
                Json::Object(out)
            }
        }
    }
}

/// A JSON value as the string a JSON object key holds.
fn map_key(key: &Json) -> String {
    match key {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn uuid_text(b: &[u8; 16]) -> String {
    let hex: String = b.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// Every place where `apache` and `ours` differ, as `path: apache …, ours …`; empty when
/// they agree. Numbers are equal when their values are (`1` and `1.0`), doubles to the 15
/// digits Apache writes; an empty `{}` equals an empty `[]` (Apache keeps `{}` written for
/// an empty set as a map).
pub fn diff(apache: &Json, ours: &Json) -> Vec<String> {
    let mut out = Vec::new();
    walk("", apache, ours, &mut out);
    out
}

fn walk(path: &str, a: &Json, o: &Json, out: &mut Vec<String>) {
    match (a, o) {
        (Json::Object(a), Json::Object(o)) => {
            for (key, av) in a {
                let here = format!("{path}.{key}");
                match o.get(key) {
                    Some(ov) => walk(&here, av, ov, out),
                    None => out.push(format!("{here}: apache {av}, ours absent")),
                }
            }
            for (key, ov) in o {
                if !a.contains_key(key) {
                    out.push(format!("{path}.{key}: apache absent, ours {ov}"));
                }
            }
        }
        (Json::Array(a), Json::Array(o)) => {
            for (i, (av, ov)) in a.iter().zip(o).enumerate() {
                let label = av.get("name").and_then(Json::as_str).map_or_else(|| i.to_string(), str::to_owned);
                walk(&format!("{path}[{label}]"), av, ov, out);
            }
            if a.len() != o.len() {
                out.push(format!("{path}: apache has {} items, ours {}", a.len(), o.len()));
            }
        }
        (Json::Number(a), Json::Number(o)) if same_number(a, o) => {}
        // Apache keeps a `{}` written for an empty set or list as an empty map.
        (Json::Object(a), Json::Array(o)) if a.is_empty() && o.is_empty() => {}
        (a, o) if a == o => {}
        (a, o) => out.push(format!("{path}: apache {a}, ours {o}")),
    }
}

/// Integers equal as integers; doubles equal to the 15 significant digits Apache's JSON
/// generator writes (`9.22337203685478e+18` for 2^63).
fn same_number(a: &serde_json::Number, o: &serde_json::Number) -> bool {
    match (a.as_i64(), o.as_i64()) {
        (Some(a), Some(o)) => a == o,
        _ => {
            let digits = |n: &serde_json::Number| n.as_f64().map(|f| format!("{f:.14e}"));
            digits(a) == digits(o)
        }
    }
}
