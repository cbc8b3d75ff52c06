use thrift_net::service;

#[service]
trait Greeter {
    async fn greet(&self, #[thrift(id = 1)] first: String, #[thrift(id = 1)] last: String) -> String;
}

fn main() {}
