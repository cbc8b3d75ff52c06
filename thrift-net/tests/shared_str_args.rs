//! A server's request arguments with `SharedStr` and `Bytes` fields decode from the message's
//! `Bytes` without allocating: long strings and binaries are slices of the frame, short
//! strings are inline (counted by a per-thread counting allocator).

use bytes::{Bytes, BytesMut};
use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Binary, Limits, MessageHeader, MessageType, SharedStr, ThriftStruct};
use thrift_net::codec::{Message, ProtocolKind};
use thrift_net::server::Request;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct PutArgs {
    #[thrift(id = 1)]
    key: SharedStr,
    #[thrift(id = 2)]
    value: SharedStr,
    #[thrift(id = 3)]
    blob: Bytes,
}

#[test]
fn decoded_args_share_the_frame() {
    let args = PutArgs {
        key: "user:42".into(),
        value: SharedStr::from("a value longer than the inline capacity".to_owned()),
        blob: Bytes::from_static(b"\x00\x01\x02"),
    };
    let header = MessageHeader { name: "put", kind: MessageType::Call, seqid: 1 };
    let mut encoded = Vec::new();
    Message::new(header, &args).encode::<Binary, _>(&mut encoded);
    // As a transport yields it: split off the connection's read buffer.
    let mut read_buf = BytesMut::with_capacity(1024);
    read_buf.extend_from_slice(&encoded);
    let frame = read_buf.split().freeze();
    let request = Request::parse(frame.clone(), ProtocolKind::Binary, false, Limits::default()).unwrap();
    let (decoded, allocated) = measure(|| request.decode_args::<PutArgs>().unwrap());
    assert_eq!(decoded, args);
    assert_eq!(allocated.count, 0, "{allocated:?}");
    let within = |p: *const u8| frame.as_ptr_range().contains(&p);
    assert!(within(decoded.value.as_ptr()) && within(decoded.blob.as_ptr()));
}
