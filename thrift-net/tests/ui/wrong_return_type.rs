use thrift_net::service;

#[service]
trait Greeter {
    async fn greet(&self, #[thrift(id = 1)] name: String) -> &'static str;

    async fn count(&self) -> u32;

    #[thrift(oneway)]
    async fn log(&self, #[thrift(id = 1)] line: String) -> i32;
}

fn main() {}
