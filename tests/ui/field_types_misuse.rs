//! The shared and queue forms hold Thrift types only.
use std::collections::VecDeque;
use std::sync::Arc;

use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    queue: VecDeque<u32>,
    #[thrift(id = 2)]
    shared: Arc<[u16]>,
}

fn main() {}
