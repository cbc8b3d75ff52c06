//! Evolution checks: an old and a new version of a type read each other's bytes.

use std::fmt;

use super::roundtrip::{compare, encode_exact, Failure};
use super::runner::{default_cases, run};
use super::{Sizes, ThriftArbitrary};
use crate::encode::{DecodeOwned, Encode};
use crate::protocol::{Binary, Compact, Protocol};

/// Encodes `value` with `P` and checks it decodes as `Target` to `expected`.
fn reads_as<P: Protocol, T, Target>(value: &T, expected: &Target, how: &str) -> Result<(), Failure>
where
    T: Encode + fmt::Debug,
    Target: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    let bytes = encode_exact::<P, T>(value)?;
    compare::<P, Target>(how, crate::from_slice::<P, Target>(&bytes), expected, &bytes).map_err(|mut failure| {
        // Report the value that was written, not only the one expected.
        failure.value = format!("{value:?}, expected to read as {expected:?}");
        failure
    })
}

fn both<T, Target>(value: &T, expected: &Target, how: &str) -> Result<(), Failure>
where
    T: Encode + fmt::Debug,
    Target: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    reads_as::<Binary, T, Target>(value, expected, how)?;
    reads_as::<Compact, T, Target>(value, expected, how)
}

/// Checks that `new`, a value of a newer version of a type, decodes into the older
/// version `Old` as `expected` (its known fields kept, new enum values and union members
/// in their `unknown` variants), in both protocols.
pub fn new_reads_as_old<New, Old>(new: &New, expected: &Old) -> Result<(), Failure>
where
    New: Encode + fmt::Debug,
    Old: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    both(new, expected, "as the old type")
}

/// Checks that `old`, a value of an older version of a type, decodes into the newer
/// version `New` as `expected` (the fields it lacks at their documented defaults), in both
/// protocols.
pub fn old_reads_as_new<Old, New>(old: &Old, expected: &New) -> Result<(), Failure>
where
    Old: Encode + fmt::Debug,
    New: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    both(old, expected, "as the new type")
}

/// [`new_reads_as_old`] for every generated `New` value, with `downgrade(new)` expected:
/// what old readers make of new data (the added fields dropped, the added enum values and
/// union members unknown). Panics with the report for the smallest failing value.
#[track_caller]
pub fn check_new_reads_as_old<Old, New>(downgrade: impl Fn(&New) -> Old)
where
    Old: Encode + DecodeOwned + PartialEq + fmt::Debug,
    New: ThriftArbitrary + Encode,
{
    let (old, new) = (std::any::type_name::<Old>(), std::any::type_name::<New>());
    run(&format!("{new} read as {old}"), New::arbitrary_with(Sizes::default()), default_cases(), |value| {
        new_reads_as_old(value, &downgrade(value))
    });
}

/// [`old_reads_as_new`] for every generated `Old` value, with `upgrade(old)` expected: what
/// the new version documents for old data (the defaults of the fields it adds). Panics with
/// the report for the smallest failing value.
#[track_caller]
pub fn check_old_reads_as_new<Old, New>(upgrade: impl Fn(&Old) -> New)
where
    Old: ThriftArbitrary + Encode,
    New: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    let (old, new) = (std::any::type_name::<Old>(), std::any::type_name::<New>());
    run(&format!("{old} read as {new}"), Old::arbitrary_with(Sizes::default()), default_cases(), |value| {
        old_reads_as_new(value, &upgrade(value))
    });
}

/// Both directions: [`check_old_reads_as_new`] with `upgrade` and
/// [`check_new_reads_as_old`] with `downgrade`.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use thrift_core::{ThriftArbitrary, ThriftStruct};
///
/// #[derive(ThriftStruct, ThriftArbitrary, Debug, PartialEq)]
/// struct UserV1 {
///     #[thrift(id = 1)]
///     name: String,
/// }
///
/// #[derive(ThriftStruct, ThriftArbitrary, Debug, PartialEq)]
/// struct UserV2 {
///     #[thrift(id = 1)]
///     name: String,
///     #[thrift(id = 2, default = 3)]
///     level: i32,
/// }
///
/// thrift_core::testing::check_evolution::<UserV1, UserV2>(
///     |v1| UserV2 { name: v1.name.clone(), level: 3 },
///     |v2| UserV1 { name: v2.name.clone() },
/// );
/// # }
/// ```
#[track_caller]
pub fn check_evolution<Old, New>(upgrade: impl Fn(&Old) -> New, downgrade: impl Fn(&New) -> Old)
where
    Old: ThriftArbitrary + Encode + DecodeOwned + PartialEq,
    New: ThriftArbitrary + Encode + DecodeOwned + PartialEq,
{
    check_old_reads_as_new::<Old, New>(upgrade);
    check_new_reads_as_old::<Old, New>(downgrade);
}
