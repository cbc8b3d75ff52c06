//! [`ThriftArbitrary`]: a proptest strategy for every Thrift type, bounded by [`Sizes`].

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::Arc;

use bytes::Bytes;
use proptest::arbitrary::{any, Arbitrary};
use proptest::strategy::{BoxedStrategy, LazyJust, NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use super::Sizes;
use crate::impls::{OrderedDouble, Uuid};

/// A Thrift type proptest can generate: the strategy for its values, bounded by [`Sizes`].
///
/// Implemented for every type the wire traits support, and by `#[derive(ThriftArbitrary)]`
/// for user types (which also get proptest's [`Arbitrary`], so `any::<MyType>()` works). It
/// is a trait of its own, not proptest's `Arbitrary`, because it must cover foreign types
/// proptest does not (`Bytes`) or covers differently (`f64` with NaN, unbounded sizes).
///
/// What the strategies generate, by Thrift meaning:
/// - `double`: finite values only (zeros, subnormals and normals of both signs), so that
///   derived `PartialEq` holds after a roundtrip; [`OrderedDouble`] compares by bits and
///   also gets NaNs and infinities.
/// - strings and binaries: up to [`Sizes::max_string`] characters or bytes.
/// - containers: up to [`Sizes::max_collection`] elements, empty at the last level.
/// - borrowed forms (`&'static str`, `&'static [u8]`, `Cow<'static, _>`) through their owned
///   form: a generated `String` is leaked to make a `&'static str`, which is fine in a test
///   process (each case leaks at most the few bytes it generated).
///
/// ```
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// use thrift_core::testing::{Sizes, ThriftArbitrary};
///
/// let sizes = Sizes { max_collection: 3, ..Sizes::default() };
/// let value = Vec::<String>::arbitrary_with(sizes).new_tree(&mut TestRunner::default()).unwrap().current();
/// assert!(value.len() <= 3);
/// ```
pub trait ThriftArbitrary: fmt::Debug + Sized + 'static {
    /// The strategy for values of this type within `sizes`.
    fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self>;
}

/// The strategy for `T` with the default [`Sizes`].
///
/// ```
/// use proptest::prelude::*;
/// use thrift_core::testing::arbitrary;
///
/// proptest!(|(blob in arbitrary::<bytes::Bytes>())| {
///     prop_assert!(blob.len() <= 32);
/// });
/// ```
pub fn arbitrary<T: ThriftArbitrary>() -> BoxedStrategy<T> {
    <T as ThriftArbitrary>::arbitrary_with(Sizes::default())
}

/// The strategy for an optional field of type `T`: absent a quarter of the time, always
/// absent at the last level (so optional links end recursion).
pub fn optional<T: ThriftArbitrary>(sizes: Sizes) -> BoxedStrategy<Option<T>> {
    if sizes.at_bottom() {
        return LazyJust::new(|| None).boxed();
    }
    proptest::option::weighted(0.75, <T as ThriftArbitrary>::arbitrary_with(sizes)).boxed()
}

/// A strategy built only when a value is drawn from it: a union's members at the last
/// level, so a recursive union's strategy does not build itself forever.
pub struct Lazy<T> {
    build: Arc<dyn Fn() -> BoxedStrategy<T>>,
}

impl<T> Lazy<T> {
    /// The strategy `build` returns, built anew for each value.
    pub fn new(build: impl Fn() -> BoxedStrategy<T> + 'static) -> Lazy<T> {
        Lazy { build: Arc::new(build) }
    }
}

impl<T> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Lazy")
    }
}

impl<T: fmt::Debug> Strategy for Lazy<T> {
    type Tree = Box<dyn ValueTree<Value = T>>;
    type Value = T;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        (self.build)().new_tree(runner)
    }
}

/// Implements [`ThriftArbitrary`] with proptest's own `any`, whose range is the Thrift one.
macro_rules! with_any {
    ($($ty:ty),+) => {$(
        impl ThriftArbitrary for $ty {
            fn arbitrary_with(_: Sizes) -> BoxedStrategy<Self> {
                any::<$ty>().boxed()
            }
        }
    )+};
}

with_any!(bool, i8, i16, i32, i64);

/// Finite doubles: a NaN would not equal itself after the roundtrip.
impl ThriftArbitrary for f64 {
    fn arbitrary_with(_: Sizes) -> BoxedStrategy<Self> {
        use proptest::num::f64::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
        (POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO).boxed()
    }
}

/// Every double, NaNs and infinities included: `OrderedDouble` compares by bits.
impl ThriftArbitrary for OrderedDouble {
    fn arbitrary_with(_: Sizes) -> BoxedStrategy<Self> {
        proptest::num::f64::ANY.prop_map(OrderedDouble).boxed()
    }
}

impl ThriftArbitrary for Uuid {
    fn arbitrary_with(_: Sizes) -> BoxedStrategy<Self> {
        any::<[u8; 16]>().prop_map(Uuid).boxed()
    }
}

#[cfg(feature = "uuid")]
impl ThriftArbitrary for uuid::Uuid {
    fn arbitrary_with(_: Sizes) -> BoxedStrategy<Self> {
        any::<[u8; 16]>().prop_map(uuid::Uuid::from_bytes).boxed()
    }
}

impl ThriftArbitrary for String {
    fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
        proptest::collection::vec(any::<char>(), 0..=sizes.max_string).prop_map(String::from_iter).boxed()
    }
}

impl ThriftArbitrary for Vec<u8> {
    fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
        proptest::collection::vec(any::<u8>(), 0..=sizes.max_string).boxed()
    }
}

/// Implements [`ThriftArbitrary`] for a form of `string` or `binary` made from the owned one.
macro_rules! via_owned {
    ($owned:ty => $($ty:ty: |$v:ident| $make:expr),+ $(,)?) => {$(
        impl ThriftArbitrary for $ty {
            fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
                <$owned as ThriftArbitrary>::arbitrary_with(sizes).prop_map(|$v| $make).boxed()
            }
        }
    )+};
}

via_owned!(String =>
    Box<str>: |s| s.into_boxed_str(),
    Arc<str>: |s| Arc::from(s),
    Rc<str>: |s| Rc::from(s),
    Cow<'static, str>: |s| Cow::Owned(s),
    &'static str: |s| &*Box::leak(s.into_boxed_str()),
);

via_owned!(Vec<u8> =>
    Bytes: |b| Bytes::from(b),
    Box<[u8]>: |b| b.into_boxed_slice(),
    Arc<[u8]>: |b| Arc::from(b),
    Rc<[u8]>: |b| Rc::from(b),
    Cow<'static, [u8]>: |b| Cow::Owned(b),
    &'static [u8]: |b| &*Box::leak(b.into_boxed_slice()),
);

/// Implements [`ThriftArbitrary`] for a pointer to a Thrift type.
macro_rules! pointer {
    ($($ptr:ident),+) => {$(
        impl<T: ThriftArbitrary> ThriftArbitrary for $ptr<T> {
            fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
                <T as ThriftArbitrary>::arbitrary_with(sizes).prop_map($ptr::new).boxed()
            }
        }
    )+};
}

pointer!(Box, Arc, Rc);

/// The element count range at this level: none at the last.
fn len_range(sizes: Sizes) -> std::ops::RangeInclusive<usize> {
    0..=if sizes.at_bottom() { 0 } else { sizes.max_collection }
}

/// Implements [`ThriftArbitrary`] for a list or set from proptest's collection strategy,
/// without building the element's strategy at the last level.
macro_rules! sequence {
    ($($coll:ident: $make:path, [$($bound:tt)*]),+ $(,)?) => {$(
        impl<T: ThriftArbitrary $($bound)*> ThriftArbitrary for $coll<T> {
            fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
                if sizes.at_bottom() {
                    return LazyJust::new($coll::new).boxed();
                }
                $make(<T as ThriftArbitrary>::arbitrary_with(sizes.nested()), len_range(sizes)).boxed()
            }
        }
    )+};
}

sequence!(
    Vec: proptest::collection::vec, [],
    VecDeque: proptest::collection::vec_deque, [],
    BTreeSet: proptest::collection::btree_set, [+ Ord],
);

impl<T: ThriftArbitrary + Eq + Hash, S: BuildHasher + Default + 'static> ThriftArbitrary for HashSet<T, S> {
    fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
        if sizes.at_bottom() {
            return LazyJust::new(HashSet::default).boxed();
        }
        proptest::collection::hash_set(<T as ThriftArbitrary>::arbitrary_with(sizes.nested()), len_range(sizes))
            .prop_map(|set| set.into_iter().collect())
            .boxed()
    }
}

impl<K: ThriftArbitrary + Ord, V: ThriftArbitrary> ThriftArbitrary for BTreeMap<K, V> {
    fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
        if sizes.at_bottom() {
            return LazyJust::new(BTreeMap::new).boxed();
        }
        let nested = sizes.nested();
        proptest::collection::btree_map(
            <K as ThriftArbitrary>::arbitrary_with(nested),
            <V as ThriftArbitrary>::arbitrary_with(nested),
            len_range(sizes),
        )
        .boxed()
    }
}

impl<K: ThriftArbitrary + Eq + Hash, V: ThriftArbitrary, S: BuildHasher + Default + 'static> ThriftArbitrary
    for HashMap<K, V, S>
{
    fn arbitrary_with(sizes: Sizes) -> BoxedStrategy<Self> {
        if sizes.at_bottom() {
            return LazyJust::new(HashMap::default).boxed();
        }
        let nested = sizes.nested();
        proptest::collection::hash_map(
            <K as ThriftArbitrary>::arbitrary_with(nested),
            <V as ThriftArbitrary>::arbitrary_with(nested),
            len_range(sizes),
        )
        .prop_map(|map| map.into_iter().collect())
        .boxed()
    }
}

/// proptest's `any::<Uuid>()`.
impl Arbitrary for Uuid {
    type Parameters = ();
    type Strategy = BoxedStrategy<Self>;

    fn arbitrary_with((): ()) -> Self::Strategy {
        <Uuid as ThriftArbitrary>::arbitrary_with(Sizes::default())
    }
}

/// proptest's `any::<OrderedDouble>()`: every double, NaNs included.
impl Arbitrary for OrderedDouble {
    type Parameters = ();
    type Strategy = BoxedStrategy<Self>;

    fn arbitrary_with((): ()) -> Self::Strategy {
        <OrderedDouble as ThriftArbitrary>::arbitrary_with(Sizes::default())
    }
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Just, Strategy, ValueTree};
    use proptest::test_runner::TestRunner;

    use super::*;

    /// `count` values drawn from `strategy`.
    fn draw<T: fmt::Debug>(strategy: BoxedStrategy<T>, count: usize) -> Vec<T> {
        let mut runner = TestRunner::deterministic();
        (0..count).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect()
    }

    #[test]
    fn sizes_bound_strings_binaries_and_containers() {
        let sizes = Sizes { max_collection: 3, max_string: 5, max_depth: 4 };
        assert!(draw(<String as ThriftArbitrary>::arbitrary_with(sizes), 200).iter().all(|s| s.chars().count() <= 5));
        assert!(draw(<Bytes as ThriftArbitrary>::arbitrary_with(sizes), 200).iter().all(|b| b.len() <= 5));
        let maps = draw(<HashMap<i32, Vec<Vec<i8>>> as ThriftArbitrary>::arbitrary_with(sizes), 200);
        assert!(maps.iter().all(|m| m.len() <= 3 && m.values().all(|v| v.len() <= 3)));
        assert!(maps.iter().any(|m| m.len() == 3), "the bound is reached too");
    }

    #[test]
    fn containers_are_empty_and_options_absent_at_the_last_level() {
        let sizes = Sizes { max_depth: 1, ..Sizes::default() };
        let nested = draw(<Vec<Vec<i32>> as ThriftArbitrary>::arbitrary_with(sizes), 100);
        assert!(nested.iter().all(|outer| outer.iter().all(Vec::is_empty)));
        assert!(nested.iter().any(|outer| !outer.is_empty()));
        assert!(draw(optional::<i32>(sizes.nested()), 50).iter().all(Option::is_none));
        let options = draw(optional::<i32>(sizes), 200);
        assert!(options.iter().any(Option::is_none) && options.iter().any(Option::is_some));
    }

    #[test]
    fn doubles_are_finite_and_ordered_doubles_are_not() {
        assert!(draw(<f64 as ThriftArbitrary>::arbitrary_with(Sizes::default()), 500).iter().all(|d| d.is_finite()));
        assert!(draw(<OrderedDouble as ThriftArbitrary>::arbitrary_with(Sizes::default()), 2000)
            .iter()
            .any(|d| !d.0.is_finite()));
    }

    #[test]
    fn lazy_strategies_build_per_value() {
        let built = Rc::new(std::cell::Cell::new(0));
        let counter = Rc::clone(&built);
        let lazy = Lazy::new(move || {
            counter.set(counter.get() + 1);
            Just(7i32).boxed()
        });
        assert_eq!(built.get(), 0);
        assert_eq!(draw(lazy.boxed(), 3), [7, 7, 7]);
        assert_eq!(built.get(), 3);
    }
}
