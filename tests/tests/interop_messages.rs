//! Message envelopes (call, reply, exception, oneway) with real argument and result structs of
//! `service Echo` and with `TApplicationException`, exchanged with Apache Thrift's Python
//! library in both directions: same bytes, same decoded values. Python's old-style
//! (non-strict) binary envelopes are read too.
//!
//! Needs Apache's compiler and Python library: `bash scripts/install-test-deps.sh`.

use thrift_core::{ApplicationException, ApplicationExceptionKind, MessageHeader, MessageType};
use thrift_tests::hand_struct;
use thrift_tests::interop::Interop;
use thrift_tests::model::{Oops, Primitives};

hand_struct! {
    /// `Echo.echo_args`, as Apache's compiler generates it for `echo(1: Primitives input, 2: i32 times)`.
    struct EchoArgs as "struct" {
        1: plain input: Primitives,
        2: plain times: i32,
    }
}

hand_struct! {
    /// `Echo.echo_result`: field 0 the return value, field 1 the declared exception.
    struct EchoResult as "struct" {
        0: optional success: Primitives,
        1: optional oops: Oops,
    }
}

hand_struct! {
    /// `Echo.notify_args` for `oneway void notify(1: string text)`.
    struct NotifyArgs as "struct" {
        1: plain text: String,
    }
}

fn header(name: &str, kind: MessageType, seqid: i32) -> MessageHeader<'_> {
    MessageHeader { name, kind, seqid }
}

fn sample() -> Primitives {
    Primitives {
        flag: true,
        tiny: -3,
        small: 1234,
        medium: -99_999,
        large: 1 << 50,
        real: -2.75,
        text: "ping ☏".into(),
        blob: vec![0xde, 0xad],
    }
}

#[test]
fn calls_replies_and_oneways() {
    let mut t = Interop::start();
    let args = EchoArgs { input: sample(), times: 3 };
    for seqid in [0, 1, -1, 127, 128, i32::MAX, i32::MIN] {
        t.message(&format!("call seqid {seqid}"), header("echo", MessageType::Call, seqid), "Echo.echo_args", &args);
    }
    t.message(
        "call with default arguments",
        header("echo", MessageType::Call, 2),
        "Echo.echo_args",
        &EchoArgs { input: Primitives::default(), times: 0 },
    );

    let success = EchoResult { success: Some(sample()), oops: None };
    t.message("reply with a return value", header("echo", MessageType::Reply, 1), "Echo.echo_result", &success);
    let declared = EchoResult { success: None, oops: Some(Oops { message: "declared failure".into(), code: 7 }) };
    t.message("reply with a declared exception", header("echo", MessageType::Reply, 1), "Echo.echo_result", &declared);

    let notify = NotifyArgs { text: "fire and forget ✉".into() };
    t.message("oneway", header("notify", MessageType::Oneway, 5), "Echo.notify_args", &notify);

    // Method names: the multiplexed protocol's `Service:method`, non-ASCII, long, empty.
    let long_name = "m".repeat(1000);
    for name in ["Echo:echo", "échō_方法", long_name.as_str(), ""] {
        let label = format!("method name {:?}", name.chars().take(12).collect::<String>());
        t.message(&label, header(name, MessageType::Call, 9), "Echo.echo_args", &args);
    }
    t.finish("calls_replies_and_oneways");
}

#[test]
fn application_exceptions() {
    let mut t = Interop::start();
    // Every Apache code (0 to 10), and codes no kind names.
    let kinds = (0..=10).map(ApplicationExceptionKind::from_code).chain([99, -1].map(ApplicationExceptionKind::Other));
    for (seqid, kind) in kinds.enumerate() {
        let e = ApplicationException::new(kind, format!("{kind:?} happened"));
        let h = header("echo", MessageType::Exception, seqid as i32);
        t.message(&format!("exception {kind:?}"), h, "TApplicationException", &e);
    }
    for message in ["", "ünïcode ⚠", &"x".repeat(100_000)] {
        let e = ApplicationException::new(ApplicationExceptionKind::InternalError, message);
        let label = format!("exception message of {} bytes", message.len());
        t.message(&label, header("echo", MessageType::Exception, 1), "TApplicationException", &e);
    }
    t.finish("application_exceptions");
}

/// The checks above can fail: Python reports a wrong envelope or body in our bytes, and
/// the byte comparison names where two encodings part.
#[test]
fn mismatches_are_reported() {
    let mut t = Interop::start();
    let args = EchoArgs { input: sample(), times: 3 };
    let mut ours = Vec::new();
    <thrift_core::Compact as thrift_core::Protocol>::write_message_begin(
        &mut ours,
        &header("echo", MessageType::Call, 4),
    );
    thrift_core::Encode::encode::<thrift_core::Compact, _>(&args, &mut ours);
    let check = |seqid: i32, times: i32| {
        serde_json::json!({
            "op": "check_message", "proto": "compact", "hex": hex::encode(&ours),
            "name": "echo", "kind": 1, "seqid": seqid, "type": "Echo.echo_args",
            "expect": thrift_tests::json::ToJson::to_json(&EchoArgs { input: sample(), times }),
        })
    };
    let cases = [(check(4, 3), None), (check(5, 3), Some("envelope")), (check(4, 2), Some("decoded value differs"))];
    for (request, want) in cases {
        match (t.call(request), want) {
            (Ok(_), None) => t.passed("python check", "compact"),
            (Err(e), Some(w)) if e.contains(w) => t.passed("python check reports", "compact"),
            (got, _) => t.fail("mismatch", "compact", "python check", format!("{got:?}, expected {want:?}")),
        }
    }
    let diff = thrift_tests::interop::byte_difference(&[1, 2, 3, 4], &[1, 2, 9, 4]);
    assert!(diff.as_deref().is_some_and(|d| d.starts_with("first difference at byte 2 ")), "{diff:?}");
    t.finish("mismatches_are_reported");
}
