//! The handler and the client's checks against each other without a socket: each call is
//! encoded, parsed as the server would receive it, dispatched, and its reply decoded.

use std::collections::{BTreeMap, BTreeSet};
use std::future::{pending, ready, Ready};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use thrift_conformance::checks::{self, BASE_TYPES, CONTAINERS, EXCEPTIONS, STRUCTS, TIMEOUT, UNKNOWN};
use thrift_conformance::thrift_test::{Insanity, Numberz, UserId, Xtruct, Xtruct2};
use thrift_conformance::{
    second_service, thrift_test, TestHandler, ThriftTest, ThriftTestTestExceptionError,
    ThriftTestTestMultiExceptionError,
};
use thrift_core::ApplicationException;
use thrift_core::OrApplication;
use thrift_net::{Call, CallError, CallSite, Channel, LocalChannel, ProtocolKind, Reply};

const TIMEOUT_PER_CALL: Duration = Duration::from_secs(5);

/// A channel whose calls never complete.
fn silent() -> impl Channel {
    tower::service_fn(|_: Call| pending::<Result<Option<Reply>, CallError>>())
}

/// A channel with no connection to offer.
#[derive(Clone)]
struct Down;

impl tower::Service<Call> for Down {
    type Response = Option<Reply>;
    type Error = CallError;
    type Future = Ready<Result<Option<Reply>, CallError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Call) -> Self::Future {
        ready(Err(CallError::NotSent(std::io::Error::other("no server").into(), CallSite::default())))
    }
}

fn clients(
    protocol: ProtocolKind,
) -> (thrift_test::thrift_test::Client<impl Channel>, second_service::Client<impl Channel>) {
    (
        thrift_test::thrift_test::Client::new(LocalChannel::new(
            thrift_test::thrift_test::Server::new(TestHandler),
            protocol,
        )),
        second_service::Client::new(LocalChannel::new(second_service::Server::new(TestHandler), protocol)),
    )
}

#[tokio::test]
async fn every_check_passes_against_the_handler_in_both_protocols() {
    for protocol in [ProtocolKind::Binary, ProtocolKind::Compact] {
        let (client, second) = clients(protocol);
        let outcome = checks::run(&client, Some(&second), TIMEOUT_PER_CALL).await;
        assert_eq!(outcome.code, 0, "{protocol:?}:\n{}", outcome.lines.join("\n"));
        // Every method is called; most several times.
        assert!(outcome.lines.len() >= 60, "{} checks:\n{}", outcome.lines.len(), outcome.lines.join("\n"));
        for method in [
            "testVoid",
            "testString",
            "testBool",
            "testByte",
            "testI32",
            "testI64",
            "testDouble",
            "testBinary",
            "testStruct",
            "testNest",
            "testMap",
            "testStringMap",
            "testSet",
            "testList",
            "testEnum",
            "testTypedef",
            "testMapMap",
            "testInsanity",
            "testMulti",
            "testException",
            "testMultiException",
            "testOneway",
            "secondtestString",
        ] {
            assert!(outcome.lines.iter().any(|l| l.starts_with(&format!("{method}("))), "{method} is not checked");
        }
    }
}

#[tokio::test]
async fn the_handler_answers_as_apaches_servers_do() {
    let (client, second) = clients(ProtocolKind::Compact);
    let insanity = client.test_insanity(Insanity::default()).await.unwrap();
    assert_eq!(insanity.keys().copied().collect::<Vec<UserId>>(), [1, 2]);
    assert_eq!(insanity[&1].keys().copied().collect::<Vec<_>>(), [Numberz::Two, Numberz::Three]);
    assert_eq!(insanity[&2], BTreeMap::from([(Numberz::Six, Insanity::default())]));
    let map_map = client.test_map_map(7).await.unwrap();
    assert_eq!(map_map[&-4], BTreeMap::from([(-4, -4), (-3, -3), (-2, -2), (-1, -1)]));
    assert_eq!(map_map[&4], BTreeMap::from([(1, 1), (2, 2), (3, 3), (4, 4)]));
    match client.test_exception("TException".into()).await {
        Err(CallError::Application(e, ..)) => assert_eq!(e.message, "This is a TException"),
        other => panic!("expected a TApplicationException, got {other:?}"),
    }
    assert_eq!(second.secondtest_string("x".into()).await.unwrap(), "testString(\"x\")");
    let xtruct = client.test_multi(1, 2, 3, BTreeMap::new(), Numberz::One, 4).await.unwrap();
    assert_eq!(xtruct, Xtruct { string_thing: "Hello2".into(), byte_thing: 1, i32_thing: 2, i64_thing: 3 });
}

/// What a method of the generated services returns.
type Answer<T> = Result<T, ApplicationException>;

/// A server that gets one method of each category wrong.
struct Broken;

impl ThriftTest for Broken {
    async fn test_void(&self) -> Answer<()> {
        Ok(())
    }
    async fn test_string(&self, thing: String) -> Answer<String> {
        TestHandler.test_string(thing).await
    }
    async fn test_bool(&self, thing: bool) -> Answer<bool> {
        Ok(thing)
    }
    async fn test_byte(&self, thing: i8) -> Answer<i8> {
        Ok(thing)
    }
    async fn test_i32(&self, thing: i32) -> Answer<i32> {
        // Off by one for one value only: each check must look at each value.
        Ok(if thing == i32::MAX { 0 } else { thing })
    }
    async fn test_i64(&self, thing: i64) -> Answer<i64> {
        Ok(thing)
    }
    async fn test_double(&self, thing: f64) -> Answer<f64> {
        Ok(thing)
    }
    async fn test_binary(&self, thing: Bytes) -> Answer<Bytes> {
        Ok(thing)
    }
    async fn test_struct(&self, thing: Xtruct) -> Answer<Xtruct> {
        Ok(thing)
    }
    async fn test_nest(&self, mut thing: Xtruct2) -> Answer<Xtruct2> {
        thing.struct_thing.i64_thing += 1;
        Ok(thing)
    }
    async fn test_map(&self, thing: BTreeMap<i32, i32>) -> Answer<BTreeMap<i32, i32>> {
        Ok(thing)
    }
    async fn test_string_map(&self, thing: BTreeMap<String, String>) -> Answer<BTreeMap<String, String>> {
        Ok(thing)
    }
    async fn test_set(&self, mut thing: BTreeSet<i32>) -> Answer<BTreeSet<i32>> {
        thing.pop_last();
        Ok(thing)
    }
    async fn test_list(&self, thing: Vec<i32>) -> Answer<Vec<i32>> {
        Ok(thing)
    }
    async fn test_enum(&self, thing: Numberz) -> Answer<Numberz> {
        Ok(thing)
    }
    async fn test_typedef(&self, thing: UserId) -> Answer<UserId> {
        Ok(thing)
    }
    async fn test_map_map(&self, _: i32) -> Answer<BTreeMap<i32, BTreeMap<i32, i32>>> {
        Ok(BTreeMap::new())
    }
    async fn test_insanity(&self, argument: Insanity) -> Answer<BTreeMap<UserId, BTreeMap<Numberz, Insanity>>> {
        TestHandler.test_insanity(argument).await
    }
    async fn test_multi(
        &self,
        arg0: i8,
        arg1: i32,
        arg2: i64,
        arg3: BTreeMap<i16, String>,
        arg4: Numberz,
        arg5: UserId,
    ) -> Answer<Xtruct> {
        TestHandler.test_multi(arg0, arg1, arg2, arg3, arg4, arg5).await
    }
    async fn test_exception(&self, _: String) -> Result<(), OrApplication<ThriftTestTestExceptionError>> {
        Ok(())
    }
    async fn test_multi_exception(
        &self,
        arg0: String,
        arg1: String,
    ) -> Result<Xtruct, OrApplication<ThriftTestTestMultiExceptionError>> {
        TestHandler.test_multi_exception(arg0, arg1).await
    }
    async fn test_oneway(&self, _: i32) {}
}

#[tokio::test]
async fn wrong_answers_set_their_categorys_bit() {
    let client = thrift_test::thrift_test::Client::new(LocalChannel::new(
        thrift_test::thrift_test::Server::new(Broken),
        ProtocolKind::Binary,
    ));
    let outcome = checks::run(&client, None::<&second_service::Client<Down>>, TIMEOUT_PER_CALL).await;
    assert_eq!(outcome.code, BASE_TYPES | STRUCTS | CONTAINERS | EXCEPTIONS, "{}", outcome.lines.join("\n"));
    let failures: Vec<&str> = outcome.failures().collect();
    assert_eq!(failures.len(), 6, "{failures:#?}");
    assert!(failures[0].starts_with("testI32(2147483647) *** FAILED *** expected 2147483647, got 0"), "{failures:#?}");
    assert!(failures.iter().any(|f| f.starts_with("testException(\"Xception\") *** FAILED *** returned")));
}

#[tokio::test]
async fn silence_is_a_timeout_and_no_server_is_unknown() {
    let no_second = None::<&second_service::Client<Down>>;
    let all = BASE_TYPES | STRUCTS | CONTAINERS | EXCEPTIONS;
    let outcome =
        checks::run(&thrift_test::thrift_test::Client::new(silent()), no_second, Duration::from_millis(5)).await;
    assert_eq!(outcome.code, all | TIMEOUT, "{}", outcome.lines.join("\n"));
    assert_eq!(outcome.failures().count(), outcome.lines.len());
    let outcome = checks::run(&thrift_test::thrift_test::Client::new(Down), no_second, TIMEOUT_PER_CALL).await;
    assert_eq!(outcome.code, all | UNKNOWN, "{}", outcome.lines.join("\n"));
}
