//! Nesting is bounded by `Limits::max_depth` (64 by default, as in Apache Thrift): deeper
//! input is an `ErrorKind::DepthExceeded` error from decoding and from skipping, however deep
//! (10,000 levels here), without exhausting the stack; depth 64 itself is accepted.

mod common;

use bytes::BufMut;
use common::Fields;
use thrift_core::{
    skip, Binary, Compact, Decode, Encode, ErrorKind, Limits, Protocol, Reader, Result, StructDecoder, StructEncoder,
    StructSizer, TType, ThriftType,
};

const LIMIT: u16 = Limits::DEFAULT_MAX_DEPTH;

/// A recursive list type: `list<list<list<...>>>`, one level of nesting per `Node`.
#[derive(Debug, PartialEq, Default)]
struct Node(Vec<Node>);

impl Node {
    /// A chain `depth` lists deep (the innermost empty).
    fn chain(depth: usize) -> Node {
        let mut node = Node(vec![]);
        for _ in 1..depth {
            node = Node(vec![node]);
        }
        node
    }
}

impl ThriftType for Node {
    const TTYPE: TType = TType::List;
}

impl Encode for Node {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        self.0.encode::<P, B>(buf);
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.encoded_len::<P>()
    }
}

impl<'de> Decode<'de> for Node {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        Vec::<Node>::decode::<P>(r).map(Node)
    }
}

/// A recursive struct: `struct Chain { 1: optional Chain next }`, one level per struct.
#[derive(Debug, PartialEq, Default)]
struct Chain {
    next: Option<Box<Chain>>,
}

impl ThriftType for Chain {
    const TTYPE: TType = TType::Struct;
}

impl Encode for Chain {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        if let Some(next) = &self.next {
            s.field(1, next);
        }
        s.finish();
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        if let Some(next) = &self.next {
            s.field(1, next);
        }
        s.finish()
    }
}

impl<'de> Decode<'de> for Chain {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let mut next = None;
        let mut s = StructDecoder::<P>::begin(r)?;
        while let Some(field) = s.next_field(r)? {
            match field.id {
                1 => s.read(r, field, &mut next)?,
                _ => s.skip(r, field)?,
            }
        }
        Ok(Chain { next })
    }
}

/// `depth` nested lists written by hand: each outer level holds one list, the innermost none.
fn nested_lists<P: Protocol>(depth: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    for level in 1..=depth {
        P::write_list_begin(&mut buf, TType::List, usize::from(level < depth));
    }
    buf
}

/// `depth` nested structs written by hand: each holds the next as field 1.
fn nested_structs<P: Protocol>(depth: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    for _ in 1..depth {
        P::write_field_begin(&mut buf, TType::Struct, 1, 0);
    }
    buf.resize(buf.len() + depth, 0); // one stop per struct
    buf
}

/// `depth` nested maps written by hand: `map<byte, map<...>>`, one entry each, innermost empty.
fn nested_maps<P: Protocol>(depth: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    for level in 1..=depth {
        P::write_map_begin(&mut buf, TType::I8, TType::Map, usize::from(level < depth));
        if level < depth {
            P::write_i8(&mut buf, 0);
        }
    }
    buf
}

#[track_caller]
fn assert_depth_exceeded(res: Result<impl std::fmt::Debug>, what: &str) -> thrift_core::Error {
    let err = res.expect_err(what);
    assert_eq!(err.kind(), &ErrorKind::DepthExceeded(LIMIT), "{what}: {err}");
    assert_eq!(err.to_string().split(" at offset").next().unwrap(), "nesting deeper than the depth limit 64");
    err
}

fn lists_in<P: Protocol>(list_header_len: usize) {
    // The hand-written bytes are what encoding the same chain writes.
    assert_eq!(nested_lists::<P>(LIMIT as usize), thrift_core::to_vec::<P, _>(&Node::chain(LIMIT as usize)));

    // Depth 64 decodes and skips.
    let ok = nested_lists::<P>(LIMIT as usize);
    assert_eq!(thrift_core::from_slice::<P, Node>(&ok).unwrap(), Node::chain(LIMIT as usize));
    common::assert_skips::<P>(TType::List, &ok);

    // Depth 65 fails where the 65th list begins.
    let deep = nested_lists::<P>(LIMIT as usize + 1);
    let err = assert_depth_exceeded(thrift_core::from_slice::<P, Node>(&deep), "decode 65");
    assert_eq!(err.offset(), Some(LIMIT as usize * list_header_len));
    let err = assert_depth_exceeded(skip::<P>(&mut Reader::new(&deep), TType::List), "skip 65");
    assert_eq!(err.offset(), Some(LIMIT as usize * list_header_len));

    // 10,000 levels: an error, not a stack overflow.
    let hostile = nested_lists::<P>(10_000);
    assert_depth_exceeded(thrift_core::from_slice::<P, Node>(&hostile), "decode 10000");
    assert_depth_exceeded(skip::<P>(&mut Reader::new(&hostile), TType::List), "skip 10000");
}

#[test]
fn nested_lists_binary() {
    lists_in::<Binary>(5);
}

#[test]
fn nested_lists_compact() {
    lists_in::<Compact>(1);
}

fn structs_in<P: Protocol>() {
    let ok = nested_structs::<P>(LIMIT as usize);
    let chain = thrift_core::from_slice::<P, Chain>(&ok).unwrap();
    assert_eq!(thrift_core::to_vec::<P, _>(&chain), ok);
    common::assert_skips::<P>(TType::Struct, &ok);

    let deep = nested_structs::<P>(LIMIT as usize + 1);
    assert_depth_exceeded(thrift_core::from_slice::<P, Chain>(&deep), "decode 65");
    assert_depth_exceeded(skip::<P>(&mut Reader::new(&deep), TType::Struct), "skip 65");

    let hostile = nested_structs::<P>(10_000);
    assert_depth_exceeded(thrift_core::from_slice::<P, Chain>(&hostile), "decode 10000");
    assert_depth_exceeded(skip::<P>(&mut Reader::new(&hostile), TType::Struct), "skip 10000");
}

#[test]
fn nested_structs_binary() {
    structs_in::<Binary>();
}

#[test]
fn nested_structs_compact() {
    structs_in::<Compact>();
}

fn maps_in<P: Protocol>() {
    common::assert_skips::<P>(TType::Map, &nested_maps::<P>(LIMIT as usize));
    assert_depth_exceeded(skip::<P>(&mut Reader::new(&nested_maps::<P>(LIMIT as usize + 1)), TType::Map), "65");
    assert_depth_exceeded(skip::<P>(&mut Reader::new(&nested_maps::<P>(10_000)), TType::Map), "10000");
}

#[test]
fn nested_maps_skip() {
    maps_in::<Binary>();
    maps_in::<Compact>();
}

fn deep_unknown_field_in<P: Protocol>() {
    // An ApplicationException whose unknown field 9 holds 10,000 nested lists: skipping it
    // is bounded too, counting the exception's own level.
    let mut input = Vec::new();
    P::write_field_begin(&mut input, TType::List, 9, 0);
    input.extend(nested_lists::<P>(10_000));
    input.push(0);
    assert_depth_exceeded(thrift_core::from_slice::<P, thrift_core::ApplicationException>(&input), "exception");

    // 63 levels inside the exception's own level make 64: accepted.
    let mut input = Vec::new();
    P::write_field_begin(&mut input, TType::List, 9, 0);
    input.extend(nested_lists::<P>(LIMIT as usize - 1));
    input.push(0);
    thrift_core::from_slice::<P, thrift_core::ApplicationException>(&input).unwrap();
}

#[test]
fn deep_unknown_field() {
    deep_unknown_field_in::<Binary>();
    deep_unknown_field_in::<Compact>();
}

fn siblings_in<P: Protocol>() {
    // Depth is released when a value ends: many siblings each 63 deep inside one list stay
    // within the limit, and so do 1,000 structs in a row.
    let siblings = Node((0..100).map(|_| Node::chain(LIMIT as usize - 1)).collect());
    let bytes = thrift_core::to_vec::<P, _>(&siblings);
    assert_eq!(thrift_core::from_slice::<P, Node>(&bytes).unwrap(), siblings);
    common::assert_skips::<P>(TType::List, &bytes);

    let many = vec![Fields(vec![(1, vec![vec![1i32]])]); 1000];
    let bytes = thrift_core::to_vec::<P, _>(&many);
    assert_eq!(thrift_core::from_slice::<P, Vec<Fields<Vec<Vec<i32>>>>>(&bytes).unwrap(), many);
    common::assert_skips::<P>(TType::List, &bytes);

    // One reader, several values in a row: its depth is back at 0 after each.
    let mut r = Reader::new(&bytes);
    let _: Vec<Fields<Vec<Vec<i32>>>> = Decode::decode::<P>(&mut r).unwrap();
    assert_eq!(r.depth(), 0);
}

#[test]
fn siblings_do_not_accumulate_depth() {
    siblings_in::<Binary>();
    siblings_in::<Compact>();
}

#[test]
fn configured_depth_limit() {
    let v = vec![vec![vec![1i32]]];
    for bytes in [thrift_core::to_vec::<Binary, _>(&v), thrift_core::to_vec::<Compact, _>(&v)] {
        let binary = bytes[0] == 0x0f;
        let decode = |max_depth: u16| {
            let mut r = Reader::new(&bytes).with_limits(Limits { max_depth, ..Limits::default() });
            if binary {
                Vec::<Vec<Vec<i32>>>::decode::<Binary>(&mut r)
            } else {
                Vec::<Vec<Vec<i32>>>::decode::<Compact>(&mut r)
            }
        };
        assert_eq!(decode(3).unwrap(), v);
        assert_eq!(decode(2).unwrap_err().kind(), &ErrorKind::DepthExceeded(2));
        assert_eq!(decode(0).unwrap_err().kind(), &ErrorKind::DepthExceeded(0));
    }
    // Scalars need no depth at all.
    let mut r = Reader::new(&[0x02]).with_limits(Limits { max_depth: 0, ..Limits::default() });
    assert_eq!(i32::decode::<Compact>(&mut r).unwrap(), 1);
}
