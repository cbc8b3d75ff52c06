//! Running a check over many generated values, as `proptest!` would, in one call.

use std::fmt;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

use super::roundtrip::{roundtrip_with, DecodeFrom, Failure, Leaked, Owned};
use super::{Sizes, ThriftArbitrary};
use crate::encode::{Decode, DecodeOwned, Encode};

/// Runs `check` on `cases` values of `strategy` (shrinking a failure to a small value) and
/// panics with the report for the smallest failing one.
#[track_caller]
pub(super) fn run<S: Strategy>(what: &str, strategy: S, cases: u32, check: impl Fn(&S::Value) -> Result<(), Failure>) {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    match runner.run(&strategy, |value| check(&value).map_err(TestCaseError::from)) {
        Ok(()) => {}
        // The reason is a `Failure`'s report, which shows the (shrunk) value.
        Err(TestError::Fail(reason, _)) => panic!("{what} failed {reason}"),
        Err(TestError::Abort(reason)) => panic!("{what} gave up: {reason}"),
    }
}

/// How many cases a check runs by default: proptest's (256, or `PROPTEST_CASES`).
pub(super) fn default_cases() -> u32 {
    Config::default().cases
}

fn check_all<T, D>(sizes: Sizes, cases: u32, decode: D)
where
    T: ThriftArbitrary + Encode + PartialEq + fmt::Debug,
    D: DecodeFrom<T>,
{
    let what = format!("roundtrip of {}", std::any::type_name::<T>());
    run(&what, T::arbitrary_with(sizes), cases, |value| roundtrip_with(value, &decode));
}

/// [`roundtrip`](super::roundtrip) for every value proptest generates for `T` (256 cases
/// under the default [`Sizes`]); panics with the report for the smallest failing value.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use thrift_core::{ThriftArbitrary, ThriftStruct};
///
/// #[derive(ThriftStruct, ThriftArbitrary, Debug, PartialEq)]
/// struct Point {
///     #[thrift(id = 1)]
///     x: i32,
///     #[thrift(id = 2)]
///     label: Option<String>,
/// }
///
/// thrift_core::testing::check_roundtrips::<Point>();
/// # }
/// ```
#[track_caller]
pub fn check_roundtrips<T>()
where
    T: ThriftArbitrary + Encode + DecodeOwned + PartialEq,
{
    check_all::<T, _>(Sizes::default(), default_cases(), Owned);
}

/// [`check_roundtrips`] within `sizes`, for `cases` values.
#[track_caller]
pub fn check_roundtrips_with<T>(sizes: Sizes, cases: u32)
where
    T: ThriftArbitrary + Encode + DecodeOwned + PartialEq,
{
    check_all::<T, _>(sizes, cases, Owned);
}

/// [`check_roundtrips`] for a type that borrows from its input; see
/// [`roundtrip_borrowed`](super::roundtrip_borrowed).
#[track_caller]
pub fn check_roundtrips_borrowed<T>()
where
    T: ThriftArbitrary + Encode + Decode<'static> + PartialEq,
{
    check_all::<T, _>(Sizes::default(), default_cases(), Leaked);
}
