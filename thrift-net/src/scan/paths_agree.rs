//! The fast path must decide exactly what the careful path alone decides: on valid and
//! corrupted messages of every shape, the same end, or the same error at the same offset,
//! depth and field, or the same request for more bytes.

use proptest::prelude::*;
use thrift_core::{Binary, Compact, Limits, Protocol};

use super::{Scan, Scanner};

#[allow(dead_code)] // shared with the integration tests, which use more of it
#[path = "../../tests/common/value.rs"]
mod value;

fn outcome<P: Protocol>(wire: &[u8], careful_only: bool, limits: Limits) -> String {
    let mut s = Scanner::<P>::new(limits);
    s.careful_only = careful_only;
    match s.scan(wire) {
        Ok(Scan::Complete(len)) => format!("complete at {len}"),
        Ok(Scan::NeedMore(need)) => format!("need {need} (at {}, depth {})", s.position(), s.depth()),
        Err(e) => format!("error: {e}"),
    }
}

fn agree(wire: &[u8], compact: bool, limits: Limits) -> Result<(), TestCaseError> {
    if compact {
        prop_assert_eq!(outcome::<Compact>(wire, false, limits), outcome::<Compact>(wire, true, limits));
    } else {
        prop_assert_eq!(outcome::<Binary>(wire, false, limits), outcome::<Binary>(wire, true, limits));
    }
    Ok(())
}

/// Limits tight enough that messages of every shape hit them now and then.
fn any_limits() -> impl Strategy<Value = Limits> {
    prop_oneof![
        3 => Just(Limits::default()),
        1 => (1u16..6, 0usize..8, 0usize..8, 20usize..400).prop_map(|(depth, string, container, message)| Limits {
            max_depth: depth,
            max_string_len: string,
            max_container_len: container,
            max_message_len: message,
            ..Limits::default()
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn on_corrupted_messages(
        msg in value::structural_msg(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut_at in proptest::option::of(any::<prop::sample::Index>()),
        compact in any::<bool>(),
        limits in any_limits(),
    ) {
        let mut wire = if compact { msg.encode::<Compact>() } else { msg.encode::<Binary>() };
        for (at, byte) in edits {
            let i = at.index(wire.len());
            wire[i] = byte;
        }
        if let Some(at) = cut_at {
            wire.truncate(at.index(wire.len() + 1));
        }
        agree(&wire, compact, limits)?;
    }

    #[test]
    fn on_garbage_after_an_envelope(
        body in proptest::collection::vec(any::<u8>(), 0..200),
        compact in any::<bool>(),
    ) {
        let msg = value::Msg::new("m", value::Value::Struct(Vec::new()));
        let mut wire = if compact { msg.encode::<Compact>() } else { msg.encode::<Binary>() };
        wire.pop();
        wire.extend_from_slice(&body);
        agree(&wire, compact, Limits::default())?;
    }
}
