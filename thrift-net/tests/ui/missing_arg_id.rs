use thrift_net::service;

#[service]
trait Greeter {
    async fn greet(&self, name: String) -> String;
}

fn main() {}
