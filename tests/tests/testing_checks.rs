//! `thrift_core::testing` on user types: `#[derive(ThriftArbitrary)]` alone gives a type with
//! every kind of field its strategy, and the roundtrip checks catch hand-written impls
//! that are wrong, naming the field and the offset.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use bytes::{BufMut, Bytes};
use proptest::prelude::*;
use thrift_core::testing::{assert_roundtrip, check_roundtrips, check_roundtrips_borrowed};
use thrift_core::{
    Decode, Encode, OrderedDouble, Protocol, Reader, StructEncoder, StructSizer, TType, ThriftArbitrary, ThriftEnum,
    ThriftStruct, ThriftType, ThriftUnion, Uuid,
};

#[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[thrift(closed)]
enum Closed {
    A = 1,
    B = -2,
}

#[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(i32)]
enum Open {
    #[default]
    Known = 7,
    Shifted = 1 << 4,
    #[thrift(unknown)]
    Unknown(i32),
}

#[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum ClosedUnion {
    #[thrift(id = 1)]
    Number(i64),
    #[thrift(id = 2)]
    Text(String),
}

/// Recursive through a boxed member: the derive's strategy must still end.
#[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
enum Expr {
    #[thrift(id = 1)]
    Neg(Box<Expr>),
    #[thrift(id = 2)]
    Sum(Vec<Expr>),
    #[thrift(id = 3)]
    Literal(i64),
    #[thrift(unknown)]
    Unknown(i16),
}

/// Recursive and closed: at the last level its members are drawn lazily.
#[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum Chain {
    #[thrift(id = 1)]
    Link(Box<Chain>),
    #[thrift(id = 2)]
    End(bool),
}

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
#[thrift(transparent)]
struct UserId(i64);

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq, Default)]
struct Page<T: Default> {
    #[thrift(id = 1)]
    items: Vec<T>,
    #[thrift(id = 2)]
    next: Option<i32>,
}

/// Every kind of field, its strategy from the derive alone.
#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
struct Everything<'a> {
    #[thrift(id = 1, required)]
    count: i32,
    #[thrift(id = 2)]
    maybe_name: Option<String>,
    #[thrift(id = 3)]
    plain: i16,
    #[thrift(id = 4, default = 42)]
    defaulted: i64,
    #[thrift(id = 5, default = "anon")]
    defaulted_text: String,
    #[thrift(skip)]
    skipped: u64,
    #[thrift(skip, default = 9)]
    skipped_with_default: u8,
    #[thrift(id = 6)]
    flag: bool,
    #[thrift(id = 7)]
    tiny: i8,
    #[thrift(id = 8)]
    real: f64,
    #[thrift(id = 9)]
    ordered: OrderedDouble,
    #[thrift(id = 10)]
    key: Uuid,
    #[thrift(id = 11)]
    blob: Vec<u8>,
    #[thrift(id = 12)]
    shared: Bytes,
    #[thrift(id = 13)]
    text: &'a str,
    #[thrift(id = 14)]
    raw: &'a [u8],
    #[thrift(id = 15)]
    cow: Cow<'a, str>,
    #[thrift(id = 16)]
    cow_bytes: Cow<'a, [u8]>,
    #[thrift(id = 17)]
    boxed_str: Box<str>,
    #[thrift(id = 18)]
    arc_str: Arc<str>,
    #[thrift(id = 19)]
    rc_bytes: Rc<[u8]>,
    #[thrift(id = 20, required)]
    boxed: Box<ClosedUnion>,
    #[thrift(id = 21)]
    arced: Arc<Open>,
    #[thrift(id = 22)]
    closed_list: Vec<Closed>,
    #[thrift(id = 23)]
    deque: VecDeque<i32>,
    #[thrift(id = 24)]
    hash_set: HashSet<String>,
    #[thrift(id = 25)]
    tree_set: BTreeSet<Closed>,
    #[thrift(id = 26)]
    hash_map: HashMap<i32, Vec<Open>>,
    #[thrift(id = 27)]
    tree_map: BTreeMap<String, Page<UserId>>,
    #[thrift(id = 28)]
    nested: Vec<Vec<BTreeMap<i8, bool>>>,
    #[thrift(id = 29, required)]
    expr: Expr,
    #[thrift(id = 30)]
    maybe_expr: Option<Box<Expr>>,
    #[thrift(id = 31, required)]
    chain: Chain,
    #[thrift(id = 32)]
    id: UserId,
    #[thrift(id = 33)]
    maybe_text: Option<&'a str>,
    #[thrift(id = -1)]
    negative: Option<Open>,
}

#[test]
fn every_field_kind_gets_a_strategy_from_the_derive() {
    check_roundtrips_borrowed::<Everything<'static>>();
    check_roundtrips::<Expr>();
    check_roundtrips::<Chain>();
    check_roundtrips::<Page<Page<Uuid>>>();
}

proptest! {
    #[test]
    fn generated_values_respect_the_thrift_meaning(x in any::<Everything<'static>>()) {
        prop_assert_eq!((x.skipped, x.skipped_with_default), (0, 9));
        prop_assert!(x.real.is_finite());
        prop_assert!(x.text.chars().count() <= 32 && x.closed_list.len() <= 8);
        if let Open::Unknown(v) = *x.arced {
            prop_assert!(v != 7 && v != 16, "an unknown value equal to a known one: {}", v);
        }
    }
}

/// Draws `count` values of `T` with the default sizes.
fn draw<T: thrift_core::testing::ThriftArbitrary>(count: usize) -> Vec<T> {
    let strategy = thrift_core::testing::arbitrary::<T>();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..count).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect()
}

#[test]
fn optional_fields_are_sometimes_absent_and_open_types_sometimes_unknown() {
    let pages = draw::<Page<i32>>(200);
    assert!(pages.iter().any(|p| p.next.is_none()) && pages.iter().any(|p| p.next.is_some()));
    let opens = draw::<Open>(200);
    assert!(opens.iter().any(|o| matches!(o, Open::Unknown(_))));
    assert!(opens.contains(&Open::Known) && opens.contains(&Open::Shifted));
    // The one unknown union value that roundtrips: what an empty union decodes to.
    let exprs = draw::<Expr>(300);
    assert!(exprs.contains(&Expr::Unknown(0)));
    assert!(exprs.iter().all(|e| !matches!(e, Expr::Unknown(id) if *id != 0)));
}

#[test]
fn sizes_are_the_arbitrary_parameters() {
    let sizes = thrift_core::testing::Sizes { max_collection: 1, max_string: 2, max_depth: 3 };
    let strategy = any_with::<Page<String>>(sizes);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..100 {
        let page = strategy.new_tree(&mut runner).unwrap().current();
        assert!(page.items.len() <= 1 && page.items.iter().all(|s| s.chars().count() <= 2), "{page:?}");
    }
    // The same as `ThriftArbitrary`'s, which the derive's `Arbitrary` forwards to.
    let _ = <Page<String> as thrift_core::testing::ThriftArbitrary>::arbitrary_with(sizes);
}

// ---- Broken hand-written impls are caught ----

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Person {
    #[thrift(id = 1)]
    id: i32,
    #[thrift(id = 2, required)]
    name: String,
}

/// `Person` with a hand-written `Encode` that writes `name` as its length, an i32.
#[derive(Debug, PartialEq)]
struct MiswrittenPerson(Person);

impl ThriftType for MiswrittenPerson {
    const TTYPE: TType = TType::Struct;
}

impl Encode for MiswrittenPerson {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        s.field(1, &self.0.id);
        s.field(2, &(self.0.name.len() as i32));
        s.finish();
    }

    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        s.field(1, &self.0.id);
        s.field(2, &(self.0.name.len() as i32));
        s.finish()
    }
}

impl<'de> Decode<'de> for MiswrittenPerson {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> thrift_core::Result<Self> {
        Person::decode::<P>(r).map(MiswrittenPerson)
    }
}

/// The message of the panic `f` raises.
fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).expect_err("the check passed");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload.downcast_ref::<&str>().map(|s| s.to_string()).unwrap_or_default(),
    }
}

#[test]
fn a_miswritten_field_is_caught_with_its_name_and_offset() {
    let message = panic_message(|| assert_roundtrip(&MiswrittenPerson(Person { id: 1, name: "ada".into() })));
    assert!(message.starts_with("roundtrip failed in binary: decoding from a slice failed: "), "{message}");
    assert!(message.contains("Person.name (id 2): wire type i32, expected string"), "{message}");
    assert!(message.contains(r#"value: MiswrittenPerson(Person { id: 1, name: "ada" })"#), "{message}");
    // Binary: `08 00 01 | 00 00 00 01` is field 1; field 2's header, `08 00 02`, is bytes
    // 7 to 9, and the failure is reported within or just after it, in the dump too.
    let offset: usize = message
        .split("\nat offset ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no offset in {message}"));
    assert!((7..=10).contains(&offset), "{message}");
    assert!(message.contains(&format!("at offset {offset} of 15 bytes:\n0000  08 00 01 00 00 00 01")), "{message}");
    let dump = message.lines().last().unwrap();
    assert_eq!(dump.find('['), Some(5 + 3 * offset), "{message}");
}

/// An `Encode` whose `encoded_len` forgets the stop byte.
#[derive(Debug, PartialEq)]
struct Undersized(Person);

impl ThriftType for Undersized {
    const TTYPE: TType = TType::Struct;
}

impl Encode for Undersized {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        self.0.encode::<P, B>(buf);
    }

    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.encoded_len::<P>() - 1
    }
}

impl<'de> Decode<'de> for Undersized {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> thrift_core::Result<Self> {
        Person::decode::<P>(r).map(Undersized)
    }
}

#[test]
fn a_wrong_encoded_len_is_caught() {
    let message = panic_message(|| assert_roundtrip(&Undersized(Person { id: 1, name: "ada".into() })));
    assert!(message.contains("in binary: encoded_len reported 17 bytes, encode wrote 18"), "{message}");
    assert!(message.contains("at offset 17 of 18 bytes"), "{message}");
}

/// A wrong impl found by the generated values, shrunk to a small one.
#[test]
fn check_roundtrips_finds_and_shrinks_a_failure() {
    #[derive(Debug, PartialEq)]
    struct LossyName(Person);
    impl ThriftType for LossyName {
        const TTYPE: TType = TType::Struct;
    }
    impl Encode for LossyName {
        fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
            self.0.encode::<P, B>(buf);
        }
        fn encoded_len<P: Protocol>(&self) -> usize {
            self.0.encoded_len::<P>()
        }
    }
    impl<'de> Decode<'de> for LossyName {
        // Loses everything after a name's third character.
        fn decode<P: Protocol>(r: &mut Reader<'de>) -> thrift_core::Result<Self> {
            let mut person = Person::decode::<P>(r)?;
            person.name = person.name.chars().take(3).collect();
            Ok(LossyName(person))
        }
    }
    impl thrift_core::testing::ThriftArbitrary for LossyName {
        fn arbitrary_with(sizes: thrift_core::testing::Sizes) -> BoxedStrategy<Self> {
            (any::<i32>(), <String as thrift_core::testing::ThriftArbitrary>::arbitrary_with(sizes))
                .prop_map(|(id, name)| LossyName(Person { id, name }))
                .boxed()
        }
    }
    let message = panic_message(check_roundtrips::<LossyName>);
    assert!(message.contains("decoding from a slice gave another value"), "{message}");
    // Shrunk: an id of 0 and a name of just four characters.
    assert!(message.contains("value: LossyName(Person { id: 0, name: "), "{message}");
}

// ---- A borrowing type and its owned twin agree ----

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(name = "Greeting")]
struct Greeting<'a> {
    #[thrift(id = 1, required)]
    name: &'a str,
    #[thrift(id = 2)]
    raw: &'a [u8],
    #[thrift(id = 3)]
    note: Option<Cow<'a, str>>,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Greeting")]
struct GreetingOwned {
    #[thrift(id = 1, required)]
    name: String,
    #[thrift(id = 2)]
    raw: Vec<u8>,
    #[thrift(id = 3)]
    note: Option<String>,
}

/// A twin that forgot field 3: it reads the bytes but cannot write them again.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Greeting")]
struct GreetingForgetful {
    #[thrift(id = 1, required)]
    name: String,
    #[thrift(id = 2)]
    raw: Vec<u8>,
}

proptest! {
    #[test]
    fn borrowed_and_owned_forms_agree(x in any::<Greeting<'static>>()) {
        thrift_core::testing::roundtrip_borrowed(&x)?;
        thrift_core::testing::assert_same_encoding::<GreetingOwned, _>(&x);
    }
}

#[test]
fn a_twin_that_loses_a_field_disagrees() {
    let greeting = Greeting { name: "hi", raw: b"\x01", note: Some(Cow::Borrowed("n")) };
    let message = panic_message(|| thrift_core::testing::assert_same_encoding::<GreetingForgetful, _>(&greeting));
    assert!(message.starts_with("the forms disagree in binary: GreetingForgetful"), "{message}");
    assert!(message.contains("writes other bytes"), "{message}");
}
