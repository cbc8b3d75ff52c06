//! A HelloService as a production team runs one: tower middleware on the server, a handler
//! that reads its request's context, the same service mounted in an axum app beside an
//! ordinary route, and a client over tower layers on a pool that finds its endpoints by
//! host name.
//!
//! `cargo run -p thrift-net --example hello_production` (it starts everything on 127.0.0.1,
//! makes a few calls, prints what they returned, and stops).

use std::time::Duration;

use thrift_core::ThriftStruct;
use thrift_net::http::{HttpClient, HttpService};
use thrift_net::server::Request;
use thrift_net::{service, CallError, ClientConfig, PoolConfig, ProtocolKind, Server, Transport};
use tower::limit::ConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower::timeout::TimeoutLayer;
use tower::ServiceBuilder;

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct HelloRequest {
    #[thrift(id = 1)]
    name: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct HelloResponse {
    #[thrift(id = 1)]
    message: String,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
#[thrift(exception)]
struct NoName {
    #[thrift(id = 1)]
    reason: String,
}

#[service(name = "HelloService")]
trait HelloService {
    /// Greets the caller, naming where the call came from.
    #[thrift(name = "sayHello", idempotent)]
    async fn say_hello(
        &self,
        #[thrift(context)] request: &Request,
        #[thrift(id = 1)] req: HelloRequest,
    ) -> Result<HelloResponse, NoName>;
}

struct Greeter;

impl HelloService for Greeter {
    async fn say_hello(&self, request: &Request, req: HelloRequest) -> Result<HelloResponse, NoName> {
        if req.name.is_empty() {
            return Err(NoName { reason: "who?".into() });
        }
        let over = format!("{:?} from {}", request.transport(), request.peer());
        Ok(HelloResponse { message: format!("hello, {} ({over})", req.name) })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The Thrift port: past 256 calls at once the server sheds load (LOADSHEDDING, which a
    // client may retry elsewhere); a call running past 2 s is answered TIMEOUT.
    let server = Server::builder()
        .layer(LoadShedLayer::new())
        .layer(ConcurrencyLimitLayer::new(256))
        .layer(TimeoutLayer::new(Duration::from_secs(2)))
        .build();
    let thrift = server.bind("127.0.0.1:0", hello_service::Server::new(Greeter)).await?;
    let port = thrift.local_addr().port();

    // The same service over HTTP, in an axum app beside its other routes.
    let web = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/thrift", web.local_addr()?);
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .route_service("/thrift", HttpService::new(hello_service::Server::new(Greeter)));
    let web = tokio::spawn(async move { axum::serve(web, app).await });

    // A pool over whatever `localhost` resolves to, looked up again every 30 s: endpoints
    // that appear are used, those that go drain. The typed client calls through tower's
    // layers over it: here no call waits past a second.
    let (pool, _discovery) =
        thrift_net::Pool::resolve([format!("localhost:{port}")], Duration::from_secs(30), PoolConfig::default())
            .await?;
    let client = hello_service::Client::new(ServiceBuilder::new().timeout(Duration::from_secs(1)).service(pool));
    let reply = client.say_hello(HelloRequest { name: "ada".into() }).await?;
    println!("pool: {}", reply.message);
    match client.say_hello(HelloRequest::default()).await {
        Err(CallError::Exception(NoName { reason })) => println!("pool: declared exception: {reason}"),
        other => println!("pool: unexpected: {other:?}"),
    }

    let over_http = hello_service::Client::new(HttpClient::new(
        url.parse()?,
        ClientConfig::new(Transport::Buffered, ProtocolKind::Compact),
    ));
    println!("http: {}", over_http.say_hello(HelloRequest { name: "bob".into() }).await?.message);
    println!("idempotent methods: {:?}", hello_service::IDEMPOTENT_METHODS);

    web.abort();
    thrift.shutdown(Duration::from_secs(5)).await;
    Ok(())
}
