//! The IDL export loses nothing the derives know: typedefs for `transparent` newtypes, doc
//! comments, every default (literals as written; enum, struct, union and map values as IDL
//! constants; a `with` field's as its wire value), one definition per generic instantiation,
//! unknown variants left out, and the namespaces, typedefs and constants added to the
//! document. The exported document equals a hand-written `.thrift` token by token, Apache's
//! compiler accepts it without a warning, and the Python generated from it exchanges values
//! with the Rust types in both protocols.
//!
//! Needs Apache's compiler and Python library: `bash scripts/install-test-deps.sh`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use thrift_core::{Idl, ThriftEnum, ThriftStruct, ThriftUnion};
use thrift_tests::interop::Interop;
use thrift_tests::json::{object, ToJson};
use thrift_tests::python::{workspace_root, TempDir};

/// A user's id.
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[thrift(transparent)]
struct UserId(i64);

/// How an account stands.
#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(i32)]
enum Status {
    /// Can sign in.
    #[default]
    Active = 1,
    Banned = 2,
    #[thrift(unknown)]
    Unknown(i32),
}

#[derive(ThriftUnion, Debug, Clone, PartialEq)]
enum Contact {
    #[thrift(id = 1, name = "email")]
    Email(String),
    #[thrift(id = 2, name = "phone")]
    Phone(i64),
    #[thrift(unknown)]
    Unknown(i16),
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Page<T> {
    #[thrift(id = 1)]
    items: Vec<T>,
    #[thrift(id = 2)]
    more: bool,
}

/// Refused, with the reason.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception, display = false)]
struct Denied {
    #[thrift(id = 1)]
    reason: String,
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "denied: {}", self.reason)
    }
}

/// One account.
///
/// Both lines of this comment reach the IDL.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(rename_all = "camelCase")]
struct Account {
    #[thrift(id = 1, required)]
    user_id: UserId,
    /// Shown to others.
    #[thrift(id = 2, default = "guest \"g\"")]
    display_name: String,
    #[thrift(id = 3, default = [1, 2])]
    lucky: Vec<i32>,
    #[thrift(id = 4, default = -1.5)]
    score: f64,
    #[thrift(id = 5)]
    status: Status,
    #[thrift(id = 6)]
    contact: Option<Contact>,
    #[thrift(id = 7)]
    names: Page<String>,
    #[thrift(id = 8)]
    friends: Page<UserId>,
    #[thrift(id = 9)]
    denied: Option<Denied>,
    /// Defaults that are values, not literals: each as the IDL spells it.
    #[thrift(id = 10, default = Status::Banned)]
    fallback: Status,
    #[thrift(id = 11, default = Page { items: vec!["x".into()], more: true })]
    first_page: Page<String>,
    #[thrift(id = 12, default = Contact::Email("a@example.com".into()))]
    reach: Contact,
    #[thrift(id = 13, default = BTreeMap::from([("a".to_owned(), vec![Status::Active])]))]
    by_tag: BTreeMap<String, Vec<Status>>,
    /// A `with` field: on the wire, and so in the IDL, as milliseconds.
    #[thrift(id = 14, with = "millis", default = Duration::from_secs(30))]
    timeout: Duration,
    #[thrift(skip)]
    cache: i32,
}

/// A `Duration` as whole milliseconds.
mod millis {
    use std::time::Duration;

    pub fn encode(value: &Duration) -> i64 {
        i64::try_from(value.as_millis()).unwrap_or(i64::MAX)
    }

    pub fn decode(ms: i64) -> Result<Duration, String> {
        u64::try_from(ms).map(Duration::from_millis).map_err(|_| format!("negative duration: {ms} ms"))
    }
}

impl ToJson for UserId {
    fn to_json(&self) -> Value {
        self.0.to_json()
    }
}

impl ToJson for Status {
    fn to_json(&self) -> Value {
        i32::from(self).into()
    }
}

impl ToJson for Contact {
    fn to_json(&self) -> Value {
        match self {
            Contact::Email(v) => json!({ "email": v.to_json() }),
            Contact::Phone(v) => json!({ "phone": v.to_json() }),
            Contact::Unknown(_) => json!({}),
        }
    }
}

impl<T: ToJson> ToJson for Page<T> {
    fn to_json(&self) -> Value {
        object([("items", Some(self.items.to_json())), ("more", Some(self.more.to_json()))])
    }
}

impl ToJson for Denied {
    fn to_json(&self) -> Value {
        object([("reason", Some(self.reason.to_json()))])
    }
}

impl ToJson for Account {
    fn to_json(&self) -> Value {
        object([
            ("userId", Some(self.user_id.to_json())),
            ("displayName", Some(self.display_name.to_json())),
            ("lucky", Some(self.lucky.to_json())),
            ("score", Some(self.score.to_json())),
            ("status", Some(self.status.to_json())),
            ("names", Some(self.names.to_json())),
            ("friends", Some(self.friends.to_json())),
            ("contact", self.contact.as_ref().map(ToJson::to_json)),
            ("denied", self.denied.as_ref().map(ToJson::to_json)),
            ("fallback", Some(self.fallback.to_json())),
            ("firstPage", Some(self.first_page.to_json())),
            ("reach", Some(self.reach.to_json())),
            ("byTag", Some(self.by_tag.to_json())),
            ("timeout", Some(millis::encode(&self.timeout).to_json())),
        ])
    }
}

/// The document: the types `Account` uses, and declarations no Rust type carries.
fn exported() -> String {
    let mut idl = Idl::new();
    idl.namespace("py", "exported")
        .namespace("java", "com.example.exported")
        .typedef::<BTreeMap<String, i64>>("Counters")
        .constant("MAX_FRIENDS", &500i32)
        .constant("DEFAULT_STATUS", &Status::Active)
        .constant("GREETINGS", &vec!["hi".to_owned(), "hello".to_owned()])
        .add::<Account>();
    assert!(idl.conflicts().is_empty(), "{:?}", idl.conflicts());
    idl.render()
}

/// The tokens of an IDL document: identifiers and numbers, string literals, punctuation, and
/// each doc comment as one token with its lines trimmed; `//` and `#` comments dropped.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |i| i + 2);
            let body: Vec<&str> = rest[..end].lines().map(str::trim).collect();
            out.push(body.join(" "));
            rest = &rest[end..];
        } else if rest.starts_with("//") || c == '#' {
            rest = rest.find('\n').map_or("", |i| &rest[i..]);
        } else if c == '"' {
            let mut end = 1;
            let bytes = rest.as_bytes();
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            out.push(rest[..=end.min(rest.len() - 1)].to_owned());
            rest = &rest[(end + 1).min(rest.len())..];
        } else if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' {
            let end =
                rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '-')).unwrap_or(rest.len());
            out.push(rest[..end].to_owned());
            rest = &rest[end..];
        } else {
            out.push(c.to_string());
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[test]
fn the_export_equals_the_hand_written_document_token_by_token() {
    let path = workspace_root().join("tests/idl/exported.thrift");
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let text = exported();
    let (ours, theirs) = (tokens(&text), tokens(&expected));
    if let Some(i) = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i)) {
        panic!(
            "token {i} differs: exported {:?}, expected {:?}\nexported document:\n{text}",
            ours.get(i),
            theirs.get(i)
        );
    }
    // The tokenizer sees what matters.
    assert!(ours.contains(&"\"guest \\\"g\\\"\"".to_owned()), "{ours:?}");
    assert!(ours.iter().any(|t| t.starts_with("/** * One account.")), "{ours:?}");
}

fn account() -> Account {
    Account {
        user_id: UserId(42),
        display_name: "ada".into(),
        lucky: vec![7],
        score: 0.25,
        status: Status::Banned,
        contact: Some(Contact::Phone(5550100)),
        names: Page { items: vec!["a".into(), "b".into()], more: true },
        friends: Page { items: vec![UserId(1)], more: false },
        denied: Some(Denied { reason: "no".into() }),
        fallback: Status::Active,
        first_page: Page { items: vec![], more: false },
        reach: Contact::Phone(1),
        by_tag: BTreeMap::from([("b".to_owned(), vec![Status::Banned, Status::Active])]),
        timeout: Duration::from_millis(250),
        cache: 0,
    }
}

/// Apache's compiler takes the export with no warning (`generate_python` fails on one), and
/// its Python reads and writes the same bytes as the derives.
#[test]
fn the_export_compiles_cleanly_and_interoperates() {
    let dir = TempDir::new("exported-idl").unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("exported.thrift");
    std::fs::write(&path, exported()).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    let mut t = Interop::start_with(&[&path], "exported");
    t.value("account", "Account", &account());
    let defaults = Account { contact: None, denied: None, ..account() };
    t.value("account, optionals unset", "Account", &defaults);
    t.finish("the_export_compiles_cleanly_and_interoperates");
}

/// The derived mirrors of tests/idl/interop.thrift (`thrift_tests::derived`), exported as
/// one document instead of the hand-written file: Apache's compiler takes it without a
/// warning (among its defaults an enum value, `Color.Green`), and its Python exchanges
/// generated values of every kind with the derives.
#[test]
fn the_interop_mirrors_export_cleanly_and_interoperate() {
    use proptest::arbitrary::any_with;
    use thrift_core::testing::Sizes;
    use thrift_tests::derived::{Everything, Sparse};
    use thrift_tests::seed::Seed;

    let mut idl = Idl::new();
    idl.add::<Everything>().add::<Sparse>();
    assert!(idl.conflicts().is_empty(), "{:?}", idl.conflicts());
    let text = idl.render();
    assert!(text.contains("  7: Color color = Color.Green\n"), "{text}");
    let dir = TempDir::new("mirrors-idl").unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("mirrors.thrift");
    std::fs::write(&path, &text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    let seed = Seed::from_env("THRIFT_INTEROP_SEED");
    println!("generated values: {seed}");
    let sizes = Sizes { max_collection: 3, max_string: 8, max_depth: 3 };
    let mut t = Interop::start_with(&[&path], "mirrors");
    t.generated("Everything", any_with::<Everything>(sizes), 40, &seed);
    t.generated("Sparse", any_with::<Sparse>(sizes), 20, &seed);
    t.finish(&format!("the exported mirrors (seed {})", seed.value()));
}

mod thrift_test {
    //! Apache's ThriftTest as the derives and the service macro export it from the Rust
    //! thrift-build generated (`thrift_conformance::idl()`), rather than Apache's own file.

    use serde_json::{json, Value};
    use thrift_conformance::thrift_test::{Bonk, Insanity, Numberz, Xtruct, Xtruct2};
    use thrift_tests::interop::{decode_json, Interop};
    use thrift_tests::json::{object, ToJson};
    use thrift_tests::python::TempDir;

    /// A generated type with the JSON form the Python helper reads: a local newtype,
    /// encoded as the type it wraps (the type and `ToJson` both belong to other crates).
    macro_rules! wrapped {
        ($($local:ident($ty:ty) => |$v:ident| $json:expr),* $(,)?) => {$(
            #[derive(thrift_core::ThriftStruct, Debug, Clone, PartialEq, Default)]
            #[thrift(transparent)]
            struct $local($ty);

            impl ToJson for $local {
                fn to_json(&self) -> Value {
                    let $v = &self.0;
                    $json
                }
            }
        )*};
    }

    fn xtruct_json(v: &Xtruct) -> Value {
        object([
            ("string_thing", Some(v.string_thing.to_json())),
            ("byte_thing", Some(v.byte_thing.to_json())),
            ("i32_thing", Some(v.i32_thing.to_json())),
            ("i64_thing", Some(v.i64_thing.to_json())),
        ])
    }

    wrapped! {
        JXtruct(Xtruct) => |v| xtruct_json(v),
        JXtruct2(Xtruct2) => |v| object([
            ("byte_thing", Some(v.byte_thing.to_json())),
            ("struct_thing", Some(xtruct_json(&v.struct_thing))),
            ("i32_thing", Some(v.i32_thing.to_json())),
        ]),
        JBonk(Bonk) => |v| object([("message", Some(v.message.to_json())), ("type", Some(v.r#type.to_json()))]),
        JInsanity(Insanity) => |v| {
            let user_map: Vec<Value> =
                v.user_map.iter().map(|(k, id)| json!([i32::from(k), id])).collect();
            let xtructs: Vec<Value> = v.xtructs.iter().map(xtruct_json).collect();
            object([("userMap", Some(Value::Array(user_map))), ("xtructs", Some(Value::Array(xtructs)))])
        },
    }

    fn xtruct(s: &str, n: i32) -> Xtruct {
        Xtruct { string_thing: s.into(), byte_thing: n as i8, i32_thing: n * 1000, i64_thing: i64::from(n) << 40 }
    }

    /// Apache's compiler takes the whole exported document, both services included, with no
    /// warning, and the Python generated from it exchanges values with the Rust types.
    #[test]
    fn the_thrift_test_export_compiles_cleanly_and_interoperates() {
        let text = thrift_conformance::idl();
        assert!(text.contains("service ThriftTest {"), "{text}");
        let dir = TempDir::new("thrift-test-idl").unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("ThriftTest.thrift");
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        let mut t = Interop::start_with(&[&path], "ThriftTest");
        t.value_with("Xtruct", "Xtruct", &JXtruct(xtruct("Zero", 0)), decode_json::<JXtruct>);
        t.value_with("Xtruct, extremes", "Xtruct", &JXtruct(xtruct("ünï ✓", -128)), decode_json::<JXtruct>);
        let nested = Xtruct2 { byte_thing: 1, struct_thing: xtruct("in", 7), i32_thing: -1 };
        t.value_with("Xtruct2", "Xtruct2", &JXtruct2(nested), decode_json::<JXtruct2>);
        t.value_with("Bonk", "Bonk", &JBonk(Bonk { message: "m".into(), r#type: 3 }), decode_json::<JBonk>);
        let insanity = Insanity {
            user_map: [(Numberz::Five, 5), (Numberz::Eight, 8)].into_iter().collect(),
            xtructs: vec![xtruct("a", 1), xtruct("b", 2)],
        };
        t.value_with("Insanity", "Insanity", &JInsanity(insanity), decode_json::<JInsanity>);
        t.finish("the_thrift_test_export_compiles_cleanly_and_interoperates");
    }
}
