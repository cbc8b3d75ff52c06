//! volo-thrift (CloudWeGo): its server and its client as its users get them by default
//! (TTHeader over framed binary; a pool of ping-pong connections), and in multiplex mode
//! (many calls at once on each connection, on both sides).

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use metainfo::Forward;
use thrift_loadtest::hello::{now_millis, reply_message};
use thrift_loadtest::{drive, Failure, Load, Stats, Timing};

use crate::LoadArgs;

#[allow(unsafe_code, missing_docs, clippy::all, unreachable_pub)]
mod generated {
    // volo-build's output for idl/hello.thrift; its codec uses pilota's unsafe fast paths.
    include!(concat!(env!("OUT_DIR"), "/volo_gen.rs"));
}

use generated::volo_gen::hello::{
    HelloRequest, HelloResponse, HelloService, HelloServiceClient, HelloServiceClientBuilder, HelloServiceServer,
};

/// The handler every peer implements, in volo's types.
#[derive(Clone, Copy)]
struct Greeter;

/// The persistent metainfo key whose value, when a caller sends one (as the TTHeader header
/// `RPC_PERSIST_CALLER`), the reply names instead of the request's name: how the TTHeader
/// test sees that volo's handler read a header our client sent.
pub const CALLER_KEY: &str = "CALLER";

impl HelloService for Greeter {
    async fn say_hello(&self, req: HelloRequest) -> Result<HelloResponse, volo_thrift::ServerError> {
        let name = req.name.unwrap_or_default();
        let message = reply_message(&name, req.message.as_deref().unwrap_or_default());
        let caller = metainfo::METAINFO.try_with(|m| m.borrow().get_persistent(CALLER_KEY)).ok().flatten();
        Ok(HelloResponse {
            name: Some(caller.unwrap_or(name)),
            age: Some(19),
            message: Some(message.into()),
            timestamp: Some(now_millis()),
        })
    }
}

/// Serves HelloService with volo's server until the process is killed.
///
/// # Errors
/// When the server fails to start.
pub async fn serve(addr: SocketAddr, multiplex: bool) -> io::Result<()> {
    HelloServiceServer::new(Greeter)
        .multiplex(multiplex)
        .run(volo::net::Address::from(addr))
        .await
        .map_err(|e| io::Error::other(format!("volo server: {e}")))
}

struct VoloLoad {
    client: HelloServiceClient,
    request: HelloRequest,
    expected_len: usize,
}

impl Load for VoloLoad {
    type Session = ();

    async fn session(&self) -> Result<(), Failure> {
        Ok(())
    }

    async fn call(&self, _: &mut ()) -> Result<(), Failure> {
        match self.client.say_hello(self.request.clone()).await {
            Ok(reply)
                if reply.age == Some(19) && reply.message.as_ref().map(|m| m.len()) == Some(self.expected_len) =>
            {
                Ok(())
            }
            Ok(_) => Err(Failure::new("wrong reply")),
            Err(e) => Err(Failure::new(label(&e))),
        }
    }
}

fn label(e: &volo_thrift::ClientError) -> String {
    let text = e.to_string();
    if text.contains("timeout") || text.contains("Timeout") {
        "timeout".into()
    } else {
        format!("volo: {}", text.chars().take(60).collect::<String>())
    }
}

/// Loads `addr` with volo's client.
pub async fn load(addr: SocketAddr, multiplex: bool, args: &LoadArgs) -> Stats {
    let client = HelloServiceClientBuilder::new("hello")
        .address(addr)
        .multiplex(multiplex)
        .rpc_timeout(Some(args.call_timeout()))
        .connect_timeout(Some(args.call_timeout()))
        .build();
    let message = args.payload().message();
    let expected_len = reply_message("Jonny", &message).len();
    let request = HelloRequest { name: Some("Jonny".into()), message: Some(message.into()) };
    let load = Arc::new(VoloLoad { client, request, expected_len });
    let timing = Timing { duration: args.duration(), warmup: args.warmup(), call_bound: args.call_timeout() };
    drive(load, args.concurrency, timing, Default::default()).await.0
}
