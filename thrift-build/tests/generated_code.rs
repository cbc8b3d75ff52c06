//! The generated code does what the IDL says: defaults, constants, open enums, recursion,
//! the configured collection types, and a service with `extends` and declared exceptions
//! called through the exact bytes a socket would carry.

use std::collections::{BTreeMap, HashMap};

use thrift_build_generated::{alt, gen};
use thrift_core::{Binary, Compact, SharedStr};
use thrift_net::{CallError, LocalChannel, ProtocolKind};

#[test]
fn defaults_come_from_the_idl() {
    let hello = gen::small_test::Hello::default();
    assert_eq!(hello.simple, 53);
    assert_eq!(hello.words, "words");
    assert_eq!(hello.complex, BTreeMap::from([(23, 532), (6243, 632), (2355, 532)]));
    assert_eq!(hello.thinz.val, 36632);
    // Absent on the wire: the IDL default too.
    let decoded: gen::small_test::Hello = thrift_core::from_slice::<Binary, _>(&[0]).unwrap();
    assert_eq!(decoded.simple, 53);
    assert_eq!(decoded.words, "words");
    let account = gen::showcase::Account::default();
    assert_eq!((account.display_name.as_str(), account.retries, account.r#type), ("guest", 3, true));
    assert_eq!(account.status, gen::showcase::Status::New);
}

#[test]
fn constants() {
    assert_eq!(gen::constants_demo::GEN_ME, -3523553);
    assert_eq!(gen::constants_demo::HEX_CONST, 0x1f);
    assert_eq!(gen::constants_demo::GEN_STRING, "asldkjasfd");
    assert_eq!(gen::constants_demo::GEN_LIST, [235235, 23598352, 3253523]);
    assert_eq!(gen::constants_demo::GEN_MAPMAP[&235][&532], 53255);
    assert_eq!(gen::constants_demo::GEN_THING.goodbye, 325352);
    assert_eq!(gen::int64_test::MIN_SIGNED_INT64, i64::MIN);
    assert_eq!(gen::double_constants_test::DOUBLE_ASSIGNED_TO_LARGE_DOUBLE_TEST, 1.7e308);
    assert_eq!(gen::showcase::LIMITS["large"], 100);
    assert_eq!(gen::showcase::Status::FRESH, gen::showcase::Status::New);
}

#[test]
fn open_enums_keep_unknown_values_and_closed_ones_refuse_them() {
    let seven = thrift_core::to_vec::<Compact, _>(&7i32);
    let open: gen::thrift_test::Numberz = thrift_core::from_slice::<Compact, _>(&seven).unwrap();
    assert_eq!(open, gen::thrift_test::Numberz::Other(7));
    assert!(thrift_core::from_slice::<Compact, alt::thrift_test::Numberz>(&seven).is_err());
    assert_eq!(i32::from(&gen::thrift_test::Numberz::Eight), 8);
}

#[test]
fn recursive_types_round_trip() {
    use gen::recursive::{CoRec, CoRec2, RecList};
    let list = RecList { nextitem: Some(Box::new(RecList { nextitem: None, item: 2 })), item: 1 };
    let bytes = thrift_core::to_vec::<Binary, _>(&list);
    assert_eq!(thrift_core::from_slice::<Binary, RecList>(&bytes).unwrap(), list);
    let co = CoRec { other: Some(Box::new(CoRec2 { other: Some(Box::new(CoRec { other: None })) })) };
    let bytes = thrift_core::to_vec::<Compact, _>(&co);
    assert_eq!(thrift_core::from_slice::<Compact, CoRec>(&bytes).unwrap(), co);
}

#[test]
fn the_other_options_take_effect() {
    let bonk = alt::thrift_test::Bonk { message: "m".into(), r#type: 1 };
    // A struct that is no set element or map key: its map is a HashMap.
    let guess = alt::thrift_test::GuessProtocolStruct { map_field: HashMap::from([("a".into(), "b".into())]) };
    let bytes = thrift_core::to_vec::<Binary, _>(&guess);
    assert_eq!(thrift_core::from_slice::<Binary, alt::thrift_test::GuessProtocolStruct>(&bytes).unwrap(), guess);
    // `Insanity` is a set element (in `CrazyNesting`): its map stays a BTreeMap, so it is `Ord`.
    let insanity = alt::thrift_test::Insanity {
        user_map: BTreeMap::from([(alt::thrift_test::Numberz::One, 5)]),
        xtructs: Vec::new(),
    };
    assert!(insanity.clone() <= insanity);
    let nesting = alt::thrift_test::CrazyNesting {
        binary_field: thrift_core::bytes::Bytes::from_static(b"x"),
        ..Default::default()
    };
    assert_eq!(&nesting.binary_field[..], b"x");
    assert_eq!(bonk.r#type, 1);
}

struct Bank;

impl gen::showcase::Accounts for Bank {
    async fn ping(&self) -> bool {
        true
    }
    async fn get(&self, id: i64) -> Result<gen::showcase::Account, gen::showcase::NotFound> {
        match id {
            1 => Ok(gen::showcase::Account { id, ..Default::default() }),
            _ => Err(gen::showcase::NotFound { id, message: "no such account".into() }),
        }
    }
    async fn get_checked(
        &self,
        id: i64,
        token: SharedStr,
    ) -> Result<gen::showcase::Account, gen::showcase::AccountsGetCheckedError> {
        if token.is_empty() {
            return Err(gen::showcase::AccountsGetCheckedError::Denied(gen::showcase::Denied {
                reason: "no token".into(),
            }));
        }
        self.get(id).await.map_err(gen::showcase::AccountsGetCheckedError::NotFound)
    }
    async fn touch(&self, _id: i64) {}
    async fn log(&self, _line: SharedStr) {}
    async fn list_all(&self, limit: i32, _offset: i32) -> Vec<gen::showcase::Account> {
        (0..i64::from(limit)).map(|id| gen::showcase::Account { id, ..Default::default() }).collect()
    }
    async fn r#match(&self, _self_: SharedStr) {}
}

#[test]
fn a_generated_service_with_extends_and_exceptions() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        let server = gen::showcase::accounts::Server::new(Bank);
        let client = gen::showcase::accounts::Client::new(LocalChannel::new(server, ProtocolKind::Binary));
        assert!(client.ping().await.unwrap(), "the inherited method");
        assert_eq!(client.get(1).await.unwrap().display_name, "guest");
        match client.get(2).await {
            Err(CallError::Exception(gen::showcase::NotFound { id: 2, .. })) => {}
            other => panic!("expected NotFound, got {other:?}"),
        }
        match client.get_checked(1, SharedStr::new()).await {
            Err(CallError::Exception(gen::showcase::AccountsGetCheckedError::Denied(d))) => {
                assert_eq!(d.reason, "no token")
            }
            other => panic!("expected Denied, got {other:?}"),
        }
        assert_eq!(client.list_all(3, 0).await.unwrap().len(), 3);
        client.log("fire and forget".into()).await.unwrap();
    });
}

#[test]
fn code_for_renamed_crates_is_the_same_code() {
    // Built in a crate that knows thrift-core as `tc` and thrift-net as `tn`.
    use thrift_build_renamed::gen::thrift_test::{second_service, Xtruct};
    let x = Xtruct { string_thing: "s".into(), i32_thing: 7, ..Default::default() };
    let bytes = thrift_core::to_vec::<Compact, _>(&x);
    assert_eq!(thrift_core::from_slice::<Compact, Xtruct>(&bytes).unwrap(), x);
    let idl = thrift_core::Idl::new().add_service::<second_service::Definition>().render();
    assert!(idl.contains("string secondtestString(1: string thing)"), "{idl}");
}

/// Aurora's shape: a union holding a double in a set, and structs holding those as set
/// elements and map keys, round trip in both protocols and keep an honest total order
/// (`f64::total_cmp`: -0.0 before 0.0, NaN equal to itself).
#[test]
fn sets_of_structs_with_doubles_are_ordered_and_round_trip() {
    use gen::showcase::{Cluster, Placement, Resource, CLUSTER_ID};
    use std::collections::BTreeSet;
    use thrift_core::OrderedDouble;

    let cpus = |c: f64| Resource::NumCpus(OrderedDouble(c));
    let placement = Placement {
        resources: BTreeSet::from([cpus(0.5), cpus(f64::NAN), cpus(-0.0), cpus(0.0), Resource::RamMb(512)]),
        weights: BTreeMap::from([(cpus(2.0), OrderedDouble(0.25))]),
        ..Placement::default()
    };
    // -0.0 and 0.0 are two elements; NaN is one.
    assert_eq!(placement.resources.len(), 5);
    assert_eq!(placement.resources.iter().next(), Some(&cpus(-0.0)));
    assert!(placement.resources.contains(&cpus(f64::NAN)));
    assert_eq!(placement.scores, [OrderedDouble(0.5), OrderedDouble(1.5)], "the IDL default");

    let other = Placement { resources: BTreeSet::from([Resource::NamedPort("http".into())]), ..Placement::default() };
    let cluster = Cluster {
        placements: BTreeSet::from([placement.clone(), other.clone(), placement.clone()]),
        spares: BTreeMap::from([(other, vec![cpus(1.0)])]),
    };
    assert_eq!(cluster.placements.len(), 2, "an equal placement is one element");
    let binary = thrift_core::to_vec::<Binary, _>(&cluster);
    assert_eq!(thrift_core::from_slice::<Binary, Cluster>(&binary).unwrap(), cluster);
    let compact = thrift_core::to_vec::<Compact, _>(&cluster);
    assert_eq!(thrift_core::from_slice::<Compact, Cluster>(&compact).unwrap(), cluster);

    assert_eq!(CLUSTER_ID.to_string(), "00112233-4455-6677-8899-aabbccddeeff");
}
