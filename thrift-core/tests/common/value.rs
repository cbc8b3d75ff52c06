//! A dynamic Thrift value of any shape, written and read with thrift-core's protocol
//! functions, and proptest strategies that generate whole messages of every shape.

use bytes::Bytes;
use proptest::collection::vec;
use proptest::prelude::*;
use thrift_core::{MessageHeader, MessageType, Protocol, Reader, TType};

/// A value of any Thrift type. Doubles are kept as bits so NaNs compare equal.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Double(u64),
    Str(Vec<u8>),
    Uuid([u8; 16]),
    Struct(Vec<(i16, Value)>),
    List(TType, Vec<Value>),
    Set(TType, Vec<Value>),
    Map(TType, TType, Vec<(Value, Value)>),
}

impl Value {
    pub fn ttype(&self) -> TType {
        match self {
            Value::Bool(_) => TType::Bool,
            Value::I8(_) => TType::I8,
            Value::I16(_) => TType::I16,
            Value::I32(_) => TType::I32,
            Value::I64(_) => TType::I64,
            Value::Double(_) => TType::Double,
            Value::Str(_) => TType::String,
            Value::Uuid(_) => TType::Uuid,
            Value::Struct(_) => TType::Struct,
            Value::List(..) => TType::List,
            Value::Set(..) => TType::Set,
            Value::Map(..) => TType::Map,
        }
    }

    /// The same value with the types of empty maps forgotten: compact writes none for them.
    pub fn normalized(&self) -> Value {
        match self {
            Value::Struct(fields) => Value::Struct(fields.iter().map(|(id, v)| (*id, v.normalized())).collect()),
            Value::List(t, vs) => Value::List(*t, vs.iter().map(Value::normalized).collect()),
            Value::Set(t, vs) => Value::Set(*t, vs.iter().map(Value::normalized).collect()),
            Value::Map(_, _, es) if es.is_empty() => Value::Map(TType::Stop, TType::Stop, Vec::new()),
            Value::Map(k, v, es) => {
                Value::Map(*k, *v, es.iter().map(|(a, b)| (a.normalized(), b.normalized())).collect())
            }
            other => other.clone(),
        }
    }
}

/// Writes `v` (no field header).
pub fn write<P: Protocol>(buf: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Bool(b) => P::write_bool(buf, *b),
        Value::I8(n) => P::write_i8(buf, *n),
        Value::I16(n) => P::write_i16(buf, *n),
        Value::I32(n) => P::write_i32(buf, *n),
        Value::I64(n) => P::write_i64(buf, *n),
        Value::Double(bits) => P::write_double(buf, f64::from_bits(*bits)),
        Value::Str(s) => P::write_binary(buf, s),
        Value::Uuid(u) => P::write_uuid(buf, u),
        Value::Struct(fields) => {
            let mut last = 0;
            for (id, f) in fields {
                match f {
                    Value::Bool(b) => P::write_bool_field(buf, *id, last, *b),
                    _ => {
                        P::write_field_begin(buf, f.ttype(), *id, last);
                        write::<P>(buf, f);
                    }
                }
                last = *id;
            }
            P::write_field_stop(buf);
        }
        Value::List(t, vs) | Value::Set(t, vs) => {
            P::write_list_begin(buf, *t, vs.len());
            vs.iter().for_each(|e| write::<P>(buf, e));
        }
        Value::Map(k, v, es) => {
            P::write_map_begin(buf, *k, *v, es.len());
            for (a, b) in es {
                write::<P>(buf, a);
                write::<P>(buf, b);
            }
        }
    }
}

/// Reads a value of wire type `t`, every type taken from the wire.
pub fn read<P: Protocol>(r: &mut Reader<'_>, t: TType) -> thrift_core::Result<Value> {
    Ok(match t {
        TType::Bool => Value::Bool(P::read_bool(r)?),
        TType::I8 => Value::I8(P::read_i8(r)?),
        TType::I16 => Value::I16(P::read_i16(r)?),
        TType::I32 => Value::I32(P::read_i32(r)?),
        TType::I64 => Value::I64(P::read_i64(r)?),
        TType::Double => Value::Double(P::read_double(r)?.to_bits()),
        TType::String => Value::Str(P::read_binary(r)?.to_vec()),
        TType::Uuid => Value::Uuid(P::read_uuid(r)?),
        TType::Struct => {
            let mut fields = Vec::new();
            let mut last = 0;
            while let Some(h) = P::read_field_begin(r, &mut last)? {
                fields.push((h.id, read::<P>(r, h.ttype)?));
            }
            Value::Struct(fields)
        }
        TType::List | TType::Set => {
            let h = P::read_list_begin(r)?;
            let elem = h.elem.map_err(|raw| r.error(thrift_core::ErrorKind::InvalidType(raw)))?;
            let len = r.check_container_len(h.len, 1)?;
            let vs = (0..len).map(|_| read::<P>(r, elem)).collect::<thrift_core::Result<Vec<_>>>()?;
            if t == TType::Set {
                Value::Set(elem, vs)
            } else {
                Value::List(elem, vs)
            }
        }
        TType::Map => {
            let h = P::read_map_begin(r)?;
            let bad = |raw| r.error(thrift_core::ErrorKind::InvalidType(raw));
            let (k, v) = (h.key.map_err(bad)?, h.value.map_err(bad)?);
            let len = r.check_container_len(h.len, 2)?;
            let mut es = Vec::with_capacity(len);
            for _ in 0..len {
                let a = read::<P>(r, k)?;
                es.push((a, read::<P>(r, v)?));
            }
            Value::Map(k, v, es)
        }
        TType::Stop | TType::Void => return Err(r.error(thrift_core::ErrorKind::InvalidType(t as u8))),
    })
}

/// One RPC message: envelope and a struct body.
#[derive(Clone, Debug, PartialEq)]
pub struct Msg {
    pub name: String,
    pub kind: MessageType,
    pub seqid: i32,
    /// A [`Value::Struct`].
    pub body: Value,
}

impl Msg {
    pub fn new(name: &str, body: Value) -> Msg {
        Msg { name: name.to_string(), kind: MessageType::Call, seqid: 1, body }
    }

    /// The message in protocol `P`, with the strict envelope for binary.
    pub fn encode<P: Protocol>(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        P::write_message_begin(&mut buf, &MessageHeader { name: &self.name, kind: self.kind, seqid: self.seqid });
        write::<P>(&mut buf, &self.body);
        buf
    }

    /// The message in the binary protocol with the old non-strict envelope.
    pub fn encode_non_strict(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        buf.extend_from_slice(&(self.name.len() as i32).to_be_bytes());
        buf.extend_from_slice(self.name.as_bytes());
        buf.push(self.kind as u8);
        buf.extend_from_slice(&self.seqid.to_be_bytes());
        write::<thrift_core::Binary>(&mut buf, &self.body);
        buf
    }

    /// Decodes a whole message as a transport yields it; the body must end it exactly.
    pub fn decode<P: Protocol>(bytes: &Bytes) -> thrift_core::Result<Msg> {
        let mut r = Reader::from_bytes(bytes);
        let h = P::read_message_begin(&mut r)?;
        let body = read::<P>(&mut r, TType::Struct)?;
        if !r.is_empty() {
            return Err(r.error(thrift_core::ErrorKind::TrailingBytes(r.remaining())));
        }
        Ok(Msg { name: h.name.to_string(), kind: h.kind, seqid: h.seqid, body })
    }

    pub fn normalized(&self) -> Msg {
        Msg { body: self.body.normalized(), ..self.clone() }
    }
}

/// A type tree to generate values of: containers must be homogeneous.
#[derive(Clone, Debug)]
pub enum Ty {
    Bool,
    I8,
    I16,
    I32,
    I64,
    Double,
    Str,
    Uuid,
    Struct(Vec<(i16, Ty)>),
    List(Box<Ty>),
    Set(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
}

impl Ty {
    fn ttype(&self) -> TType {
        match self {
            Ty::Bool => TType::Bool,
            Ty::I8 => TType::I8,
            Ty::I16 => TType::I16,
            Ty::I32 => TType::I32,
            Ty::I64 => TType::I64,
            Ty::Double => TType::Double,
            Ty::Str => TType::String,
            Ty::Uuid => TType::Uuid,
            Ty::Struct(_) => TType::Struct,
            Ty::List(_) => TType::List,
            Ty::Set(_) => TType::Set,
            Ty::Map(..) => TType::Map,
        }
    }
}

/// Field ids: mostly small and increasing-ish (compact short deltas), sometimes anything
/// (long form, negative).
fn field_id() -> impl Strategy<Value = i16> {
    prop_oneof![4 => 1i16..20, 1 => any::<i16>()]
}

fn struct_ty(inner: impl Strategy<Value = Ty>) -> impl Strategy<Value = Ty> {
    vec((field_id(), inner), 0..6).prop_map(Ty::Struct)
}

/// Any type, nested a few levels.
pub fn any_ty() -> impl Strategy<Value = Ty> {
    let leaf = prop_oneof![
        Just(Ty::Bool),
        Just(Ty::I8),
        Just(Ty::I16),
        Just(Ty::I32),
        Just(Ty::I64),
        Just(Ty::Double),
        Just(Ty::Str),
        Just(Ty::Uuid),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            struct_ty(inner.clone()),
            inner.clone().prop_map(|t| Ty::List(Box::new(t))),
            inner.clone().prop_map(|t| Ty::Set(Box::new(t))),
            (inner.clone(), inner).prop_map(|(k, v)| Ty::Map(Box::new(k), Box::new(v))),
        ]
    })
}

/// A value of type `ty`.
pub fn value_of(ty: &Ty) -> BoxedStrategy<Value> {
    value_sized(ty, true)
}

/// A value of type `ty`, with long strings sometimes when `long` (else all short, so that
/// most bytes are structure).
pub fn value_sized(ty: &Ty, long: bool) -> BoxedStrategy<Value> {
    match ty {
        Ty::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Ty::I8 => any::<i8>().prop_map(Value::I8).boxed(),
        Ty::I16 => any::<i16>().prop_map(Value::I16).boxed(),
        Ty::I32 => any::<i32>().prop_map(Value::I32).boxed(),
        Ty::I64 => any::<i64>().prop_map(Value::I64).boxed(),
        Ty::Double => any::<f64>().prop_map(|d| Value::Double(d.to_bits())).boxed(),
        Ty::Str if !long => vec(any::<u8>(), 0..4).prop_map(Value::Str).boxed(),
        Ty::Str => {
            prop_oneof![8 => vec(any::<u8>(), 0..24), 1 => vec(any::<u8>(), 100..3000)].prop_map(Value::Str).boxed()
        }
        Ty::Uuid => any::<[u8; 16]>().prop_map(Value::Uuid).boxed(),
        Ty::Struct(fields) => fields
            .iter()
            .map(|(id, t)| {
                let id = *id;
                value_sized(t, long).prop_map(move |v| (id, v))
            })
            .collect::<Vec<_>>()
            .prop_map(Value::Struct)
            .boxed(),
        Ty::List(t) => {
            let tt = t.ttype();
            vec(value_sized(t, long), 0..20).prop_map(move |vs| Value::List(tt, vs)).boxed()
        }
        Ty::Set(t) => {
            let tt = t.ttype();
            vec(value_sized(t, long), 0..6).prop_map(move |vs| Value::Set(tt, vs)).boxed()
        }
        Ty::Map(k, v) => {
            let (kt, vt) = (k.ttype(), v.ttype());
            vec((value_sized(k, long), value_sized(v, long)), 0..6).prop_map(move |es| Value::Map(kt, vt, es)).boxed()
        }
    }
}

/// A struct body of any shape.
pub fn any_body() -> impl Strategy<Value = Value> {
    struct_ty(any_ty()).prop_flat_map(|ty| value_of(&ty))
}

/// A message whose bytes are mostly structure (short strings, short name).
pub fn structural_msg() -> impl Strategy<Value = Msg> {
    let body = struct_ty(any_ty()).prop_flat_map(|ty| value_sized(&ty, false));
    ("[a-z]{1,3}", any::<i32>(), body).prop_map(|(name, seqid, body)| Msg {
        name,
        kind: MessageType::Call,
        seqid,
        body,
    })
}

/// The bytes of a [`structural_msg`] in binary or compact (`true`), with `min_edits` to 3
/// bytes overwritten and perhaps cut short: what a corrupted stream holds.
pub fn corrupted_wire(min_edits: usize) -> impl Strategy<Value = (Vec<u8>, bool)> {
    let edits = vec((any::<prop::sample::Index>(), any::<u8>()), min_edits..4);
    let cut_at = proptest::option::of(any::<prop::sample::Index>());
    (structural_msg(), edits, cut_at, any::<bool>()).prop_map(|(msg, edits, cut_at, compact)| {
        let mut wire = if compact { msg.encode::<thrift_core::Compact>() } else { msg.encode::<thrift_core::Binary>() };
        for (at, byte) in edits {
            let i = at.index(wire.len());
            wire[i] = byte;
        }
        if let Some(at) = cut_at {
            wire.truncate(at.index(wire.len() + 1));
        }
        (wire, compact)
    })
}

/// A whole message: a method name, any message type and sequence id, any struct body.
pub fn any_msg() -> impl Strategy<Value = Msg> {
    let kind = prop_oneof![
        Just(MessageType::Call),
        Just(MessageType::Reply),
        Just(MessageType::Exception),
        Just(MessageType::Oneway)
    ];
    ("[a-zA-Z_][a-zA-Z0-9_:]{0,24}", kind, any::<i32>(), any_body()).prop_map(|(name, kind, seqid, body)| Msg {
        name,
        kind,
        seqid,
        body,
    })
}

/// Chunk sizes to cut a stream into: sometimes single bytes, sometimes a few, sometimes big.
pub fn any_chunks() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        vec(1usize..=3, 1..16),
        vec(1usize..=64, 1..16),
        vec(1usize..=4096, 1..8),
        vec(prop_oneof![1usize..=2, 100usize..=2000], 1..16),
    ]
}

/// `bytes` cut into consecutive pieces of the given sizes, repeating them as needed.
pub fn cut<'a>(bytes: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    for &size in sizes.iter().cycle() {
        if at >= bytes.len() {
            break;
        }
        let end = (at + size.max(1)).min(bytes.len());
        out.push(&bytes[at..end]);
        at = end;
    }
    out
}
