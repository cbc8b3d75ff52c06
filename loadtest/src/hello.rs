//! HelloService as the seed's Java team wrote it, in Rust: the same IDL, the same handler.
//!
//! ```thrift
//! struct HelloRequest { 1: string name; 2: string message; }
//! struct HelloResponse { 1: string name; 2: i32 age; 3: string message; 4: i64 timestamp; }
//! service HelloService { HelloResponse sayHello(1: HelloRequest req); }
//! ```
//!
//! Every peer server in `benches/rpc` implements the same handler, so they all do the same
//! work per call: echo the name, age 19, `hello, NAME: MESSAGE`, the time in milliseconds.
//!
//! The strings are [`SharedStr`], what `thrift-build` generates for this IDL's `string`s:
//! owned, but decoded without a copy (held inline when short, else a slice of the message).

use std::time::{SystemTime, UNIX_EPOCH};

use thrift_core::{SharedStr, ThriftStruct};
use thrift_net::service;

/// The call's argument.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct HelloRequest {
    /// Who is greeted.
    #[thrift(id = 1)]
    pub name: SharedStr,
    /// The payload: a few bytes, or about 1 KB for the large payload.
    #[thrift(id = 2)]
    pub message: SharedStr,
}

/// The reply.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct HelloResponse {
    /// The request's name.
    #[thrift(id = 1)]
    pub name: SharedStr,
    /// Always 19, as in the seed.
    #[thrift(id = 2)]
    pub age: i32,
    /// `hello, NAME: MESSAGE`, so a large request gets a large reply.
    #[thrift(id = 3)]
    pub message: SharedStr,
    /// Milliseconds since the Unix epoch when the server answered.
    #[thrift(id = 4)]
    pub timestamp: i64,
}

/// The seed's service.
#[service(name = "HelloService")]
pub trait HelloService {
    /// Greets the caller.
    #[thrift(name = "sayHello")]
    async fn say_hello(&self, #[thrift(id = 1)] req: HelloRequest) -> HelloResponse;
}

/// The handler, the same in every peer.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greeter;

impl HelloService for Greeter {
    async fn say_hello(&self, req: HelloRequest) -> HelloResponse {
        answer(req)
    }
}

/// The reply every server gives to `req`.
pub fn answer(req: HelloRequest) -> HelloResponse {
    let message = reply_message(&req.name, &req.message);
    HelloResponse { name: req.name, age: 19, message: message.into(), timestamp: now_millis() }
}

/// `hello, NAME: MESSAGE`.
pub fn reply_message(name: &str, message: &str) -> String {
    let mut out = String::with_capacity(9 + name.len() + message.len());
    out.push_str("hello, ");
    out.push_str(name);
    out.push_str(": ");
    out.push_str(message);
    out
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_millis() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Whether `reply` is the answer to `req` (the timestamp aside): a load test that counts
/// wrong replies as successes measures nothing.
pub fn is_answer(req: &HelloRequest, reply: &HelloResponse) -> bool {
    reply.age == 19
        && reply.name == req.name
        && reply.message.len() == 9 + req.name.len() + req.message.len()
        && reply.message.starts_with("hello, ")
        && reply.message.ends_with(req.message.as_str())
}
