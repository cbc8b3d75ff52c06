//! Values of the types thrift-build generated from Apache's `ThriftTest.thrift`, against
//! what Apache's Python library does with code Apache's compiler generated from the same
//! file: Python's bytes decode to the same value, ours are byte for byte Python's (where
//! Python's order is fixed), and Python reads ours back, in binary and compact, pure and
//! accelerated.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use thrift_conformance::thrift_test::{
    Bonk, Insanity, ListBonks, NestedListsBonk, Numberz, SomeUnion, Xtruct, Xtruct2, Xtruct3,
};
use thrift_tests::interop::{decode_json, Interop};
use thrift_tests::json::{object, ToJson};

/// The JSON form the Python helper reads, for the generated types (a local trait: they and
/// [`ToJson`] both belong to other crates).
trait Json {
    fn json(&self) -> Value;
}

impl<T: Json> Json for Vec<T> {
    fn json(&self) -> Value {
        self.iter().map(Json::json).collect()
    }
}

impl Json for Numberz {
    fn json(&self) -> Value {
        i32::from(self).into()
    }
}

/// [`Json`] for a generated struct: each Rust field under its IDL name, with `json` for the
/// generated types and `to_json` for the rest.
macro_rules! json_fields {
    ($ty:ty { $($field:ident $how:ident $name:literal),* $(,)? }) => {
        impl Json for $ty {
            fn json(&self) -> Value {
                object([$( ($name, Some(self.$field.$how())), )*])
            }
        }
    };
}

json_fields!(Xtruct {
    string_thing to_json "string_thing", byte_thing to_json "byte_thing",
    i32_thing to_json "i32_thing", i64_thing to_json "i64_thing",
});
json_fields!(Xtruct2 { byte_thing to_json "byte_thing", struct_thing json "struct_thing", i32_thing to_json "i32_thing" });
json_fields!(Xtruct3 {
    string_thing to_json "string_thing", changed to_json "changed",
    i32_thing to_json "i32_thing", i64_thing to_json "i64_thing",
});
json_fields!(Bonk { message to_json "message", r#type to_json "type" });
json_fields!(ListBonks { bonk json "bonk" });
json_fields!(NestedListsBonk { bonk json "bonk" });

impl Json for Insanity {
    fn json(&self) -> Value {
        let user_map: Vec<Value> = self.user_map.iter().map(|(k, v)| json!([k.json(), v])).collect();
        object([("userMap", Some(Value::Array(user_map))), ("xtructs", Some(self.xtructs.json()))])
    }
}

impl Json for SomeUnion {
    fn json(&self) -> Value {
        match self {
            SomeUnion::StringThing(v) => json!({ "string_thing": v }),
            SomeUnion::I32Thing(v) => json!({ "i32_thing": v }),
            SomeUnion::XtructThing(v) => json!({ "xtruct_thing": v.json() }),
            SomeUnion::InsanityThing(v) => json!({ "insanity_thing": v.json() }),
            other => panic!("no JSON form here for {other:?}"),
        }
    }
}

/// A generated type with its JSON form, as the interop machinery takes it: a local newtype,
/// encoded exactly as the type it wraps.
macro_rules! wrapped {
    ($($local:ident($ty:ty)),* $(,)?) => {$(
        #[derive(thrift_core::ThriftStruct, Debug, Clone, PartialEq, Default)]
        #[thrift(transparent)]
        struct $local($ty);

        impl ToJson for $local {
            fn to_json(&self) -> Value {
                self.0.json()
            }
        }
    )*};
}

wrapped!(JXtruct(Xtruct), JXtruct2(Xtruct2), JXtruct3(Xtruct3), JInsanity(Insanity), JBonk(Bonk));
wrapped!(JListBonks(ListBonks), JNestedListsBonk(NestedListsBonk), JSomeUnion(SomeUnion));

fn xtruct(s: &str, n: i32) -> Xtruct {
    Xtruct { string_thing: s.into(), byte_thing: n as i8, i32_thing: n * 1000, i64_thing: i64::from(n) << 40 }
}

#[test]
fn generated_types_read_and_write_what_apaches_python_does() {
    let idl = thrift_tests::apache_src::apache_file("test/ThriftTest.thrift");
    let mut t = Interop::start_with(&[&idl], "ThriftTest");
    t.value_with("Xtruct", "Xtruct", &JXtruct(xtruct("Zero", 0)), decode_json::<JXtruct>);
    t.value_with(
        "Xtruct, extremes",
        "Xtruct",
        &JXtruct(Xtruct {
            string_thing: "ünïcødé ✓".into(),
            byte_thing: i8::MIN,
            i32_thing: i32::MIN,
            i64_thing: i64::MAX,
        }),
        decode_json::<JXtruct>,
    );
    let nested = Xtruct2 { byte_thing: 1, struct_thing: xtruct("inner", -3), i32_thing: 5 };
    t.value_with("Xtruct2", "Xtruct2", &JXtruct2(nested), decode_json::<JXtruct2>);
    let three = Xtruct3 { string_thing: "three".into(), changed: 3, i32_thing: -33, i64_thing: 333 };
    t.value_with("Xtruct3", "Xtruct3", &JXtruct3(three.clone()), decode_json::<JXtruct3>);
    let insanity =
        Insanity { user_map: BTreeMap::from([(Numberz::Five, 5)]), xtructs: vec![xtruct("a", 1), xtruct("b", 2)] };
    t.value_with("Insanity", "Insanity", &JInsanity(insanity.clone()), decode_json::<JInsanity>);
    let unknown = Insanity { user_map: BTreeMap::from([(Numberz::Other(42), -1)]), xtructs: vec![] };
    t.value_with(
        "Insanity, a Numberz this IDL does not name",
        "Insanity",
        &JInsanity(unknown),
        decode_json::<JInsanity>,
    );
    t.value_with(
        "Bonk (`type` in the IDL)",
        "Bonk",
        &JBonk(Bonk { message: "m".into(), r#type: 7 }),
        decode_json::<JBonk>,
    );
    let bonks: Vec<Bonk> = (0..3).map(|i| Bonk { message: format!("{i}"), r#type: i }).collect();
    t.value_with("ListBonks", "ListBonks", &JListBonks(ListBonks { bonk: bonks.clone() }), decode_json::<JListBonks>);
    let deep = NestedListsBonk { bonk: vec![vec![bonks.clone(), vec![]], vec![]] };
    t.value_with("NestedListsBonk", "NestedListsBonk", &JNestedListsBonk(deep), decode_json::<JNestedListsBonk>);
    for (case, union) in [
        ("SomeUnion string", SomeUnion::StringThing("s".into())),
        ("SomeUnion i32", SomeUnion::I32Thing(-9)),
        ("SomeUnion struct", SomeUnion::XtructThing(three.clone())),
        ("SomeUnion nested", SomeUnion::InsanityThing(insanity.clone())),
    ] {
        t.value_with(case, "SomeUnion", &JSomeUnion(union), decode_json::<JSomeUnion>);
    }
    json_cases(&mut t, &insanity, &three, &bonks);
    t.finish("generated ThriftTest types against Apache's Python");
}

/// The same types through Apache's Python `TJSONProtocol`: none holds a double or a
/// `binary`, where Python's bytes are its own (see `Interop::json_value_with`), so ours must
/// be Python's byte for byte.
fn json_cases(t: &mut Interop, insanity: &Insanity, three: &Xtruct3, bonks: &[Bonk]) {
    let extremes = Xtruct {
        string_thing: "ünïcødé ✓ \"q\" \\ / \t\n".into(),
        byte_thing: i8::MIN,
        i32_thing: i32::MIN,
        i64_thing: i64::MAX,
    };
    t.json_value_with("Xtruct", "Xtruct", &JXtruct(extremes), decode_json::<JXtruct>, true);
    let nested = Xtruct2 { byte_thing: 1, struct_thing: xtruct("inner", -3), i32_thing: 5 };
    t.json_value_with("Xtruct2", "Xtruct2", &JXtruct2(nested), decode_json::<JXtruct2>, true);
    t.json_value_with("Insanity", "Insanity", &JInsanity(insanity.clone()), decode_json::<JInsanity>, true);
    let empty = Insanity { user_map: BTreeMap::new(), xtructs: vec![] };
    t.json_value_with("Insanity, empty", "Insanity", &JInsanity(empty), decode_json::<JInsanity>, true);
    let deep = NestedListsBonk { bonk: vec![vec![bonks.to_vec(), vec![]], vec![]] };
    t.json_value_with(
        "NestedListsBonk",
        "NestedListsBonk",
        &JNestedListsBonk(deep),
        decode_json::<JNestedListsBonk>,
        true,
    );
    let union = SomeUnion::XtructThing(three.clone());
    t.json_value_with("SomeUnion struct", "SomeUnion", &JSomeUnion(union), decode_json::<JSomeUnion>, true);
}
