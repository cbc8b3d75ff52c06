//! Apache's semantics, as the resolver models them.

use thrift_build::diagnostics::Diagnostics;
use thrift_build::resolve::{self, Def, Program, Requiredness, Type, Value};

fn load(text: &str) -> (Program, Diagnostics) {
    let mut diags = Diagnostics::new();
    let program = resolve::load_str("t.thrift", text, &mut diags);
    (program, diags)
}

fn def<'a>(p: &'a Program, name: &str) -> &'a Def {
    p.file(p.roots[0]).definitions.iter().find(|d| d.name() == name).unwrap()
}

#[test]
fn field_ids_left_out_are_assigned_downwards_with_warnings() {
    let (p, diags) = load("struct S { string a, 3: string b, string c, 0: i32 d }");
    assert!(!diags.has_errors());
    assert_eq!(diags.warnings().count(), 3);
    let Def::Struct(s) = def(&p, "S") else { panic!() };
    let ids: Vec<(i16, bool)> = s.fields.iter().map(|f| (f.id, f.auto_id)).collect();
    assert_eq!(ids, [(-1, true), (3, false), (-2, true), (-3, true)]);
}

#[test]
fn enum_values_count_up_from_the_previous_one() {
    let (p, diags) = load("enum E { A, B = 5, C, D = -2, F, G = 0x10 }");
    assert!(!diags.has_errors());
    let Def::Enum(e) = def(&p, "E") else { panic!() };
    let values: Vec<i32> = e.values.iter().map(|v| v.value).collect();
    assert_eq!(values, [0, 5, 6, -2, -1, 16]);
}

#[test]
fn constants_as_apache_reads_them() {
    let (p, diags) = load(
        r#"
        enum E { A = 1, B = 2 }
        struct S { 1: i32 x, 2: optional E e }
        const bool T = true
        const bool ONE = 1
        const double D = 3
        const i32 REF = N
        const set<i32> EMPTY = {}
        const i32 FROM_ENUM = E.B
        "#,
    );
    // `N` is not defined: the one error.
    assert_eq!(diags.errors().count(), 1, "{}", diags.render(&p.sources));
    let value = |name: &str| match def(&p, name) {
        Def::Const(c) => c.value.clone(),
        _ => None,
    };
    assert_eq!(value("T"), Some(Value::Bool(true)));
    assert_eq!(value("ONE"), Some(Value::Bool(true)));
    assert_eq!(value("D"), Some(Value::Double(3.0)));
    assert_eq!(value("EMPTY"), Some(Value::Set(Vec::new())));
    assert_eq!(value("FROM_ENUM"), Some(Value::Int(2)));
    assert_eq!(value("REF"), None);
}

#[test]
fn enum_defaults_look_at_the_last_segment_in_the_expected_enum() {
    // Apache's EnumTest writes `MyEnum1.ME2_2` for a `MyEnum2` field: accepted, with a warning.
    let (p, diags) = load("enum A { X = 1 }\nenum B { Y = 2 }\nstruct S { 1: B b = A.Y }");
    assert!(!diags.has_errors());
    assert_eq!(diags.warnings().count(), 1);
    let Def::Struct(s) = def(&p, "S") else { panic!() };
    assert!(matches!(s.fields[0].default, Some(Value::Enum(_, 0))));
}

/// As Apache's model has them: a set as written (its generated collection holds each once),
/// a map with one value per key.
#[test]
fn sets_keep_what_is_written_and_maps_keep_the_last_value() {
    let (p, diags) = load("const set<i32> S = [2, 1, 2]\nconst map<i32, string> M = {1: \"a\", 1: \"b\"}");
    assert!(!diags.has_errors());
    let Def::Const(s) = def(&p, "S") else { panic!() };
    assert_eq!(s.value, Some(Value::Set(vec![Value::Int(2), Value::Int(1), Value::Int(2)])));
    let Def::Const(m) = def(&p, "M") else { panic!() };
    assert_eq!(m.value, Some(Value::Map(vec![(Value::Int(1), Value::String("b".into()))])));
}

#[test]
fn typedef_cycles_and_self_extension_are_errors() {
    let (_, diags) = load("typedef B A\ntypedef A B\nservice S extends S {}");
    let errors: Vec<String> = diags.errors().map(|d| d.message.clone()).collect();
    assert!(errors.iter().any(|e| e.contains("typedef `A` refers to itself")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("service `S` extends itself")), "{errors:?}");
}

#[test]
fn optional_arguments_are_default_requiredness_as_in_apache() {
    let (p, diags) = load("service S { void f(1: optional i32 x) }");
    assert!(!diags.has_errors());
    assert_eq!(diags.warnings().count(), 1);
    let Def::Service(s) = def(&p, "S") else { panic!() };
    assert_eq!(s.functions[0].args[0].requiredness, Requiredness::Default);
    assert_eq!(s.functions[0].args[0].ty, Type::I32);
}

#[test]
fn union_members_are_optional_as_in_apache() {
    let (p, diags) = load("union U { 1: i32 a\n 2: required string b }");
    assert!(!diags.has_errors());
    assert_eq!(diags.warnings().count(), 1, "required on a union member is ignored, with a warning");
    let Def::Struct(u) = def(&p, "U") else { panic!() };
    assert!(u.fields.iter().all(|f| f.requiredness == Requiredness::Optional));
}
