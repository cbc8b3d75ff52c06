//! serde's vocabulary on the derives (`transparent`, `skip`, `rename_all`, `bound`, literal
//! defaults, an exception's own `Display`) and the ecosystem's field types (`Box<str>`,
//! `Arc<str>`, `Rc<str>`, `Box<[u8]>`, `VecDeque`, `Cow<[u8]>`), each through both protocols.

use std::borrow::Cow;
use std::collections::{BTreeSet, VecDeque};
use std::fmt::Debug;
use std::rc::Rc;
use std::sync::Arc;

use bytes::Bytes;
use thrift_core::{Binary, Compact, DecodeOwned, Encode, Idl, IdlType, Protocol, ThriftEnum, ThriftStruct};

fn roundtrip<T: Encode + DecodeOwned + PartialEq + Debug>(value: &T) {
    fn one<P: Protocol, T: Encode + DecodeOwned + PartialEq + Debug>(value: &T) {
        let bytes = thrift_core::to_vec::<P, _>(value);
        assert_eq!(value.encoded_len::<P>(), bytes.len(), "{}", P::NAME);
        assert_eq!(&thrift_core::from_slice::<P, T>(&bytes).unwrap(), value, "{}", P::NAME);
    }
    one::<Binary, T>(value);
    one::<Compact, T>(value);
}

/// [`roundtrip`] for a type that borrows from its input.
macro_rules! roundtrip_borrowed {
    ($value:expr, $ty:ty) => {{
        let value = $value;
        let bytes = thrift_core::to_vec::<Binary, _>(&value);
        let back: $ty = thrift_core::from_slice::<Binary, _>(&bytes).unwrap();
        assert_eq!(back, value, "binary");
        let bytes = thrift_core::to_vec::<Compact, _>(&value);
        let back: $ty = thrift_core::from_slice::<Compact, _>(&bytes).unwrap();
        assert_eq!(back, value, "compact");
    }};
}

fn idl_of<T: IdlType>() -> String {
    Idl::new().add::<T>().render()
}

// ---- transparent ----

#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[thrift(transparent)]
struct UserId(i64);

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(transparent, name = "Tag")]
struct Label<'a> {
    text: Cow<'a, str>,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Account<'a> {
    #[thrift(id = 1, required)]
    id: UserId,
    #[thrift(id = 2)]
    friends: BTreeSet<UserId>,
    #[thrift(id = 3)]
    label: Label<'a>,
    #[thrift(id = 4)]
    flag: Flag,
}

#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Default)]
#[thrift(transparent)]
struct Flag(bool);

#[test]
fn transparent_newtypes_are_their_field_on_the_wire() {
    for id in [0i64, -1, i64::MAX] {
        assert_eq!(thrift_core::to_vec::<Compact, _>(&UserId(id)), thrift_core::to_vec::<Compact, _>(&id));
        assert_eq!(thrift_core::to_vec::<Binary, _>(&UserId(id)), thrift_core::to_vec::<Binary, _>(&id));
    }
    let account = Account {
        id: UserId(7),
        friends: [UserId(1), UserId(2)].into(),
        label: Label { text: "x".into() },
        flag: Flag(true),
    };
    roundtrip_borrowed!(account.clone(), Account<'_>);
    // A bool newtype keeps compact's bool-in-the-field-header form.
    let mut plain = Vec::new();
    let mut s = thrift_core::StructEncoder::<Compact, _>::new(&mut plain);
    s.field(4, &true);
    s.finish();
    let mut wrapped = Vec::new();
    let mut s = thrift_core::StructEncoder::<Compact, _>::new(&mut wrapped);
    s.field(4, &Flag(true));
    s.finish();
    assert_eq!(plain, wrapped);
    // Borrowed through the newtype.
    let bytes = Bytes::from(thrift_core::to_vec::<Binary, _>(&account));
    let back: Account<'_> = thrift_core::from_bytes::<Binary, _>(&bytes).unwrap();
    assert!(matches!(back.label.text, Cow::Borrowed("x")));

    let idl = idl_of::<Account<'_>>();
    assert!(idl.starts_with("typedef i64 UserId\n\ntypedef string Tag\n\ntypedef bool Flag\n"), "{idl}");
    assert!(idl.contains("1: required UserId id\n  2: set<UserId> friends\n  3: Tag label\n"), "{idl}");
}

// ---- skip ----

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Cached {
    #[thrift(id = 1)]
    key: String,
    #[thrift(skip)]
    hits: u64,
    #[thrift(skip, default = "unset")]
    note: String,
}

#[test]
fn skipped_fields_are_not_written_and_take_their_default() {
    let value = Cached { key: "k".into(), hits: 99, note: "local".into() };
    let bytes = thrift_core::to_vec::<Binary, _>(&value);
    #[derive(ThriftStruct, Debug, PartialEq)]
    struct KeyOnly {
        #[thrift(id = 1)]
        key: String,
    }
    assert_eq!(bytes, thrift_core::to_vec::<Binary, _>(&KeyOnly { key: "k".into() }));
    let back: Cached = thrift_core::from_slice::<Binary, _>(&bytes).unwrap();
    assert_eq!(back, Cached { key: "k".into(), hits: 0, note: "unset".into() });
    assert_eq!(idl_of::<Cached>(), "struct Cached {\n  1: string key\n}\n");
}

// ---- rename_all ----

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(rename_all = "camelCase")]
struct Profile {
    #[thrift(id = 1)]
    user_name: String,
    #[thrift(id = 2, name = "EXPLICIT")]
    explicit_name: i32,
}

#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Default)]
#[thrift(closed, rename_all = "SCREAMING_SNAKE_CASE")]
enum Level {
    #[default]
    NotSet = 0,
    VeryHigh = 2,
}

#[test]
fn rename_all_sets_idl_names_not_wire_bytes() {
    roundtrip(&Profile { user_name: "u".into(), explicit_name: 3 });
    assert_eq!(idl_of::<Profile>(), "struct Profile {\n  1: string userName\n  2: i32 EXPLICIT\n}\n");
    assert_eq!(idl_of::<Level>(), "enum Level {\n  NOT_SET = 0\n  VERY_HIGH = 2\n}\n");
}

// ---- bound ----

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(bound = "T: Default")]
struct Page<T> {
    #[thrift(id = 1)]
    item: T,
    #[thrift(id = 2)]
    more: bool,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Item {
    #[thrift(id = 1)]
    n: i32,
}

#[test]
fn bound_adds_what_a_generic_default_field_needs() {
    roundtrip(&Page { item: Item { n: 1 }, more: true });
    roundtrip(&Page { item: String::from("s"), more: false });
    // Absent: `T::default()`.
    let page: Page<Item> = thrift_core::from_slice::<Compact, _>(&[0]).unwrap();
    assert_eq!(page, Page { item: Item { n: 0 }, more: false });
}

#[test]
fn each_generic_instantiation_is_its_own_idl_definition() {
    let mut idl = Idl::new();
    idl.add::<Page<Item>>().add::<Page<String>>().add::<Page<Vec<i64>>>();
    let text = idl.render();
    assert!(text.contains("struct Page_Item {\n  1: Item item\n"), "{text}");
    assert!(text.contains("struct Page_string {\n  1: string item\n"), "{text}");
    assert!(text.contains("struct Page_list_i64 {\n  1: list<i64> item\n"), "{text}");
}

// ---- literal defaults ----

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Defaults {
    #[thrift(id = 1, default = "guest")]
    user: String,
    #[thrift(id = 2, default = "b")]
    boxed: Box<str>,
    #[thrift(id = 3, default = "a")]
    shared: Arc<str>,
    #[thrift(id = 4, default = [1, 2, 3])]
    ids: Vec<i32>,
    #[thrift(id = 5, default = b"\x00\x01")]
    raw: Vec<u8>,
    #[thrift(id = 6, default = -2.5)]
    ratio: f64,
    #[thrift(id = 7, default = true)]
    on: bool,
    #[thrift(id = 8, default = "say \"hi\"\n")]
    quoted: String,
    #[thrift(id = 9, default = [7])]
    seen: BTreeSet<i64>,
}

#[test]
fn literal_defaults_convert_into_the_field_type_and_show_in_the_idl() {
    let absent: Defaults = thrift_core::from_slice::<Binary, _>(&[0]).unwrap();
    assert_eq!(
        absent,
        Defaults {
            user: "guest".into(),
            boxed: "b".into(),
            shared: "a".into(),
            ids: vec![1, 2, 3],
            raw: vec![0, 1],
            ratio: -2.5,
            on: true,
            quoted: "say \"hi\"\n".into(),
            seen: [7].into(),
        }
    );
    roundtrip(&absent);
    let idl = idl_of::<Defaults>();
    for line in [
        "1: string user = \"guest\"",
        "2: string boxed = \"b\"",
        "3: string shared = \"a\"",
        "4: list<i32> ids = [1, 2, 3]",
        "6: double ratio = -2.5",
        "7: bool on = true",
        "8: string quoted = \"say \\\"hi\\\"\\n\"",
        "9: set<i64> seen = [7]",
    ] {
        assert!(idl.contains(line), "{line} in {idl}");
    }
    // A byte string has no IDL literal: the field is exported without one.
    assert!(idl.contains("5: binary raw\n"), "{idl}");
}

// ---- display = false ----

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(exception, display = false)]
struct Overloaded {
    #[thrift(id = 1)]
    retry_after_ms: i32,
}

impl std::fmt::Display for Overloaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "overloaded: retry after {} ms", self.retry_after_ms)
    }
}

#[test]
fn an_exception_can_have_its_own_display() {
    let err = Overloaded { retry_after_ms: 50 };
    roundtrip(&err);
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert_eq!(boxed.to_string(), "overloaded: retry after 50 ms");
}

// ---- field types ----

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Shared<'a> {
    #[thrift(id = 1)]
    boxed: Box<str>,
    #[thrift(id = 2)]
    arc: Arc<str>,
    #[thrift(id = 3)]
    rc: Rc<str>,
    #[thrift(id = 4)]
    blob: Box<[u8]>,
    #[thrift(id = 5)]
    queue: VecDeque<i16>,
    #[thrift(id = 6)]
    cow: Cow<'a, [u8]>,
    #[thrift(id = 7)]
    shared_blob: Arc<[u8]>,
    #[thrift(id = 8)]
    rc_list: Rc<Vec<String>>,
}

#[test]
fn shared_strings_bytes_and_deques_are_thrift_types() {
    let value = Shared {
        boxed: "b".into(),
        arc: "a".into(),
        rc: "r".into(),
        blob: vec![1, 2].into(),
        queue: VecDeque::from(vec![3, -4]),
        cow: Cow::Owned(vec![5]),
        shared_blob: vec![6u8].into(),
        rc_list: Rc::new(vec!["x".into()]),
    };
    roundtrip_borrowed!(value.clone(), Shared<'_>);
    // `Cow<[u8]>` borrows from the input.
    let bytes = thrift_core::to_vec::<Compact, _>(&value);
    let back: Shared<'_> = thrift_core::from_slice::<Compact, _>(&bytes).unwrap();
    assert!(matches!(back.cow, Cow::Borrowed([5])));
    assert_eq!(
        idl_of::<Shared<'_>>(),
        "struct Shared {\n  1: string boxed\n  2: string arc\n  3: string rc\n  4: binary blob\n  5: list<i16> queue\n  \
         6: binary cow\n  7: binary shared_blob\n  8: list<string> rc_list\n}\n"
    );
}

// ---- with, encode_with, decode_with ----

/// A `Duration` as whole milliseconds, an `i64` on the wire.
mod millis {
    use std::time::Duration;

    pub fn encode(value: &Duration) -> i64 {
        i64::try_from(value.as_millis()).unwrap_or(i64::MAX)
    }

    pub fn decode(ms: i64) -> Result<Duration, String> {
        u64::try_from(ms).map(Duration::from_millis).map_err(|_| format!("negative duration: {ms} ms"))
    }
}

/// An address as its text. The two functions exchange one type (`String`), so what one
/// peer writes the other reads; a `&str` on one side only would not compile.
fn addr_text(addr: &std::net::Ipv4Addr) -> String {
    addr.to_string()
}

fn parse_addr(text: String) -> Result<std::net::Ipv4Addr, std::net::AddrParseError> {
    text.parse()
}

/// A name normalized to lowercase, borrowed from the value on encode and from the input on
/// decode (no copy either way).
mod lowercase {
    pub fn encode<'a>(name: &'a Name<'_>) -> &'a str {
        name.0
    }

    pub fn decode(text: &str) -> Result<Name<'_>, &'static str> {
        if text.chars().any(char::is_uppercase) {
            Err("not lowercase")
        } else {
            Ok(Name(text))
        }
    }

    #[derive(Debug, Clone, Copy, PartialEq, Default)]
    pub struct Name<'a>(pub &'a str);
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Named<'a> {
    #[thrift(id = 1, with = "lowercase")]
    name: lowercase::Name<'a>,
}

#[test]
fn with_functions_may_borrow_from_the_input() {
    let input = thrift_core::to_vec::<Compact, _>(&Named { name: lowercase::Name("ada") });
    let bytes = Bytes::from(input);
    let back = thrift_core::from_bytes::<Compact, Named<'_>>(&bytes).unwrap();
    assert_eq!(back.name.0, "ada");
    assert!(std::ptr::eq(back.name.0.as_ptr(), bytes[2..].as_ptr()), "borrowed from the input");
    roundtrip_borrowed!(Named { name: lowercase::Name("bob") }, Named<'_>);
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Timeouts {
    #[thrift(id = 1, required, with = "millis")]
    connect: std::time::Duration,
    #[thrift(id = 2, with = "millis")]
    idle: Option<std::time::Duration>,
    /// Default requiredness: `Duration::default()` (zero) when absent, the default shown as
    /// the wire value.
    #[thrift(id = 3, with = "millis", default = std::time::Duration::from_secs(30))]
    request: std::time::Duration,
    #[thrift(id = 4, required, encode_with = "addr_text", decode_with = "parse_addr")]
    peer: std::net::Ipv4Addr,
}

#[test]
fn with_fields_go_through_their_functions_on_the_wire() {
    use std::time::Duration;
    let t = Timeouts {
        connect: Duration::from_millis(1500),
        idle: Some(Duration::from_secs(60)),
        request: Duration::from_secs(5),
        peer: std::net::Ipv4Addr::new(10, 0, 0, 1),
    };
    roundtrip(&t);
    roundtrip(&Timeouts { idle: None, ..t.clone() });

    // The wire holds what the functions make: an i64 of milliseconds and a string.
    #[derive(ThriftStruct, Debug, PartialEq)]
    struct Wire {
        #[thrift(id = 1)]
        connect: i64,
        #[thrift(id = 2)]
        idle: Option<i64>,
        #[thrift(id = 3)]
        request: i64,
        #[thrift(id = 4)]
        peer: String,
    }
    let wire = Wire { connect: 1500, idle: Some(60_000), request: 5000, peer: "10.0.0.1".into() };
    for (ours, theirs) in [
        (thrift_core::to_vec::<Binary, _>(&t), thrift_core::to_vec::<Binary, _>(&wire)),
        (thrift_core::to_vec::<Compact, _>(&t), thrift_core::to_vec::<Compact, _>(&wire)),
    ] {
        assert_eq!(ours, theirs);
    }

    // Absent: the default, as the field's type.
    let minimal = Wire { idle: None, ..wire };
    let mut bytes = Vec::new();
    let mut s = thrift_core::StructEncoder::<Compact, _>::new(&mut bytes);
    s.field(1, &minimal.connect);
    s.field(4, &minimal.peer);
    s.finish();
    let back = thrift_core::from_slice::<Compact, Timeouts>(&bytes).unwrap();
    assert_eq!(back.request, Duration::from_secs(30));
    assert_eq!(back.idle, None);

    // A value `decode` refuses is an error at the field, saying why.
    let bad = Wire { connect: -5, idle: None, request: 0, peer: "10.0.0.1".into() };
    let err = thrift_core::from_slice::<Binary, Timeouts>(&thrift_core::to_vec::<Binary, _>(&bad)).unwrap_err();
    assert_eq!(err.to_string(), "Timeouts.connect (id 1): invalid data: negative duration: -5 ms at offset 11");
    let bad =
        Wire { peer: "not an address".into(), ..Wire { connect: 1, idle: None, request: 0, peer: String::new() } };
    let err = thrift_core::from_slice::<Compact, Timeouts>(&thrift_core::to_vec::<Compact, _>(&bad)).unwrap_err();
    assert!(err.to_string().starts_with("Timeouts.peer (id 4): invalid data: invalid IPv4 address syntax"), "{err}");

    // A required `with` field of another wire type is the wrong type, not a missing field.
    #[derive(ThriftStruct, Debug, PartialEq)]
    struct Retyped {
        #[thrift(id = 1)]
        connect: String,
    }
    let bytes = thrift_core::to_vec::<Binary, _>(&Retyped { connect: "1s".into() });
    let err = thrift_core::from_slice::<Binary, Timeouts>(&bytes).unwrap_err();
    assert!(matches!(err.kind(), thrift_core::ErrorKind::WrongFieldType { .. }), "{err}");

    // The IDL has the wire types, and the default as the wire value.
    let idl = idl_of::<Timeouts>();
    assert!(idl.contains("  1: required i64 connect\n"), "{idl}");
    assert!(idl.contains("  2: optional i64 idle\n"), "{idl}");
    assert!(idl.contains("  3: i64 request = 30000\n"), "{idl}");
    assert!(idl.contains("  4: required string peer\n"), "{idl}");
}

#[derive(ThriftStruct, thrift_core::ThriftArbitrary, Debug, Clone, PartialEq)]
struct Deadlines {
    #[thrift(id = 1, required, with = "millis")]
    hard: std::time::Duration,
    #[thrift(id = 2, with = "millis")]
    soft: Option<std::time::Duration>,
}

#[test]
fn with_fields_are_generated_from_wire_values_their_decode_accepts() {
    // Half the generated i64s are negative, which `millis::decode` refuses: those are
    // drawn again, and every value roundtrips in both protocols.
    thrift_core::testing::check_roundtrips::<Deadlines>();
}

/// A recursive type as a default: its literal nests.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Tree {
    #[thrift(id = 1)]
    value: i32,
    #[thrift(id = 2)]
    children: Vec<Tree>,
    #[thrift(id = 3)]
    next: Option<Box<Tree>>,
}

/// A type without an IDL literal (hand-written, no `IdlLiteral`).
#[derive(Debug, Clone, PartialEq, Default)]
struct Opaque(i32);

impl thrift_core::ThriftType for Opaque {
    const TTYPE: thrift_core::TType = thrift_core::TType::I32;
}

impl Encode for Opaque {
    fn encode<P: Protocol, B: bytes::BufMut + ?Sized>(&self, buf: &mut B) {
        self.0.encode::<P, B>(buf)
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.encoded_len::<P>()
    }
}

impl IdlType for Opaque {
    fn idl_type(_: &mut Idl) -> String {
        "i32".into()
    }
}

impl<'de> thrift_core::Decode<'de> for Opaque {
    fn decode<P: Protocol>(r: &mut thrift_core::Reader<'de>) -> thrift_core::Result<Self> {
        i32::decode::<P>(r).map(Opaque)
    }
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct ValueDefaults {
    #[thrift(id = 1, default = Tree { value: 1, children: vec![Tree::default()], next: Some(Box::new(Tree::default())) })]
    tree: Tree,
    #[thrift(id = 2, default = Opaque(3))]
    opaque: Opaque,
    #[thrift(id = 3, default = Holder { opaque: Opaque(1), value: 2 })]
    holder: Holder,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Holder {
    #[thrift(id = 1)]
    opaque: Opaque,
    #[thrift(id = 2)]
    value: i32,
}

#[test]
fn value_defaults_render_when_every_part_has_a_literal() {
    let idl = idl_of::<ValueDefaults>();
    // Nested and recursive; an unset optional field is left out of the constant.
    let tree = r#"{"value": 1, "children": [{"value": 0, "children": []}], "next": {"value": 0, "children": []}}"#;
    assert!(idl.contains(&format!("  1: Tree tree = {tree}\n")), "{idl}");
    // No literal for the type, or for a field of the value: no default shown (the reader
    // still applies it in Rust).
    assert!(idl.contains("  2: i32 opaque\n"), "{idl}");
    assert!(idl.contains("  3: Holder holder\n"), "{idl}");
}
