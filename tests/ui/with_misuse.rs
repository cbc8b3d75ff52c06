use std::time::Duration;

use thrift_core::{ThriftStruct, ThriftUnion};

mod millis {
    use std::time::Duration;

    pub fn encode(value: &Duration) -> i64 {
        value.as_millis() as i64
    }

    pub fn decode(ms: i64) -> Result<Duration, String> {
        u64::try_from(ms).map(Duration::from_millis).map_err(|e| e.to_string())
    }

    // Disagrees with `encode` on the wire type.
    pub fn decode_i32(ms: i32) -> Result<Duration, String> {
        u64::try_from(ms).map(Duration::from_millis).map_err(|e| e.to_string())
    }
}

#[derive(ThriftStruct)]
struct Attributes {
    // Both `with` and the function it already names.
    #[thrift(id = 1, with = "millis", encode_with = "millis::encode")]
    connect: Duration,
    // Half of a pair.
    #[thrift(id = 2, encode_with = "millis::encode")]
    idle: Duration,
    // Not on the wire at all.
    #[thrift(skip, with = "millis")]
    cache: Duration,
}

#[derive(ThriftUnion)]
#[thrift(closed)]
enum Timeout {
    #[thrift(id = 1, with = "millis")]
    After(Duration),
}

#[derive(ThriftStruct)]
struct Disagreeing {
    // What `encode` writes (an i64) is not what `decode` reads (an i32).
    #[thrift(id = 1, encode_with = "millis::encode", decode_with = "millis::decode_i32")]
    connect: Duration,
}

fn main() {}
