use thrift_net::service;

#[service]
trait Greeter {
    fn greet(&self, #[thrift(id = 1)] name: String) -> String;
}

fn main() {}
