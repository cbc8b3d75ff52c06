//! The seed corpora: valid encodings of the shapes, laid out as each target reads its input.
//!
//! | target | input |
//! | --- | --- |
//! | `decode_binary`, `decode_compact` | a [`Rich`] in that protocol |
//! | `roundtrip` | a selector byte ([`Selector`]), then a value of the selected shape |
//! | `skip` | a selector byte (protocol, and the type to skip: [`SKIP_TYPES`]), then a value |
//! | `envelope` | a message's first bytes, bare or framed, in any protocol |
//! | `buffered`, `framed` | a selector byte, a 4-byte chunking seed, then a stream of messages ([`Args`] bodies), bare or framed |

use thrift_core::{Binary, Compact, Encode, MessageHeader, Protocol, TType};

use crate::shapes::{headers, samples, Args, Point, Rich, Shape, Tree};

/// Every target, by name.
pub const TARGETS: [&str; 8] =
    ["decode_binary", "decode_compact", "roundtrip", "skip", "envelope", "buffered", "framed", "json"];

/// The types the `skip` target picks from (STOP and VOID included: they must be refused).
pub const SKIP_TYPES: [TType; 14] = [
    TType::Stop,
    TType::Void,
    TType::Bool,
    TType::I8,
    TType::Double,
    TType::I16,
    TType::I32,
    TType::I64,
    TType::String,
    TType::Struct,
    TType::Map,
    TType::Set,
    TType::List,
    TType::Uuid,
];

/// The first byte of a `roundtrip`, `skip`, `buffered` or `framed` input: bit 0 picks the
/// protocol (0 binary, 1 compact), the other bits pick what to read.
#[derive(Clone, Copy, Debug)]
pub struct Selector(pub u8);

impl Selector {
    /// Whether the input is in the compact protocol.
    pub fn compact(self) -> bool {
        self.0 & 1 == 1
    }

    /// The rest of the byte.
    pub fn rest(self) -> u8 {
        self.0 >> 1
    }
}

/// Splits a streaming target's input into its selector, its chunking seed and the stream.
pub fn stream_input(data: &[u8]) -> Option<(Selector, u32, &[u8])> {
    let (&sel, rest) = data.split_first()?;
    let seed = rest.get(..4)?;
    Some((Selector(sel), u32::from_le_bytes([seed[0], seed[1], seed[2], seed[3]]), &rest[4..]))
}

fn with_selector(sel: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![sel];
    out.extend_from_slice(body);
    out
}

fn enc<P: Protocol, T: Encode + ?Sized>(v: &T) -> Vec<u8> {
    thrift_core::to_vec::<P, T>(v)
}

fn message<P: Protocol>(header: &MessageHeader<'_>, args: &Args<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    P::write_message_begin(&mut out, header);
    args.encode::<P, _>(&mut out);
    out
}

fn framed(msg: &[u8]) -> Vec<u8> {
    let mut out = (msg.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(msg);
    out
}

/// Old-style binary envelope: name length, name, type byte, seqid.
fn non_strict(header: &MessageHeader<'_>) -> Vec<u8> {
    let mut out = (header.name.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(header.name.as_bytes());
    out.push(header.kind as u8);
    out.extend_from_slice(&header.seqid.to_be_bytes());
    out
}

fn trees() -> Vec<Tree> {
    let deep = (0..20).fold(Tree::default(), |t, i| Tree { value: i, children: vec![t], next: None });
    vec![Tree::default(), samples()[0].tree.as_deref().cloned().unwrap_or_default(), deep]
}

fn shape_lists() -> Vec<Vec<Shape>> {
    vec![samples()[0].shapes.clone(), vec![]]
}

/// Values of every shape, encoded in `P`, each with the type to skip it as and its
/// `roundtrip` shape number.
fn values<P: Protocol>() -> Vec<(TType, u8, Vec<u8>)> {
    let mut out = Vec::new();
    for rich in samples() {
        out.push((TType::Struct, 0, enc::<P, _>(&rich)));
    }
    for tree in trees() {
        out.push((TType::Struct, 1, enc::<P, _>(&tree)));
    }
    for rich in samples() {
        let args = Args { rich: Some(rich), tree: None };
        out.push((TType::Struct, 2, enc::<P, _>(&args)));
    }
    for shapes in shape_lists() {
        out.push((TType::List, 3, enc::<P, _>(&shapes)));
    }
    let full = &samples()[0];
    out.push((TType::Map, 255, enc::<P, _>(&full.regions)));
    out.push((TType::Set, 255, enc::<P, _>(&full.point_set)));
    out.push((TType::String, 255, enc::<P, _>(full.name.as_str())));
    out.push((TType::I64, 255, enc::<P, _>(&full.long)));
    out.push((TType::Bool, 255, enc::<P, _>(&true)));
    out.push((TType::List, 255, enc::<P, _>(&full.flags)));
    out.push((
        TType::Set,
        255,
        enc::<P, _>(&[Point::default()].into_iter().collect::<std::collections::BTreeSet<_>>()),
    ));
    out
}

/// Messages with [`Args`] bodies in `P`, one per sample and header.
fn messages<P: Protocol>() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (rich, header) in samples().into_iter().zip(headers().iter().cycle()) {
        out.push(message::<P>(header, &Args { rich: Some(rich), tree: None }));
    }
    for (tree, header) in trees().into_iter().zip(headers().iter()) {
        out.push(message::<P>(header, &Args { rich: None, tree: Some(tree) }));
    }
    out
}

/// A chunking seed for each of the four chunk sizes.
const SEEDS: [u32; 4] = [0x1234_5670, 0x0bad_f00d, 0x7e57_0002, 0xcafe_0003];

fn stream_inputs(sel: u8, stream: &[u8]) -> Vec<Vec<u8>> {
    SEEDS
        .iter()
        .map(|seed| {
            let mut out = vec![sel];
            out.extend_from_slice(&seed.to_le_bytes());
            out.extend_from_slice(stream);
            out
        })
        .collect()
}

/// The seed inputs of `target`.
pub fn corpus(target: &str) -> Vec<Vec<u8>> {
    match target {
        "decode_binary" => samples().iter().map(enc::<Binary, Rich<'_>>).collect(),
        "decode_compact" => samples().iter().map(enc::<Compact, Rich<'_>>).collect(),
        "roundtrip" => {
            let binary =
                values::<Binary>().into_iter().filter(|v| v.1 != 255).map(|(_, s, v)| with_selector(s << 1, &v));
            let compact =
                values::<Compact>().into_iter().filter(|v| v.1 != 255).map(|(_, s, v)| with_selector(s << 1 | 1, &v));
            binary.chain(compact).collect()
        }
        "skip" => {
            let index = |t: TType| SKIP_TYPES.iter().position(|&s| s == t).unwrap_or(0) as u8;
            let binary = values::<Binary>().into_iter().map(|(t, _, v)| with_selector(index(t) << 1, &v));
            let compact = values::<Compact>().into_iter().map(|(t, _, v)| with_selector(index(t) << 1 | 1, &v));
            binary.chain(compact).collect()
        }
        "envelope" => {
            let mut out = Vec::new();
            for header in headers() {
                let mut b = Vec::new();
                Binary::write_message_begin(&mut b, &header);
                let mut c = Vec::new();
                Compact::write_message_begin(&mut c, &header);
                for mut env in [b, c, non_strict(&header)] {
                    env.push(0);
                    out.push(framed(&env));
                    out.push(env);
                }
            }
            out
        }
        "buffered" => {
            let binary: Vec<u8> = messages::<Binary>().concat();
            let compact: Vec<u8> = messages::<Compact>().concat();
            let mut out = stream_inputs(0, &binary);
            out.extend(stream_inputs(1, &compact));
            out
        }
        "framed" => {
            let binary: Vec<u8> = messages::<Binary>().iter().map(|m| framed(m)).collect::<Vec<_>>().concat();
            let compact: Vec<u8> = messages::<Compact>().iter().map(|m| framed(m)).collect::<Vec<_>>().concat();
            let mut out = stream_inputs(0, &binary);
            out.extend(stream_inputs(1, &compact));
            // Bit 1 set: a small maximum frame size.
            out.extend(stream_inputs(2, &binary));
            out
        }
        "json" => {
            let mut out: Vec<Vec<u8>> = samples().iter().map(thrift_core::json::to_vec).collect();
            for (tree, header) in trees().into_iter().zip(headers().iter()) {
                let mut m = Vec::new();
                thrift_core::json::write_message(header, &tree, &mut m);
                out.push(m);
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Decodes every seed of every target as it is meant to be read, so a seed generator that
/// drifts from the targets' input layout is noticed.
pub fn check_seeds() -> Result<usize, String> {
    let mut n = 0;
    for v in corpus("decode_binary") {
        thrift_core::from_slice::<Binary, Rich<'_>>(&v).map_err(|e| format!("decode_binary seed: {e}"))?;
        n += 1;
    }
    for v in corpus("decode_compact") {
        thrift_core::from_slice::<Compact, Rich<'_>>(&v).map_err(|e| format!("decode_compact seed: {e}"))?;
        n += 1;
    }
    for v in corpus("json") {
        if v.first() != Some(&b'[') {
            let binary = thrift_core::json::to_binary::<Rich<'static>>(&v, &thrift_core::Limits::default())
                .map_err(|e| format!("json seed: {e}"))?;
            thrift_core::from_slice::<Binary, Rich<'_>>(&binary).map_err(|e| format!("json seed: {e}"))?;
        }
        n += 1;
    }
    for v in corpus("framed").iter().chain(&corpus("buffered")) {
        stream_input(v).ok_or("stream seed too short")?;
        n += 1;
    }
    Ok(n)
}
