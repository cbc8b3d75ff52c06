//! Zero-copy decoding, measured: a counting global allocator shows that `&str`, `&[u8]`,
//! `Cow<str>` and `Bytes` fields decode without allocating, while their owned counterparts
//! (`String`, `Vec<u8>`) allocate for every non-empty value.

// A global allocator can only be written with `unsafe`; the lint is denied workspace-wide.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::borrow::Cow;
use std::cell::Cell;

use bytes::{Bytes, BytesMut};
use thrift_core::{Binary, Compact, Protocol, ThriftStruct};

/// The system allocator, counting what the current thread allocates.
struct Counting;

thread_local! {
    // Per thread, so tests running in parallel do not see each other's allocations.
    // `const` initialisation needs no allocation and no lazy setup inside `alloc`.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

fn record(size: usize) {
    // `try_with`: the slots may already be gone while the thread is being torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    let _ = BYTES.try_with(|n| n.set(n.get() + size));
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only thread-locals.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What a closure allocated on this thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Allocated {
    count: usize,
    bytes: usize,
}

/// Runs `f`, returning its result and what it allocated on this thread.
fn measure<R>(f: impl FnOnce() -> R) -> (R, Allocated) {
    let (count, bytes) = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    let out = f();
    let allocated = Allocated { count: ALLOCATIONS.with(Cell::get) - count, bytes: BYTES.with(Cell::get) - bytes };
    (out, allocated)
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Header<'a> {
    #[thrift(id = 1)]
    key: &'a str,
    #[thrift(id = 2)]
    value: &'a [u8],
}

/// Only borrowed string and binary fields, `Bytes`, scalars and a nested borrowed struct.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Borrowed<'a> {
    #[thrift(id = 1)]
    id: i64,
    #[thrift(id = 2, required)]
    name: &'a str,
    #[thrift(id = 3)]
    payload: &'a [u8],
    #[thrift(id = 4)]
    shared: Bytes,
    #[thrift(id = 5)]
    note: Cow<'a, str>,
    #[thrift(id = 6)]
    comment: Option<&'a str>,
    #[thrift(id = 7, required)]
    header: Header<'a>,
    #[thrift(id = 8)]
    urgent: bool,
    #[thrift(id = 9)]
    ratio: f64,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct OwnedHeader {
    #[thrift(id = 1)]
    key: String,
    #[thrift(id = 2)]
    value: Vec<u8>,
}

/// The same wire shape with owned fields.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Owned {
    #[thrift(id = 1)]
    id: i64,
    #[thrift(id = 2, required)]
    name: String,
    #[thrift(id = 3)]
    payload: Vec<u8>,
    #[thrift(id = 4)]
    shared: Vec<u8>,
    #[thrift(id = 5)]
    note: String,
    #[thrift(id = 6)]
    comment: Option<String>,
    #[thrift(id = 7, required)]
    header: OwnedHeader,
    #[thrift(id = 8)]
    urgent: bool,
    #[thrift(id = 9)]
    ratio: f64,
}

fn sample() -> Borrowed<'static> {
    Borrowed {
        id: 42,
        name: "a name long enough to matter",
        payload: &[0xab; 100],
        shared: Bytes::from_static(&[0xcd; 200]),
        note: Cow::Borrowed("a note"),
        comment: Some("a comment"),
        header: Header { key: "content-type", value: b"application/x-thrift" },
        urgent: true,
        ratio: 0.5,
    }
}

/// The owned and borrowed fields hold this many string and binary bytes in all.
const PAYLOAD_BYTES: usize = 28 + 100 + 200 + 6 + 9 + 12 + 20;

/// The encoding as a transport hands it over: a frozen slice split off a receive buffer.
/// (Such `Bytes` are already shared, so slicing them is a refcount increment; a `Bytes`
/// made straight from a `Vec` allocates its shared header on its first clone.)
fn received<P: Protocol>(value: &Borrowed<'_>) -> Bytes {
    let mut buf = BytesMut::new();
    buf.extend_from_slice(&thrift_core::to_vec::<P, _>(value));
    buf.extend_from_slice(b"next message");
    let len = buf.len() - b"next message".len();
    buf.split_to(len).freeze()
}

fn borrowed_decodes_without_allocating<P: Protocol>() {
    let expected = sample();
    let input = received::<P>(&expected);
    let (decoded, allocated) = measure(|| thrift_core::from_bytes::<P, Borrowed<'_>>(&input));
    let decoded = decoded.unwrap();
    assert_eq!(decoded, expected);
    assert_eq!(allocated, Allocated { count: 0, bytes: 0 }, "{}", P::NAME);
    // The fields point into the input rather than at copies.
    let range = input.as_ptr_range();
    for field in [decoded.name.as_bytes(), decoded.payload, &decoded.shared, decoded.header.key.as_bytes()] {
        assert!(range.contains(&field.as_ptr()), "{}: a field was copied", P::NAME);
    }
}

fn owned_decoding_allocates<P: Protocol>() {
    let input = received::<P>(&sample());
    let (decoded, allocated) = measure(|| thrift_core::from_bytes::<P, Owned>(&input));
    let decoded = decoded.unwrap();
    assert_eq!(decoded.name, sample().name);
    // One allocation per non-empty string or binary, holding at least its bytes.
    assert!(allocated.count >= 7, "{}: {allocated:?}", P::NAME);
    assert!(allocated.bytes >= PAYLOAD_BYTES, "{}: {allocated:?}", P::NAME);
}

/// `Bytes` fields share the input only when the input is `Bytes`: from a plain slice they
/// are copied, which the counter sees.
fn bytes_field_copies_from_a_slice<P: Protocol>() {
    let input = received::<P>(&sample());
    let slice: &[u8] = &input;
    let (decoded, allocated) = measure(|| thrift_core::from_slice::<P, Borrowed<'_>>(slice));
    assert_eq!(decoded.unwrap().shared.len(), 200);
    assert!(allocated.count >= 1 && allocated.bytes >= 200, "{}: {allocated:?}", P::NAME);
}

#[test]
fn borrowed_fields_decode_without_allocating_in_binary() {
    borrowed_decodes_without_allocating::<Binary>();
}

#[test]
fn borrowed_fields_decode_without_allocating_in_compact() {
    borrowed_decodes_without_allocating::<Compact>();
}

#[test]
fn owned_fields_allocate_in_binary() {
    owned_decoding_allocates::<Binary>();
}

#[test]
fn owned_fields_allocate_in_compact() {
    owned_decoding_allocates::<Compact>();
}

#[test]
fn bytes_fields_copy_when_decoded_from_a_slice() {
    bytes_field_copies_from_a_slice::<Binary>();
    bytes_field_copies_from_a_slice::<Compact>();
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the measurement itself: if counting broke, the zero above would prove nothing.
    let (v, allocated) = measure(|| vec![0u8; 64]);
    assert_eq!(v.len(), 64);
    assert_eq!(allocated, Allocated { count: 1, bytes: 64 });
}
