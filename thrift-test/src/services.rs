//! The `ThriftTest` and `SecondService` services of Apache's `ThriftTest.thrift`, through
//! `#[service]`, and the exception types their methods declare.

// The IDL's argument names (`secondsToSleep`) are the Rust names: the service macro names an
// argument in the IDL, and in the generated `_args` struct, after its Rust identifier.
#![allow(non_snake_case)]

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use thrift_core::{OrApplication, ThriftUnion};
use thrift_net::service;

use crate::types::{Insanity, Numberz, UserId, Xception, Xception2, Xtruct, Xtruct2};

/// What `testException` declares: `throws (1: Xception err1)`.
///
/// A one-variant union rather than the bare exception struct, because a bare
/// `#[thrift(exception)]` struct is thrown as field 1 named `err`, and Apache names it `err1`.
#[derive(ThriftUnion, Debug, Clone, PartialEq, Eq)]
#[thrift(closed)]
pub enum TestExceptionThrows {
    /// `1: Xception err1`.
    #[thrift(id = 1, name = "err1")]
    Err1(Xception),
}

/// What `testMultiException` declares: `throws (1: Xception err1, 2: Xception2 err2)`.
#[derive(ThriftUnion, Debug, Clone, PartialEq, Eq)]
#[thrift(closed)]
pub enum MultiExceptionThrows {
    /// `1: Xception err1`.
    #[thrift(id = 1, name = "err1")]
    Err1(Xception),
    /// `2: Xception2 err2`.
    #[thrift(id = 2, name = "err2")]
    Err2(Xception2),
}

/// Apache Thrift's cross-language test service: each method echoes or builds a value the
/// test client checks exactly.
#[service(name = "ThriftTest")]
pub trait ThriftTest {
    /// Returns nothing.
    #[thrift(name = "testVoid")]
    async fn test_void(&self);

    /// Returns `thing`.
    #[thrift(name = "testString")]
    async fn test_string(&self, #[thrift(id = 1)] thing: String) -> String;

    /// Returns `thing`.
    #[thrift(name = "testBool")]
    async fn test_bool(&self, #[thrift(id = 1)] thing: bool) -> bool;

    /// Returns `thing`.
    #[thrift(name = "testByte")]
    async fn test_byte(&self, #[thrift(id = 1)] thing: i8) -> i8;

    /// Returns `thing`.
    #[thrift(name = "testI32")]
    async fn test_i32(&self, #[thrift(id = 1)] thing: i32) -> i32;

    /// Returns `thing`.
    #[thrift(name = "testI64")]
    async fn test_i64(&self, #[thrift(id = 1)] thing: i64) -> i64;

    /// Returns `thing`.
    #[thrift(name = "testDouble")]
    async fn test_double(&self, #[thrift(id = 1)] thing: f64) -> f64;

    /// Returns `thing`.
    #[thrift(name = "testBinary")]
    async fn test_binary(&self, #[thrift(id = 1)] thing: Bytes) -> Bytes;

    /// Returns `thing`.
    #[thrift(name = "testStruct")]
    async fn test_struct(&self, #[thrift(id = 1)] thing: Xtruct) -> Xtruct;

    /// Returns `thing`.
    #[thrift(name = "testNest")]
    async fn test_nest(&self, #[thrift(id = 1)] thing: Xtruct2) -> Xtruct2;

    /// Returns `thing`.
    #[thrift(name = "testMap")]
    async fn test_map(&self, #[thrift(id = 1)] thing: BTreeMap<i32, i32>) -> BTreeMap<i32, i32>;

    /// Returns `thing`.
    #[thrift(name = "testStringMap")]
    async fn test_string_map(&self, #[thrift(id = 1)] thing: BTreeMap<String, String>) -> BTreeMap<String, String>;

    /// Returns `thing`.
    #[thrift(name = "testSet")]
    async fn test_set(&self, #[thrift(id = 1)] thing: BTreeSet<i32>) -> BTreeSet<i32>;

    /// Returns `thing`.
    #[thrift(name = "testList")]
    async fn test_list(&self, #[thrift(id = 1)] thing: Vec<i32>) -> Vec<i32>;

    /// Returns `thing`.
    #[thrift(name = "testEnum")]
    async fn test_enum(&self, #[thrift(id = 1)] thing: Numberz) -> Numberz;

    /// Returns `thing`.
    #[thrift(name = "testTypedef")]
    async fn test_typedef(&self, #[thrift(id = 1)] thing: UserId) -> UserId;

    /// Returns `{-4 => {-4 => -4, -3 => -3, -2 => -2, -1 => -1}, 4 => {1 => 1, 2 => 2, 3 => 3, 4 => 4}}`.
    #[thrift(name = "testMapMap")]
    async fn test_map_map(&self, #[thrift(id = 1)] hello: i32) -> BTreeMap<i32, BTreeMap<i32, i32>>;

    /// Returns `{1 => {TWO => argument, THREE => argument}, 2 => {SIX => <empty Insanity>}}`.
    #[thrift(name = "testInsanity")]
    async fn test_insanity(
        &self,
        #[thrift(id = 1)] argument: Insanity,
    ) -> BTreeMap<UserId, BTreeMap<Numberz, Insanity>>;

    /// Returns `Xtruct { "Hello2", arg0, arg1, arg2 }`.
    #[thrift(name = "testMulti")]
    async fn test_multi(
        &self,
        #[thrift(id = 1)] arg0: i8,
        #[thrift(id = 2)] arg1: i32,
        #[thrift(id = 3)] arg2: i64,
        #[thrift(id = 4)] arg3: BTreeMap<i16, String>,
        #[thrift(id = 5)] arg4: Numberz,
        #[thrift(id = 6)] arg5: UserId,
    ) -> Xtruct;

    /// `"Xception"` throws `Xception { 1001, "Xception" }`, `"TException"` fails with a
    /// `TApplicationException`, anything else returns.
    #[thrift(name = "testException")]
    async fn test_exception(&self, #[thrift(id = 1)] arg: String) -> Result<(), OrApplication<TestExceptionThrows>>;

    /// `"Xception"` throws `Xception { 1001, "This is an Xception" }`, `"Xception2"` throws
    /// `Xception2 { 2002, { "This is an Xception2" } }`, anything else returns
    /// `Xtruct { string_thing: arg1 }`.
    #[thrift(name = "testMultiException")]
    async fn test_multi_exception(
        &self,
        #[thrift(id = 1)] arg0: String,
        #[thrift(id = 2)] arg1: String,
    ) -> Result<Xtruct, MultiExceptionThrows>;

    /// Sleeps `secondsToSleep`; the caller does not wait for it.
    #[thrift(name = "testOneway", oneway)]
    async fn test_oneway(&self, #[thrift(id = 1)] secondsToSleep: i32);
}

/// The second service of the multiplexed protocol's tests.
#[service(name = "SecondService")]
pub trait SecondService {
    /// Returns `testString("<thing>")`.
    #[thrift(name = "secondtestString")]
    async fn secondtest_string(&self, #[thrift(id = 1)] thing: String) -> String;
}
