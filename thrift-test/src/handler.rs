//! The server side: what Apache's test servers answer to each method.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bytes::Bytes;
use thrift_core::{ApplicationException, ApplicationExceptionKind};

use crate::thrift_test::{
    Insanity, Numberz, SecondService, ThriftTest, ThriftTestTestExceptionError, ThriftTestTestMultiExceptionError,
    UserId, Xception, Xception2, Xtruct, Xtruct2,
};
use thrift_core::OrApplication;

/// What a method of the generated services returns: its value, or a `TApplicationException`.
type Answer<T> = Result<T, ApplicationException>;

/// The longest `testOneway` sleeps, whatever it is asked: a hostile caller must not park
/// handlers for hours.
const MAX_ONEWAY_SLEEP: Duration = Duration::from_secs(10);

/// Handles `ThriftTest` and `SecondService` calls as Apache's test servers do.
#[derive(Clone, Copy, Debug, Default)]
pub struct TestHandler;

/// What `testMapMap` returns, whatever its argument.
pub fn map_map() -> BTreeMap<i32, BTreeMap<i32, i32>> {
    BTreeMap::from([(-4, (-4..0).map(|i| (i, i)).collect()), (4, (1..5).map(|i| (i, i)).collect())])
}

/// What `testInsanity(argument)` returns.
pub fn insanity(argument: Insanity) -> BTreeMap<UserId, BTreeMap<Numberz, Insanity>> {
    BTreeMap::from([
        (1, BTreeMap::from([(Numberz::Two, argument.clone()), (Numberz::Three, argument)])),
        (2, BTreeMap::from([(Numberz::Six, Insanity::default())])),
    ])
}

impl ThriftTest for TestHandler {
    async fn test_void(&self) -> Answer<()> {
        tracing::debug!("testVoid()");
        Ok(())
    }

    async fn test_string(&self, thing: String) -> Answer<String> {
        tracing::debug!("testString({thing:?})");
        Ok(thing)
    }

    async fn test_bool(&self, thing: bool) -> Answer<bool> {
        tracing::debug!("testBool({thing})");
        Ok(thing)
    }

    async fn test_byte(&self, thing: i8) -> Answer<i8> {
        tracing::debug!("testByte({thing})");
        Ok(thing)
    }

    async fn test_i32(&self, thing: i32) -> Answer<i32> {
        tracing::debug!("testI32({thing})");
        Ok(thing)
    }

    async fn test_i64(&self, thing: i64) -> Answer<i64> {
        tracing::debug!("testI64({thing})");
        Ok(thing)
    }

    async fn test_double(&self, thing: f64) -> Answer<f64> {
        tracing::debug!("testDouble({thing})");
        Ok(thing)
    }

    async fn test_binary(&self, thing: Bytes) -> Answer<Bytes> {
        tracing::debug!("testBinary({} bytes)", thing.len());
        Ok(thing)
    }

    async fn test_struct(&self, thing: Xtruct) -> Answer<Xtruct> {
        tracing::debug!("testStruct({thing:?})");
        Ok(thing)
    }

    async fn test_nest(&self, thing: Xtruct2) -> Answer<Xtruct2> {
        tracing::debug!("testNest({thing:?})");
        Ok(thing)
    }

    async fn test_map(&self, thing: BTreeMap<i32, i32>) -> Answer<BTreeMap<i32, i32>> {
        tracing::debug!("testMap({thing:?})");
        Ok(thing)
    }

    async fn test_string_map(&self, thing: BTreeMap<String, String>) -> Answer<BTreeMap<String, String>> {
        tracing::debug!("testStringMap({thing:?})");
        Ok(thing)
    }

    async fn test_set(&self, thing: BTreeSet<i32>) -> Answer<BTreeSet<i32>> {
        tracing::debug!("testSet({thing:?})");
        Ok(thing)
    }

    async fn test_list(&self, thing: Vec<i32>) -> Answer<Vec<i32>> {
        tracing::debug!("testList({thing:?})");
        Ok(thing)
    }

    async fn test_enum(&self, thing: Numberz) -> Answer<Numberz> {
        tracing::debug!("testEnum({thing:?})");
        Ok(thing)
    }

    async fn test_typedef(&self, thing: UserId) -> Answer<UserId> {
        tracing::debug!("testTypedef({thing})");
        Ok(thing)
    }

    async fn test_map_map(&self, hello: i32) -> Answer<BTreeMap<i32, BTreeMap<i32, i32>>> {
        tracing::debug!("testMapMap({hello})");
        Ok(map_map())
    }

    async fn test_insanity(&self, argument: Insanity) -> Answer<BTreeMap<UserId, BTreeMap<Numberz, Insanity>>> {
        tracing::debug!("testInsanity({argument:?})");
        Ok(insanity(argument))
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
        tracing::debug!("testMulti({arg0}, {arg1}, {arg2}, {arg3:?}, {arg4:?}, {arg5})");
        Ok(Xtruct { string_thing: "Hello2".into(), byte_thing: arg0, i32_thing: arg1, i64_thing: arg2 })
    }

    async fn test_exception(&self, arg: String) -> Result<(), OrApplication<ThriftTestTestExceptionError>> {
        tracing::debug!("testException({arg:?})");
        match arg.as_str() {
            "Xception" => Err(OrApplication::Declared(ThriftTestTestExceptionError::Err1(Xception {
                error_code: 1001,
                message: arg,
            }))),
            "TException" => Err(OrApplication::Application(ApplicationException::new(
                ApplicationExceptionKind::InternalError,
                "This is a TException",
            ))),
            _ => Ok(()),
        }
    }

    async fn test_multi_exception(
        &self,
        arg0: String,
        arg1: String,
    ) -> Result<Xtruct, OrApplication<ThriftTestTestMultiExceptionError>> {
        tracing::debug!("testMultiException({arg0:?}, {arg1:?})");
        match arg0.as_str() {
            "Xception" => {
                let x = Xception { error_code: 1001, message: "This is an Xception".into() };
                Err(OrApplication::Declared(ThriftTestTestMultiExceptionError::Err1(x)))
            }
            "Xception2" => Err(OrApplication::Declared(ThriftTestTestMultiExceptionError::Err2(Xception2 {
                error_code: 2002,
                struct_thing: Xtruct { string_thing: "This is an Xception2".into(), ..Xtruct::default() },
            }))),
            _ => Ok(Xtruct { string_thing: arg1, ..Xtruct::default() }),
        }
    }

    async fn test_oneway(&self, seconds: i32) {
        tracing::debug!("testOneway({seconds}): sleeping...");
        let sleep = Duration::from_secs(u64::try_from(seconds).unwrap_or(0)).min(MAX_ONEWAY_SLEEP);
        tokio::time::sleep(sleep).await;
        tracing::debug!("testOneway({seconds}): done sleeping!");
    }
}

impl SecondService for TestHandler {
    async fn secondtest_string(&self, thing: String) -> Answer<String> {
        tracing::debug!("secondtestString({thing:?})");
        Ok(format!("testString(\"{thing}\")"))
    }
}
