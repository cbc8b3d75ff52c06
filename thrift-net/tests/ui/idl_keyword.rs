//! A method or argument named like an IDL keyword would export IDL Apache cannot parse.
use thrift_net::service;

#[service]
trait Catalog {
    async fn list(&self, #[thrift(id = 1)] map: String) -> i32;

    #[thrift(name = "listAll")]
    async fn list_all(&self, #[thrift(id = 1, name = "filter")] set: String) -> i32;
}

fn main() {}
