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

/// Compact varints of their type's full length, whose last byte fits the type or carries
/// bits beyond it, as fields, list elements and lengths: whole and cut at every byte.
#[test]
fn on_full_length_varints() {
    use thrift_core::{MessageHeader, MessageType};

    let fits32 = [0xff, 0xff, 0xff, 0xff, 0x0f];
    let over32 = [0xff, 0xff, 0xff, 0xff, 0x1f];
    let fits64 = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    let over64 = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03];
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    for (i32s, i64s) in [(fits32, fits64), (over32, over64)] {
        // i16, i32 and i64 fields, and a string field's length.
        for ctype in [0x14u8, 0x15, 0x18] {
            bodies.push([&[ctype][..], &i32s, &[0x00]].concat());
        }
        bodies.push([&[0x16][..], &i64s, &[0x00]].concat());
        // list<i32> and list<i64> of 10, the full-length one among short ones.
        for (elem, v) in [(0x05u8, &i32s[..]), (0x06, &i64s[..])] {
            let mut body = vec![0x19, 0xa0 | elem];
            body.extend([0x02; 4]);
            body.extend(v);
            body.extend([0x02; 5]);
            body.push(0x00);
            bodies.push(body);
        }
        // A list's long-form size and a map's size.
        bodies.push([&[0x19, 0xf3][..], &i32s, &[0x00]].concat());
        bodies.push([&[0x1b][..], &i32s, &[0x33, 0x00]].concat());
    }
    for body in bodies {
        let mut wire = Vec::new();
        Compact::write_message_begin(&mut wire, &MessageHeader { name: "m", kind: MessageType::Call, seqid: 1 });
        wire.extend(body);
        for cut in 0..=wire.len() {
            agree(&wire[..cut], true, Limits::default()).unwrap();
        }
    }
}

/// Compact field bytes with a STOP type nibble and a non-zero delta end a struct, in both
/// paths, whole and cut at every byte.
#[test]
fn on_stop_bytes_with_a_delta() {
    use thrift_core::{MessageHeader, MessageType};

    for stop in (1u8..16).map(|d| d << 4) {
        for body in [vec![0x15, 0x02, stop], vec![0x19, 0x2c, 0x15, 0x02, stop, stop, stop, 0x15]] {
            let mut wire = Vec::new();
            Compact::write_message_begin(&mut wire, &MessageHeader { name: "m", kind: MessageType::Call, seqid: 1 });
            wire.extend(body);
            for cut in 0..=wire.len() {
                agree(&wire[..cut], true, Limits::default()).unwrap();
            }
        }
    }
}
