use thrift_net::service;

#[service]
trait Greeter {
    async fn greet(#[thrift(id = 1)] name: String) -> String;
}

fn main() {}
