//! A derive that fails reports its own mistake only: the type still implements the traits,
//! so code using it does not add "trait bound not satisfied" errors.
use thrift_core::{Binary, Decode, Encode, ThriftStruct};

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    name: String,
    count: i32,
}

#[derive(ThriftStruct)]
struct Envelope {
    #[thrift(id = 1, required)]
    request: Request,
    #[thrift(id = 2)]
    requests: Vec<Request>,
}

fn send<T: Encode>(value: &T) -> Vec<u8> {
    thrift_core::to_vec::<Binary, T>(value)
}

fn receive<'a, T: Decode<'a>>(bytes: &'a [u8]) -> Option<T> {
    thrift_core::from_slice::<Binary, T>(bytes).ok()
}

fn main() {
    let request = Request { name: String::new(), count: 0 };
    let bytes = send(&request);
    let _: Option<Request> = receive(&bytes);
    let _: Option<Envelope> = receive(&bytes);
}
