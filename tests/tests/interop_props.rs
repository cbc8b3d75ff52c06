//! Generated values against Apache Thrift's Python library: random values of the interop
//! types (tests/idl/interop.thrift, derived in `thrift_tests::derived`) are encoded by this
//! crate and decoded by Apache's generated Python code, and the reverse, compared field by
//! field, in pure and accelerated binary and compact.
//!
//! Each run draws a new seed and prints it; a failure names it too. Replay a run with
//! `THRIFT_INTEROP_SEED=<seed> cargo test -p thrift-tests --test interop_props`.
//!
//! Needs Apache's compiler and Python library: `bash scripts/install-test-deps.sh`.

use proptest::arbitrary::{any, any_with};
use serde_json::{json, Value};
use thrift_core::testing::Sizes;
use thrift_core::{ThriftArbitrary, ThriftStruct};
use thrift_tests::derived::{Everything, OpenColors, Sparse};
use thrift_tests::interop::Interop;
use thrift_tests::json::ToJson;
use thrift_tests::seed::Seed;

#[test]
fn generated_values_match_apache_python() {
    let seed = Seed::from_env("THRIFT_INTEROP_SEED");
    println!("generated interop values: {seed}");
    // Small values: each is a dozen round trips through Python.
    let sizes = Sizes { max_collection: 4, max_string: 12, max_depth: 4 };
    let mut t = Interop::start();
    // Every type of the IDL, nested: primitives, containers, unions, exceptions,
    // requiredness (optional fields sometimes absent), enums and recursive nodes.
    t.generated("Everything", any_with::<Everything>(sizes), 160, &seed);
    // Enum values outside the IDL, which Python (whose enums are ints) keeps as we do.
    t.generated("Containers", any_with::<OpenColors>(sizes), 80, &seed);
    // Field ids far apart and out of order.
    t.generated("Sparse", any_with::<Sparse>(sizes), 80, &seed);
    t.finish(&format!("generated interop values (seed {})", seed.value()));
}

/// `Point` with a JSON form that swaps `x` and `y`: Python's reading of our bytes, and ours
/// of Python's, disagree with it unless they are equal.
#[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
#[thrift(name = "Point")]
struct SwappedPoint {
    #[thrift(id = 1)]
    x: i32,
    #[thrift(id = 2)]
    y: i32,
}

impl ToJson for SwappedPoint {
    fn to_json(&self) -> Value {
        json!({ "x": self.y, "y": self.x })
    }
}

#[test]
fn a_mismatch_is_reported_with_the_seed_that_replays_it() {
    let seed = Seed::from_env("THRIFT_INTEROP_SEED");
    let mut t = Interop::start();
    t.generated("Point", any::<SwappedPoint>(), 16, &seed);
    let message = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.finish("swapped points")))
        .expect_err("a swapped point passed")
        .downcast::<String>()
        .map(|m| *m)
        .unwrap_or_default();
    let replay =
        format!("generated Point with seed {} (replay with THRIFT_INTEROP_SEED={})", seed.value(), seed.value());
    assert!(message.contains(&replay), "{message}");
    assert!(message.contains("rust decoded python's bytes to another value"), "{message}");
    // Shrunk to a small pair that still differs.
    assert!(message.contains("the smallest failing value: {\"x\":"), "{message}");
}
