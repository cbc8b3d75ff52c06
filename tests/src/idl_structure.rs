//! Whether IDL exported by the derives and `#[service]` has the structure of the IDL the
//! types were generated from: both parsed and resolved by thrift-build and compared
//! structurally:
//! names, kinds, field ids, names, requiredness, types (typedefs seen through), literal
//! defaults, enum values, methods with their arguments, returns, `oneway` and `throws`.
//!
//! What the export cannot show today is skipped, by category, and counted:
//! - `typedef`s and `const`s: the derives export neither (a typedef is only a name).
//! - defaults that are not numbers or booleans (strings, binary, enum values, containers,
//!   structs): the derive renders only literal defaults.
//! - defaults of optional fields: an `Option` field takes no `default` in the derive.
//! - enum aliases (a second name for a number): a Rust enum has one variant per value; the
//!   alias is an associated constant the derive does not see.
//! - `extends`: `#[service]` has none, so the parent's methods are in the child (compared
//!   there, in order).
//! - argument requiredness and defaults: `#[service]` writes every argument, and Apache
//!   ignores `optional` on arguments too.
//! - union members' requiredness: a union has none (exactly one member is set).
//! - a default-requiredness field that leads back to its own struct: it must be `Option`
//!   to end the recursion, so it exports as `optional`.
//! - an empty union: generated as an empty struct (the union derive needs a member).
//! - a `oneway` method's return type, which Apache ignores with a warning.

use std::collections::BTreeMap;

use thrift_build::diagnostics::Diagnostics;
use thrift_build::resolve::{self, Def, DefId, Function, Program, Requiredness, StructKind, Type, Value};

/// A type as a string, through typedefs, named types by their bare IDL name.
fn shape(p: &Program, ty: &Type) -> String {
    match p.true_type(ty) {
        Type::List(e) => format!("list<{}>", shape(p, e)),
        Type::Set(e) => format!("set<{}>", shape(p, e)),
        Type::Map(k, v) => format!("map<{},{}>", shape(p, k), shape(p, v)),
        Type::Enum(id) | Type::Struct(id) | Type::Typedef(id) => p.def(*id).name().to_owned(),
        other => other.base_name().unwrap_or("?").to_owned(),
    }
}

/// Whether field `field` of struct `id` holds, outside any container, a struct that leads
/// back to `id`.
fn recursive(p: &Program, id: DefId, field: usize) -> bool {
    let direct = |s: DefId| -> Vec<DefId> {
        p.struct_def(s)
            .map(|s| {
                s.fields
                    .iter()
                    .filter_map(|f| if let Type::Struct(t) = p.true_type(&f.ty) { Some(*t) } else { None })
                    .collect()
            })
            .unwrap_or_default()
    };
    let Type::Struct(start) = p.true_type(&p.struct_def(id).unwrap().fields[field].ty) else { return false };
    let mut stack = vec![*start];
    let mut seen = vec![*start];
    while let Some(s) = stack.pop() {
        if s == id {
            return true;
        }
        for next in direct(s) {
            if !seen.contains(&next) {
                seen.push(next);
                stack.push(next);
            }
        }
    }
    false
}

/// What a comparison looked at, skipped by category, and found different.
#[derive(Default, Debug)]
pub struct Tally {
    /// Properties compared.
    pub compared: usize,
    /// Properties the export cannot show, by category.
    pub skipped: BTreeMap<&'static str, usize>,
    /// One line per difference.
    pub mismatches: Vec<String>,
}

impl Tally {
    fn skip(&mut self, category: &'static str) {
        *self.skipped.entry(category).or_default() += 1;
    }
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.compared += 1;
        if !ok {
            self.mismatches.push(what());
        }
    }
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x == y || (x - y).abs() <= f64::EPSILON * x.abs().max(1.0),
        (Value::Double(x), Value::Int(y)) | (Value::Int(y), Value::Double(x)) => *x == *y as f64,
        _ => a == b,
    }
}

fn compare_fields(
    t: &mut Tally,
    (p, q): (&Program, &Program),
    owner: &str,
    original: (Option<DefId>, &[resolve::Field]),
    exported: &[resolve::Field],
    kind: Option<StructKind>,
    args: bool,
) {
    t.check(original.1.len() == exported.len(), || {
        format!("{owner}: {} fields, exported {}", original.1.len(), exported.len())
    });
    for (i, f) in original.1.iter().enumerate() {
        let Some(g) = exported.iter().find(|g| g.id == f.id) else {
            t.check(false, || format!("{owner}.{}: id {} not exported", f.name, f.id));
            continue;
        };
        t.check(f.name == g.name, || format!("{owner}: field {} is `{}`, exported `{}`", f.id, f.name, g.name));
        t.check(shape(p, &f.ty) == shape(q, &g.ty), || {
            format!("{owner}.{}: type {}, exported {}", f.name, shape(p, &f.ty), shape(q, &g.ty))
        });
        // Requiredness.
        if f.requiredness == g.requiredness {
            t.check(true, String::new);
        } else if args {
            t.skip("argument requiredness");
        } else if kind == Some(StructKind::Union) {
            t.skip("union member requiredness");
        } else if f.requiredness == Requiredness::Default
            && g.requiredness == Requiredness::Optional
            && original.0.is_some_and(|id| recursive(p, id, i))
        {
            t.skip("recursive field made optional");
        } else {
            t.check(f.requiredness == g.requiredness, || {
                format!("{owner}.{}: {:?}, exported {:?}", f.name, f.requiredness, g.requiredness)
            });
        }
        // Defaults.
        match &f.default {
            None => {
                t.check(g.default.is_none(), || format!("{owner}.{}: no default, exported {:?}", f.name, g.default))
            }
            Some(_) if args => t.skip("argument defaults"),
            Some(_) if f.requiredness == Requiredness::Optional => t.skip("defaults of optional fields"),
            Some(v @ (Value::Int(_) | Value::Double(_) | Value::Bool(_))) if kind != Some(StructKind::Union) => t
                .check(g.default.as_ref().is_some_and(|w| numbers_equal(v, w)), || {
                    format!("{owner}.{}: default {v:?}, exported {:?}", f.name, g.default)
                }),
            Some(_) => t.skip("non-literal defaults (strings, enums, containers, structs, union members)"),
        }
    }
}

/// The methods of `service` with its ancestors', the root's first.
fn flattened(p: &Program, id: DefId) -> Vec<(DefId, &Function)> {
    let mut chain = vec![id];
    while let Some(Def::Service(s)) = chain.last().map(|c| p.def(*c)) {
        match s.extends {
            Some(parent) if !chain.contains(&parent) => chain.push(parent),
            _ => break,
        }
    }
    chain.reverse();
    chain
        .into_iter()
        .flat_map(|c| match p.def(c) {
            Def::Service(s) => s.functions.iter().map(|f| (c, f)).collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .collect()
}

/// Compares the root file of `p` with `exported_text`, the IDL exported from the code
/// generated from it, adding to `t`. `name` labels the differences.
///
/// # Panics
/// When the exported IDL does not parse.
pub fn compare_file(t: &mut Tally, name: &str, p: &Program, exported_text: &str) {
    let mut diags = Diagnostics::new();
    let q = resolve::load_str("exported.thrift", exported_text, &mut diags);
    assert!(
        !diags.has_errors(),
        "{name}: the exported IDL does not parse:\n{}\n{exported_text}",
        diags.render(&q.sources)
    );
    let root = p.roots[0];
    let g_file = q.file(q.roots[0]);
    let find = |n: &str| {
        g_file
            .definitions
            .iter()
            .enumerate()
            .find(|(_, d)| d.name() == n)
            .map(|(i, d)| (DefId { file: g_file.id, index: i }, d))
    };
    // Nothing exported that the IDL (with its includes) does not define.
    for d in &g_file.definitions {
        let known = p.files.iter().any(|f| f.definitions.iter().any(|o| o.name() == d.name()));
        t.check(known, || format!("{name}: exported `{}`, which the IDL does not define", d.name()));
    }
    for (index, def) in p.file(root).definitions.iter().enumerate() {
        let id = DefId { file: root, index };
        match def {
            Def::Const(_) => t.skip("consts"),
            Def::Typedef(_) => t.skip("typedefs"),
            Def::Enum(e) => {
                let Some((_, Def::Enum(g))) = find(&e.name) else {
                    t.check(false, || format!("{name}: enum {} not exported", e.name));
                    continue;
                };
                let mut expected = Vec::new();
                for v in &e.values {
                    if expected.iter().any(|(_, n)| *n == v.value) {
                        t.skip("enum aliases");
                    } else {
                        expected.push((v.name.clone(), v.value));
                    }
                }
                let got: Vec<(String, i32)> = g.values.iter().map(|v| (v.name.clone(), v.value)).collect();
                t.check(expected == got, || format!("{name}: enum {} values {expected:?}, exported {got:?}", e.name));
            }
            Def::Struct(s) => {
                let Some((_, Def::Struct(g))) = find(&s.name) else {
                    t.check(false, || format!("{name}: {} {} not exported", s.kind.keyword(), s.name));
                    continue;
                };
                if s.kind == StructKind::Union && s.fields.is_empty() {
                    t.skip("empty unions, generated as empty structs");
                } else {
                    t.check(s.kind == g.kind, || {
                        format!("{name}: {} is a {:?}, exported {:?}", s.name, s.kind, g.kind)
                    });
                }
                compare_fields(t, (p, &q), &s.name, (Some(id), &s.fields), &g.fields, Some(s.kind), false);
            }
            Def::Service(s) => {
                let Some((_, Def::Service(g))) = find(&s.name) else {
                    t.check(false, || format!("{name}: service {} not exported", s.name));
                    continue;
                };
                if s.extends.is_some() {
                    t.skip("extends (parent methods flattened into the child)");
                }
                let methods = flattened(p, id);
                t.check(methods.len() == g.functions.len(), || {
                    format!("{name}: {} has {} methods, exported {}", s.name, methods.len(), g.functions.len())
                });
                for ((_, f), h) in methods.iter().zip(&g.functions) {
                    let owner = format!("{}.{}", s.name, f.name);
                    t.check(f.name == h.name && f.oneway == h.oneway, || {
                        format!("{name}: {owner}, exported {}", h.name)
                    });
                    let returns = |p: &Program, r: &Option<Type>| r.as_ref().map(|r| shape(p, r));
                    if f.oneway && f.returns.is_some() {
                        t.skip("oneway return types");
                    } else {
                        t.check(returns(p, &f.returns) == returns(&q, &h.returns), || {
                            format!("{name}: {owner} return type")
                        });
                    }
                    compare_fields(t, (p, &q), &owner, (None, &f.args), &h.args, None, true);
                    compare_fields(t, (p, &q), &format!("{owner} throws"), (None, &f.throws), &h.throws, None, true);
                }
            }
        }
    }
}
