//! Names Apache's IDL compiler reserves would export IDL that does not parse.
use thrift_core::{ThriftEnum, ThriftStruct};

#[derive(ThriftStruct)]
struct Request {
    #[thrift(id = 1)]
    list: Vec<i32>,
    #[thrift(id = 2, name = "required")]
    needed: bool,
    // Renamed: fine.
    #[thrift(id = 3, name = "items")]
    map: Vec<i32>,
}

#[derive(ThriftEnum, Clone, Copy)]
#[thrift(closed, name = "struct")]
enum Kind {
    #[thrift(name = "void")]
    Nothing = 0,
}

fn main() {}
