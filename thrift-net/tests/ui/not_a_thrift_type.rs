use thrift_net::service;

struct Plain {
    name: String,
}

#[service]
trait Greeter {
    async fn greet(&self, #[thrift(id = 1)] who: Plain) -> String;
}

fn main() {}
