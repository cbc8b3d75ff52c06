//! Old reader, new writer: a newer peer adds enum values and union members, and the older
//! reader's open enums and unions decode the message and re-encode what they kept, in both
//! protocols; a required field whose wire type changed is its own error. The same holds for
//! every generated value (`thrift_core::testing`'s evolution checks), and where both
//! versions are open, old values read as new ones with the documented defaults.

use std::collections::BTreeMap;

use thrift_core::testing::{check_evolution, check_new_reads_as_old};
use thrift_core::{
    Binary, Compact, ErrorKind, Protocol, TType, ThriftArbitrary, ThriftEnum, ThriftStruct, ThriftUnion,
};

// ---- Enums: V2 adds `Archived = 3` ----

#[derive(ThriftArbitrary, ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[repr(i32)]
enum StatusV1 {
    #[default]
    Active = 1,
    Banned = 2,
    #[thrift(unknown)]
    Unknown(i32),
}

#[derive(ThriftArbitrary, ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[thrift(closed)]
enum StatusV2 {
    #[default]
    Active = 1,
    Banned = 2,
    Archived = 3,
}

#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "User")]
struct UserV1 {
    #[thrift(id = 1, required)]
    status: StatusV1,
    #[thrift(id = 2)]
    plain: StatusV1,
    #[thrift(id = 3)]
    maybe: Option<StatusV1>,
    #[thrift(id = 4)]
    history: Vec<StatusV1>,
    #[thrift(id = 5)]
    counts: BTreeMap<StatusV1, i32>,
}

#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "User")]
struct UserV2 {
    #[thrift(id = 1, required)]
    status: StatusV2,
    #[thrift(id = 2)]
    plain: StatusV2,
    #[thrift(id = 3)]
    maybe: Option<StatusV2>,
    #[thrift(id = 4)]
    history: Vec<StatusV2>,
    #[thrift(id = 5)]
    counts: BTreeMap<StatusV2, i32>,
}

fn new_enum_value<P: Protocol>() {
    let v2 = UserV2 {
        status: StatusV2::Archived,
        plain: StatusV2::Archived,
        maybe: Some(StatusV2::Archived),
        history: vec![StatusV2::Active, StatusV2::Archived],
        counts: [(StatusV2::Archived, 7), (StatusV2::Banned, 1)].into(),
    };
    let bytes = thrift_core::to_vec::<P, _>(&v2);
    let v1: UserV1 = thrift_core::from_slice::<P, _>(&bytes).unwrap_or_else(|e| panic!("{}: {e}", P::NAME));
    let unknown = StatusV1::Unknown(3);
    assert_eq!(
        v1,
        UserV1 {
            status: unknown,
            plain: unknown,
            maybe: Some(unknown),
            history: vec![StatusV1::Active, unknown],
            counts: [(unknown, 7), (StatusV1::Banned, 1)].into(),
        },
        "{}",
        P::NAME
    );
    // Nothing is lost: the old reader writes the newer value back and the newer peer reads it.
    let again = thrift_core::to_vec::<P, _>(&v1);
    let back: UserV2 = thrift_core::from_slice::<P, _>(&again).unwrap();
    assert_eq!(back, v2, "{}", P::NAME);
}

#[test]
fn an_open_enum_costs_a_tag_beside_its_i32() {
    // What attributes.rs documents.
    assert_eq!(std::mem::size_of::<StatusV1>(), 8);
    assert_eq!(std::mem::size_of::<StatusV2>(), 1);
    assert_eq!(std::mem::size_of::<Option<StatusV1>>(), 8);
}

#[test]
fn a_new_enum_value_decodes_and_reencodes_in_every_position() {
    new_enum_value::<Binary>();
    new_enum_value::<Compact>();
}

// ---- Unions: V2 adds member 3 ----

#[derive(ThriftArbitrary, ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(name = "Event")]
enum EventV1 {
    #[thrift(id = 1)]
    Click(i32),
    #[thrift(id = 2)]
    Key(String),
    #[thrift(unknown)]
    Unknown(i16),
}

#[derive(ThriftArbitrary, ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(name = "Event", closed)]
enum EventV2 {
    #[thrift(id = 1)]
    Click(i32),
    #[thrift(id = 2)]
    Key(String),
    #[thrift(id = 3)]
    Scroll(Vec<i64>),
}

#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Log")]
struct LogV1 {
    #[thrift(id = 1)]
    seq: i64,
    #[thrift(id = 2)]
    event: Option<EventV1>,
    #[thrift(id = 3)]
    events: Vec<EventV1>,
}

#[derive(ThriftArbitrary, ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Log")]
struct LogV2 {
    #[thrift(id = 1)]
    seq: i64,
    #[thrift(id = 2)]
    event: Option<EventV2>,
    #[thrift(id = 3)]
    events: Vec<EventV2>,
}

fn new_union_member<P: Protocol>() {
    // At top level.
    let bytes = thrift_core::to_vec::<P, _>(&EventV2::Scroll(vec![1, 2]));
    let top: EventV1 = thrift_core::from_slice::<P, _>(&bytes).unwrap();
    assert_eq!(top, EventV1::Unknown(3), "{}", P::NAME);
    // Re-encoded, only the id was kept: an empty union, which the open reader reads back
    // as `Unknown(0)` and a closed one rejects.
    let again = thrift_core::to_vec::<P, _>(&top);
    assert_eq!(again, [0]);
    assert_eq!(thrift_core::from_slice::<P, EventV1>(&again).unwrap(), EventV1::Unknown(0));
    let err = thrift_core::from_slice::<P, EventV2>(&again).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidUnion { name: "Event", count: 0 });

    // Nested, beside known members: the parent decodes, the rest is intact.
    let v2 = LogV2 {
        seq: 9,
        event: Some(EventV2::Scroll(vec![5])),
        events: vec![EventV2::Click(1), EventV2::Scroll(vec![]), EventV2::Key("k".into())],
    };
    let bytes = thrift_core::to_vec::<P, _>(&v2);
    let v1: LogV1 = thrift_core::from_slice::<P, _>(&bytes).unwrap_or_else(|e| panic!("{}: {e}", P::NAME));
    assert_eq!(
        v1,
        LogV1 {
            seq: 9,
            event: Some(EventV1::Unknown(3)),
            events: vec![EventV1::Click(1), EventV1::Unknown(3), EventV1::Key("k".into())],
        },
        "{}",
        P::NAME
    );
    let again = thrift_core::to_vec::<P, _>(&v1);
    assert_eq!(thrift_core::from_slice::<P, LogV1>(&again).unwrap().events[0], EventV1::Click(1));

    // Two known members are still an error, open or not.
    let mut two = Vec::new();
    let mut s = thrift_core::StructEncoder::<P, _>::new(&mut two);
    s.field(1, &1i32);
    s.field(2, "k");
    s.finish();
    let err = thrift_core::from_slice::<P, EventV1>(&two).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidUnion { name: "Event", count: 2 });
}

#[test]
fn a_new_union_member_decodes_as_unknown_at_top_level_and_nested() {
    new_union_member::<Binary>();
    new_union_member::<Compact>();
}

// ---- A field whose type changed ----

#[derive(ThriftStruct, Debug, PartialEq)]
#[thrift(name = "Counter")]
struct CounterV1 {
    #[thrift(id = 1, required)]
    count: i32,
    #[thrift(id = 2)]
    tiny: i8,
    #[thrift(id = 3)]
    label: Option<String>,
}

#[derive(ThriftStruct, Debug, PartialEq)]
#[thrift(name = "Counter")]
struct CounterV2 {
    #[thrift(id = 1, required)]
    count: i64,
    #[thrift(id = 2)]
    tiny: String,
    #[thrift(id = 3)]
    label: Option<i32>,
}

#[derive(ThriftStruct, Debug, PartialEq)]
#[thrift(name = "Counter")]
struct CounterV2Required {
    #[thrift(id = 1, required)]
    count: i32,
    #[thrift(id = 2)]
    tiny: String,
    #[thrift(id = 3)]
    label: Option<i32>,
}

fn changed_wire_type<P: Protocol>() {
    // A required field that arrives with another type is reported as such, at the field.
    let bytes = thrift_core::to_vec::<P, _>(&CounterV2 { count: 1, tiny: "x".into(), label: Some(2) });
    let err = thrift_core::from_slice::<P, CounterV1>(&bytes).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::WrongFieldType { expected: TType::I32, found: TType::I64 }, "{}", P::NAME);
    assert!(err.to_string().starts_with("Counter.count (id 1): wire type i64, expected i32 at offset"), "{err}");

    // Default and optional fields with another type are skipped, as if absent.
    let bytes = thrift_core::to_vec::<P, _>(&CounterV2Required { count: 4, tiny: "not a byte".into(), label: Some(2) });
    let v1: CounterV1 = thrift_core::from_slice::<P, _>(&bytes).unwrap();
    assert_eq!(v1, CounterV1 { count: 4, tiny: 0, label: None }, "{}", P::NAME);
}

#[test]
fn a_changed_wire_type_is_an_error_when_required_and_skipped_otherwise() {
    changed_wire_type::<Binary>();
    changed_wire_type::<Compact>();
}

// ---- Properties: every generated value, both ways where both versions are open ----

/// What a V1 reader makes of a V2 status: the added value is unknown.
fn status_v1(status: &StatusV2) -> StatusV1 {
    match status {
        StatusV2::Active => StatusV1::Active,
        StatusV2::Banned => StatusV1::Banned,
        StatusV2::Archived => StatusV1::Unknown(3),
    }
}

#[test]
fn every_new_user_reads_as_an_old_one() {
    check_new_reads_as_old::<UserV1, UserV2>(|v2| UserV1 {
        status: status_v1(&v2.status),
        plain: status_v1(&v2.plain),
        maybe: v2.maybe.as_ref().map(status_v1),
        history: v2.history.iter().map(status_v1).collect(),
        counts: v2.counts.iter().map(|(k, v)| (status_v1(k), *v)).collect(),
    });
}

/// What a V1 reader makes of a V2 event: the added member is unknown, by its id.
fn event_v1(event: &EventV2) -> EventV1 {
    match event {
        EventV2::Click(x) => EventV1::Click(*x),
        EventV2::Key(k) => EventV1::Key(k.clone()),
        EventV2::Scroll(_) => EventV1::Unknown(3),
    }
}

#[test]
fn every_new_log_reads_as_an_old_one() {
    check_new_reads_as_old::<LogV1, LogV2>(|v2| LogV1 {
        seq: v2.seq,
        event: v2.event.as_ref().map(event_v1),
        events: v2.events.iter().map(event_v1).collect(),
    });
}

#[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Default)]
#[thrift(name = "Tone")]
#[repr(i32)]
enum ToneV1 {
    #[default]
    Warm = 1,
    #[thrift(unknown)]
    Unknown(i32),
}

#[derive(ThriftEnum, ThriftArbitrary, Debug, Clone, Copy, PartialEq, Default)]
#[thrift(name = "Tone")]
#[repr(i32)]
enum ToneV2 {
    #[default]
    Warm = 1,
    Cold = 2,
    #[thrift(unknown)]
    Unknown(i32),
}

#[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(name = "Badge")]
enum BadgeV1 {
    #[thrift(id = 1)]
    Star(i32),
    #[thrift(unknown)]
    Unknown(i16),
}

#[derive(ThriftUnion, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(name = "Badge")]
enum BadgeV2 {
    #[thrift(id = 1)]
    Star(i32),
    #[thrift(id = 2)]
    Ribbon(String),
    #[thrift(unknown)]
    Unknown(i16),
}

#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(name = "Profile")]
struct ProfileV1 {
    #[thrift(id = 1, required)]
    name: String,
    #[thrift(id = 2)]
    tone: ToneV1,
    #[thrift(id = 3)]
    badges: Vec<BadgeV1>,
}

/// `ProfileV1` with a field of each requiredness added, and a value added to its enum and
/// a member to its union.
#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(name = "Profile")]
struct ProfileV2 {
    #[thrift(id = 1, required)]
    name: String,
    #[thrift(id = 2)]
    tone: ToneV2,
    #[thrift(id = 3)]
    badges: Vec<BadgeV2>,
    #[thrift(id = 4, default = 10)]
    level: i32,
    #[thrift(id = 5)]
    nick: Option<String>,
    #[thrift(id = 6)]
    tags: Vec<String>,
}

#[test]
fn profiles_evolve_both_ways() {
    check_evolution::<ProfileV1, ProfileV2>(
        |v1| ProfileV2 {
            name: v1.name.clone(),
            // An old peer's unknown 2 is the new version's `Cold`.
            tone: match v1.tone {
                ToneV1::Warm => ToneV2::Warm,
                ToneV1::Unknown(2) => ToneV2::Cold,
                ToneV1::Unknown(v) => ToneV2::Unknown(v),
            },
            badges: v1
                .badges
                .iter()
                .map(|b| match b {
                    BadgeV1::Star(n) => BadgeV2::Star(*n),
                    BadgeV1::Unknown(id) => BadgeV2::Unknown(*id),
                })
                .collect(),
            // The documented defaults of what V2 added.
            level: 10,
            nick: None,
            tags: Vec::new(),
        },
        |v2| ProfileV1 {
            name: v2.name.clone(),
            tone: match v2.tone {
                ToneV2::Warm => ToneV1::Warm,
                ToneV2::Cold => ToneV1::Unknown(2),
                ToneV2::Unknown(v) => ToneV1::Unknown(v),
            },
            badges: v2
                .badges
                .iter()
                .map(|b| match b {
                    BadgeV2::Star(n) => BadgeV1::Star(*n),
                    BadgeV2::Ribbon(_) => BadgeV1::Unknown(2),
                    BadgeV2::Unknown(id) => BadgeV1::Unknown(*id),
                })
                .collect(),
        },
    );
}

/// The check can fail: a wrong default for an added field is reported, with the value.
#[test]
fn a_wrong_documented_default_is_caught() {
    let caught = std::panic::catch_unwind(|| {
        thrift_core::testing::check_old_reads_as_new::<ProfileV1, ProfileV2>(|v1| ProfileV2 {
            name: v1.name.clone(),
            tone: ToneV2::Warm,
            badges: Vec::new(),
            level: 0,
            nick: None,
            tags: Vec::new(),
        })
    });
    let message = *caught.expect_err("a wrong default passed").downcast::<String>().unwrap();
    assert!(message.contains("read as") && message.contains("gave another value"), "{message}");
    assert!(message.contains("level: 10"), "{message}");
}
