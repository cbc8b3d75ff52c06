//! Runs values and messages through both this crate and Apache's Python library, both ways,
//! and tallies what passed.
//!
//! For each case and each Python protocol (pure and accelerated binary and compact):
//! - Python encodes the value; Rust decodes those bytes to the same value;
//! - Rust encodes the value at exactly its reported length; the bytes equal Python's when
//!   Python's wire order is the given order (no set of more than one element: Python
//!   writes sets in hash order); and Python decodes Rust's bytes to the same value.
//!
//! Failures are collected, not raised at once, so one run reports every mismatch.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::cell::RefCell;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde_json::{json, Value};
use thrift_core::{Binary, Compact, DecodeOwned, Encode, MessageHeader, MessageType, Protocol, Reader};

use crate::json::{first_difference, ToJson};
use crate::python::{generate_python, tools, workspace_root, PyHelper, TempDir};
use crate::seed::Seed;

/// How many simpler values a failing generated case tries before it is reported: each costs
/// a dozen calls to Python.
const MAX_SHRINK_ITERS: u32 = 256;

/// Which of our protocols reads and writes what a Python protocol does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// [`Binary`].
    Binary,
    /// [`Compact`].
    Compact,
    /// `thrift_core::json`.
    Json,
}

/// A protocol of Apache's Python library, by the helper's name for it.
#[derive(Clone, Copy, Debug)]
pub struct PyProtocol {
    /// The helper's name: `binary`, `binary-accel`, ...
    pub name: &'static str,
    /// Our protocol for the same wire format.
    pub wire: Wire,
}

/// The protocols every value case runs in: Apache's pure-Python and C-accelerated binary
/// and compact protocols.
pub const VALUE_PROTOCOLS: [PyProtocol; 4] = [
    PyProtocol { name: "binary", wire: Wire::Binary },
    PyProtocol { name: "binary-accel", wire: Wire::Binary },
    PyProtocol { name: "compact", wire: Wire::Compact },
    PyProtocol { name: "compact-accel", wire: Wire::Compact },
];

/// Python's `TJSONProtocol`, which [`Interop::json_value_with`] runs values through.
pub const JSON: PyProtocol = PyProtocol { name: "json", wire: Wire::Json };

/// Python's binary protocol writing old-style (non-strict) envelopes, which we must read.
pub const NONSTRICT_BINARY: PyProtocol = PyProtocol { name: "binary-nonstrict", wire: Wire::Binary };

/// One value case, as every protocol runs it.
struct ValueCase<'a> {
    case: &'a str,
    type_name: &'a str,
    expect: &'a Value,
    decode: Decoder,
}

/// Decodes a whole input in a protocol into a Rust type and returns its JSON form.
pub type Decoder = fn(Wire, &[u8]) -> thrift_core::Result<Value>;

/// The [`Decoder`] for an owned type.
pub fn decode_json<T: DecodeOwned + ToJson>(wire: Wire, bytes: &[u8]) -> thrift_core::Result<Value> {
    Ok(match wire {
        Wire::Binary => thrift_core::from_slice::<Binary, T>(bytes)?.to_json(),
        Wire::Compact => thrift_core::from_slice::<Compact, T>(bytes)?.to_json(),
        Wire::Json => thrift_core::json::from_slice::<T>(bytes)?.to_json(),
    })
}

/// The IDL the interop tests share with Python.
pub fn interop_idl() -> PathBuf {
    workspace_root().join("tests/idl/interop.thrift")
}

/// The Python helper script.
pub fn interop_script() -> PathBuf {
    workspace_root().join("tests/python/interop.py")
}

/// A session with the Python helper, with code generated from some IDL files.
pub struct Interop {
    py: PyHelper,
    module: String,
    counts: BTreeMap<(&'static str, &'static str), usize>,
    failures: Vec<String>,
    _generated: TempDir,
}

/// Panics with `e`: the one way a test fails when its tools are missing.
fn fail_setup<T>(e: String) -> T {
    panic!("interop setup failed: {e}")
}

impl Interop {
    /// Generates Python for tests/idl/interop.thrift and starts the helper; panics, naming
    /// what is missing, when Apache's compiler or Python library is not installed.
    pub fn start() -> Interop {
        Interop::start_with(&[&interop_idl()], "interop_types")
    }

    /// Generates Python for every IDL in `idls` (each with its own module) and starts the
    /// helper, whose types are looked up in `module` unless a call names another.
    pub fn start_with(idls: &[&Path], module: &str) -> Interop {
        let tools = tools().unwrap_or_else(fail_setup);
        let generated = TempDir::new("interop-py").unwrap_or_else(fail_setup);
        for idl in idls {
            generate_python(idl, generated.path()).unwrap_or_else(fail_setup);
        }
        let mut py = PyHelper::start(&interop_script(), &[generated.path()]).unwrap_or_else(fail_setup);
        let hello = py.call(&json!({"op": "hello"})).unwrap_or_else(fail_setup);
        if hello["ok"] != true || hello["fastbinary"].is_null() {
            panic!("the Python helper cannot use Apache's accelerated protocols: {hello}");
        }
        println!(
            "reference: {} ({}); Python {} at {} with thrift {} from {}, C extension {}",
            tools.thrift_version,
            tools.thrift.display(),
            hello["python"],
            hello["executable"],
            hello["thrift_version"],
            hello["thrift"],
            hello["fastbinary"],
        );
        Interop { py, module: module.to_owned(), counts: BTreeMap::new(), failures: Vec::new(), _generated: generated }
    }

    /// Sends a request (with the session's module unless it names one); a transport failure
    /// or an answer with `"ok": false` is an `Err` with the helper's explanation.
    pub fn call(&mut self, mut request: Value) -> Result<Value, String> {
        if request.get("module").is_none() {
            request["module"] = self.module.clone().into();
        }
        let answer = self.py.call(&request)?;
        if answer["ok"] == true {
            Ok(answer)
        } else {
            Err(answer["error"].as_str().unwrap_or("no error text").to_owned())
        }
    }

    /// Counts a passed check for the final tally.
    pub fn passed(&mut self, what: &'static str, protocol: &'static str) {
        *self.counts.entry((what, protocol)).or_default() += 1;
    }

    /// How two JSON forms of an IDL struct differ, if they do. Equal JSON is equal values;
    /// otherwise Python compares them by the IDL, where hash maps and sets decoded in
    /// another iteration order are still equal.
    fn difference(&mut self, type_name: &str, a: &Value, b: &Value) -> Option<String> {
        first_difference(a, b)?;
        self.call(json!({"op": "same", "type": type_name, "a": a, "b": b})).err()
    }

    /// Records a failure for the final report.
    pub fn fail(&mut self, case: &str, protocol: &str, what: &str, detail: impl std::fmt::Display) {
        self.failures.push(format!("{case} [{protocol}] {what}: {detail}"));
    }

    /// Runs `value`, of the IDL struct `type_name`, through every protocol both ways.
    pub fn value<T: Encode + DecodeOwned + ToJson>(&mut self, case: &str, type_name: &str, value: &T) {
        self.value_with(case, type_name, value, decode_json::<T>)
    }

    /// Like [`value`](Interop::value), with `decode` reading bytes into the Rust type and
    /// returning its JSON form: for types that borrow from their input, which cannot be
    /// named for every input lifetime in a bound.
    pub fn value_with<T: Encode + ToJson + ?Sized>(&mut self, case: &str, type_name: &str, value: &T, decode: Decoder) {
        let expect = value.to_json();
        let case = ValueCase { case, type_name, expect: &expect, decode };
        for protocol in VALUE_PROTOCOLS {
            match protocol.wire {
                Wire::Binary => self.value_in::<Binary, T>(&case, protocol, value),
                Wire::Compact => self.value_in::<Compact, T>(&case, protocol, value),
                Wire::Json => unreachable!("JSON is not among the value protocols"),
            }
        }
    }

    /// Runs `value` through Python's `TJSONProtocol` both ways: Python's JSON decodes to the
    /// value, ours equals Python's byte for byte (when Python's order is fixed and
    /// `same_bytes`: Python writes doubles as `%.17g` and pads base64 where Apache's Java
    /// and C++, whose bytes we write, do not), and Python reads ours.
    pub fn json_value_with<T: Encode + ToJson + ?Sized>(
        &mut self,
        case: &str,
        type_name: &str,
        value: &T,
        decode: Decoder,
        same_bytes: bool,
    ) {
        let expect = value.to_json();
        let proto = JSON.name;
        let encoded = self.call(json!({"op": "encode", "proto": proto, "type": type_name, "value": expect}));
        let (py_bytes, ordered) = match encoded.and_then(|a| hex_field(&a).map(|b| (b, a["ordered"] == true))) {
            Ok(x) => x,
            Err(e) => return self.fail(case, proto, "python encode", e),
        };
        match decode(Wire::Json, &py_bytes) {
            Ok(decoded) => match self.difference(type_name, &decoded, &expect) {
                None => self.passed("python→rust", proto),
                Some(d) => self.fail(case, proto, "rust decoded python's bytes to another value", d),
            },
            Err(e) => self.fail(case, proto, "rust failed to decode python's bytes", e),
        }
        let ours = thrift_core::json::to_vec(value);
        if ordered && same_bytes {
            match byte_difference(&ours, &py_bytes) {
                None => self.passed("identical bytes", proto),
                Some(d) => self.fail(case, proto, "rust's bytes differ from python's", d),
            }
        }
        match self.call(
            json!({"op": "check", "proto": proto, "type": type_name, "hex": hex::encode(&ours), "expect": expect}),
        ) {
            Ok(_) => self.passed("rust→python", proto),
            Err(e) => self.fail(case, proto, "python on rust's bytes", e),
        }
    }

    fn value_in<P: Protocol, T: Encode + ToJson + ?Sized>(
        &mut self,
        c: &ValueCase<'_>,
        protocol: PyProtocol,
        value: &T,
    ) {
        let ValueCase { case, type_name, expect, decode } = *c;
        let proto = protocol.name;
        let encoded = self.call(json!({"op": "encode", "proto": proto, "type": type_name, "value": expect}));
        let (py_bytes, ordered) = match encoded.and_then(|a| hex_field(&a).map(|b| (b, a["ordered"] == true))) {
            Ok(x) => x,
            Err(e) => return self.fail(case, proto, "python encode", e),
        };

        match decode(protocol.wire, &py_bytes) {
            Ok(decoded) => match self.difference(type_name, &decoded, expect) {
                None => self.passed("python→rust", proto),
                Some(d) => self.fail(case, proto, "rust decoded python's bytes to another value", d),
            },
            Err(e) => self.fail(case, proto, "rust failed to decode python's bytes", e),
        }

        let ours = thrift_core::to_vec::<P, T>(value);
        if ours.len() != value.encoded_len::<P>() {
            self.fail(
                case,
                proto,
                "encoded_len",
                format!("{} reported, {} written", value.encoded_len::<P>(), ours.len()),
            );
        }
        if ordered {
            match byte_difference(&ours, &py_bytes) {
                None => self.passed("identical bytes", proto),
                Some(d) => self.fail(case, proto, "rust's bytes differ from python's", d),
            }
        }
        match self.call(
            json!({"op": "check", "proto": proto, "type": type_name, "hex": hex::encode(&ours), "expect": expect}),
        ) {
            Ok(_) => self.passed("rust→python", proto),
            Err(e) => self.fail(case, proto, "python on rust's bytes", e),
        }
    }

    /// Runs `cases` values drawn from `strategy` with `seed`, each as [`value`](Interop::value)
    /// runs one (of the IDL struct `type_name`, every protocol, both ways). A failing value
    /// is shrunk to a small one, recorded as one failure with the seed that replays it, and
    /// ends the run of this strategy.
    pub fn generated<S>(&mut self, type_name: &str, strategy: S, cases: u32, seed: &Seed)
    where
        S: Strategy,
        S::Value: Encode + DecodeOwned + ToJson,
    {
        let config =
            Config { cases, failure_persistence: None, max_shrink_iters: MAX_SHRINK_ITERS, ..Config::default() };
        let mut runner = TestRunner::new_with_rng(config, seed.rng());
        let case = format!("generated {type_name}");
        let this = RefCell::new(&mut *self);
        let result = runner.run(&strategy, |value| {
            let mut t = this.borrow_mut();
            let before = t.failures.len();
            t.value(&case, type_name, &value);
            match t.failures.split_off(before) {
                failed if failed.is_empty() => Ok(()),
                failed => Err(TestCaseError::fail(failed.join("\n"))),
            }
        });
        match result {
            Ok(()) => {}
            Err(TestError::Fail(reason, value)) => self.failures.push(format!(
                "{case} with {seed}: {reason}\n  the smallest failing value: {}",
                crate::json::brief(&value.to_json())
            )),
            Err(TestError::Abort(reason)) => self.failures.push(format!("{case} with {seed} gave up: {reason}")),
        }
    }

    /// Has Python encode `value` (JSON, possibly something our type cannot hold, such as a
    /// missing required field) and checks that we reject the bytes with an error whose text
    /// contains `error`.
    pub fn rejected<T: DecodeOwned + ToJson>(&mut self, case: &str, type_name: &str, value: &Value, error: &str) {
        self.rejected_with(case, type_name, value, decode_json::<T>, error)
    }

    /// Like [`rejected`](Interop::rejected), decoding with `decode`.
    pub fn rejected_with(&mut self, case: &str, type_name: &str, value: &Value, decode: Decoder, error: &str) {
        for protocol in VALUE_PROTOCOLS {
            let proto = protocol.name;
            let encoded = self.call(json!({"op": "encode", "proto": proto, "type": type_name, "value": value}));
            let bytes = match encoded.and_then(|a| hex_field(&a)) {
                Ok(b) => b,
                Err(e) => {
                    self.fail(case, proto, "python encode", e);
                    continue;
                }
            };
            match decode(protocol.wire, &bytes) {
                Err(e) if e.to_string().contains(error) => self.passed("python→rust rejected", proto),
                Err(e) => self.fail(case, proto, "wrong error", format!("{e}, expected one mentioning {error:?}")),
                Ok(v) => self.fail(case, proto, "accepted", crate::json::brief(&v)),
            }
        }
    }

    /// Runs a message (envelope `name`/`kind`/`seqid`, then `body` as the IDL struct
    /// `type_name`) through every protocol both ways, and Python's old-style binary
    /// envelope one way.
    pub fn message<T: Encode + DecodeOwned + ToJson>(
        &mut self,
        case: &str,
        header: MessageHeader<'_>,
        type_name: &str,
        body: &T,
    ) {
        for protocol in VALUE_PROTOCOLS.into_iter().chain([NONSTRICT_BINARY]) {
            match protocol.wire {
                Wire::Binary => self.message_in::<Binary, T>(case, protocol, header, type_name, body),
                Wire::Compact => self.message_in::<Compact, T>(case, protocol, header, type_name, body),
                Wire::Json => unreachable!("JSON is not among the value protocols"),
            }
        }
    }

    fn message_in<P: Protocol, T: Encode + DecodeOwned + ToJson>(
        &mut self,
        case: &str,
        protocol: PyProtocol,
        header: MessageHeader<'_>,
        type_name: &str,
        body: &T,
    ) {
        let proto = protocol.name;
        let expect = body.to_json();
        let envelope = json!({"proto": proto, "name": header.name, "kind": header.kind as u8, "seqid": header.seqid, "type": type_name});
        let mut request = envelope.clone();
        request["op"] = "encode_message".into();
        request["value"] = expect.clone();
        let py_bytes = match self.call(request).and_then(|a| hex_field(&a)) {
            Ok(b) => b,
            Err(e) => return self.fail(case, proto, "python encode", e),
        };

        let mut r = Reader::new(&py_bytes);
        let decoded = P::read_message_begin(&mut r).and_then(|h| {
            let h = (h.name.to_owned(), h.kind, h.seqid);
            T::decode::<P>(&mut r).map(|b| (h, b))
        });
        match decoded {
            Ok(((name, kind, seqid), _))
                if (name.as_str(), kind, seqid) != (header.name, header.kind, header.seqid) =>
            {
                self.fail(case, proto, "rust read another envelope", format!("{name:?} {kind:?} {seqid}"))
            }
            Ok(_) if !r.is_empty() => self.fail(case, proto, "rust left bytes unread", r.remaining()),
            Ok((_, b)) => match first_difference(&b.to_json(), &expect) {
                None => self.passed("python→rust message", proto),
                Some(d) => self.fail(case, proto, "rust decoded another body", d),
            },
            Err(e) => self.fail(case, proto, "rust failed to decode python's message", e),
        }

        if protocol.name == NONSTRICT_BINARY.name {
            return; // we write strict envelopes only, as Apache's libraries do by default
        }
        let mut ours = Vec::new();
        P::write_message_begin(&mut ours, &header);
        body.encode::<P, _>(&mut ours);
        let reported = P::message_begin_len(&header) + body.encoded_len::<P>();
        if ours.len() != reported {
            self.fail(case, proto, "message length", format!("{reported} reported, {} written", ours.len()));
        }
        match byte_difference(&ours, &py_bytes) {
            None => self.passed("identical message bytes", proto),
            Some(d) => self.fail(case, proto, "rust's message differs from python's", d),
        }
        let mut request = envelope;
        request["op"] = "check_message".into();
        request["hex"] = hex::encode(&ours).into();
        request["expect"] = expect;
        match self.call(request) {
            Ok(_) => self.passed("rust→python message", proto),
            Err(e) => self.fail(case, proto, "python on rust's message", e),
        }
    }

    /// Prints the tally and panics listing every failure, if any.
    pub fn finish(self, test: &str) {
        let mut table = format!("{test}: passed checks per direction and protocol\n");
        for ((what, proto), n) in &self.counts {
            table.push_str(&format!("  {what:<26} {proto:<17} {n}\n"));
        }
        println!("{table}");
        if !self.failures.is_empty() {
            panic!("{test}: {} failures:\n{}", self.failures.len(), self.failures.join("\n"));
        }
        assert!(!self.counts.is_empty(), "{test}: no check ran");
    }
}

/// Message types by name, for case labels.
pub fn kind_name(kind: MessageType) -> &'static str {
    match kind {
        MessageType::Call => "call",
        MessageType::Reply => "reply",
        MessageType::Exception => "exception",
        MessageType::Oneway => "oneway",
    }
}

fn hex_field(answer: &Value) -> Result<Vec<u8>, String> {
    let text = answer["hex"].as_str().ok_or_else(|| format!("answer without hex: {answer}"))?;
    hex::decode(text).map_err(|e| format!("bad hex from the helper: {e}"))
}

/// Where two encodings first differ, with a little context, or `None` when equal.
pub fn byte_difference(ours: &[u8], theirs: &[u8]) -> Option<String> {
    if ours == theirs {
        return None;
    }
    let at = ours.iter().zip(theirs).position(|(a, b)| a != b).unwrap_or(ours.len().min(theirs.len()));
    let window = |b: &[u8]| hex::encode(&b[at.saturating_sub(4)..(at + 12).min(b.len())]);
    Some(format!(
        "first difference at byte {at} of {} (ours) / {} (python): ours ..{}.. python ..{}..",
        ours.len(),
        theirs.len(),
        window(ours),
        window(theirs)
    ))
}
