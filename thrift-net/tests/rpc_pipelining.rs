//! Many concurrent calls over one connection, answered out of order, each reply reaching
//! its own caller.

#[path = "common/hello.rs"]
mod hello;

use std::collections::HashSet;

use hello::*;
use thrift_net::{ClientConfig, Server};
use tokio::task::JoinSet;

const CALLS: usize = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_on_one_connection_each_get_their_own_reply() {
    let (handle, greeter) = start_greeter(Server::new()).await;
    for (transport, protocol) in wires() {
        let wire = format!("{transport:?} {protocol:?}");
        let client = hello_client(&handle, ClientConfig::new(transport, protocol)).await;
        let mut calls = JoinSet::new();
        for i in 0..CALLS {
            let client = client.clone();
            // Delays spread over 0..=29 ms in a scrambled order, so replies finish out of order.
            let ms = ((i * 7919) % 30) as i32;
            calls.spawn(async move { (i, client.slow_hello(format!("caller-{i}"), ms).await) });
        }
        let mut answered = HashSet::new();
        while let Some(joined) = within(calls.join_next()).await {
            let (i, reply) = joined.expect("the caller task");
            let reply = reply.unwrap_or_else(|e| panic!("{wire}: call {i} failed: {e}"));
            assert_eq!(reply, format!("hello, caller-{i}"), "{wire}: call {i} got another call's reply");
            assert!(answered.insert(i), "{wire}: call {i} answered twice");
        }
        assert_eq!(answered.len(), CALLS, "{wire}");
        assert_eq!(client.channel().in_flight(), 0, "{wire}");
        assert!(!client.channel().is_closed(), "{wire}");
    }
    assert_eq!(handle.metrics().connections_accepted, 4, "one connection per wire");
    assert!(greeter.most_running() > 1, "the server handled the calls of one connection concurrently");
}
