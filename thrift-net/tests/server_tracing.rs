//! What the server tells `tracing`: a span per request with its method, seqid and peer; an
//! error for a panicking handler; nothing above debug for peers that come and go.

#[path = "common/hello.rs"]
mod hello;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hello::*;
use thrift_core::MessageType;
use thrift_net::{ProtocolKind, Server};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// A span or event as recorded: its name (the event's message) and its fields.
#[derive(Clone, Debug)]
struct Seen {
    name: String,
    level: Level,
    fields: Vec<(String, String)>,
}

impl Seen {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

impl Visit for Seen {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.fields.push((field.name().to_string(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.fields.push((field.name().to_string(), value.to_string()));
    }
}

/// Records every span and event, at every level.
#[derive(Clone, Default)]
struct Capture {
    spans: Arc<Mutex<Vec<Seen>>>,
    events: Arc<Mutex<Vec<Seen>>>,
    next_id: Arc<AtomicU64>,
}

impl Capture {
    fn events_above_debug(&self) -> Vec<Seen> {
        self.events.lock().unwrap().iter().filter(|e| e.level < Level::DEBUG).cloned().collect()
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut seen =
            Seen { name: span.metadata().name().to_string(), level: *span.metadata().level(), fields: vec![] };
        span.record(&mut seen);
        self.spans.lock().unwrap().push(seen);
        Id::from_u64(self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut seen = Seen { name: String::new(), level: *event.metadata().level(), fields: vec![] };
        event.record(&mut seen);
        seen.name = seen.field("message").unwrap_or_default().to_string();
        self.events.lock().unwrap().push(seen);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

// One test, on the current thread: the subscriber is this thread's default, and every
// server task runs on this thread.
#[tokio::test]
async fn spans_carry_method_seqid_and_peer_and_quiet_peers_log_nothing_above_debug() {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(capture.clone());
    let handle = start(Server::new()).await;

    // Peers that connect and leave, or send half a message and leave.
    for partial in [&[][..], &[0x80, 0x01][..], &[0, 0, 0, 40, 0x80][..]] {
        let mut conn = RawConnection::connect(&handle, ProtocolKind::Binary, false).await;
        conn.send(partial).await;
        drop(conn);
    }
    eventually("the connections closed", || {
        handle.metrics().connections_accepted == 3 && handle.metrics().connections == 0
    })
    .await;
    assert_eq!(capture.events_above_debug().len(), 0, "{:?}", capture.events_above_debug());

    // A call: its span names the method, the seqid and the peer.
    let mut conn = RawConnection::connect(&handle, ProtocolKind::Compact, true).await;
    let peer = conn.stream.local_addr().unwrap().to_string();
    let args = hello_service::SayHelloArgs { req: HelloRequest { name: "traced".into() } };
    conn.send(&encode_call(ProtocolKind::Compact, true, "sayHello", MessageType::Call, 31, &args)).await;
    assert_eq!(conn.read_reply().await.seqid(), 31);
    let spans = capture.spans.lock().unwrap().clone();
    let span = spans.iter().find(|s| s.name == "thrift_request").expect("a request span");
    assert_eq!(span.field("method"), Some("sayHello"));
    assert_eq!(span.field("seqid"), Some("31"));
    assert_eq!(span.field("peer"), Some(peer.as_str()));

    // A panicking handler is an error worth logging.
    conn.send(&encode_call(
        ProtocolKind::Compact,
        true,
        "explode",
        MessageType::Call,
        32,
        &hello_service::ExplodeArgs {},
    ))
    .await;
    assert_eq!(conn.read_reply().await.kind(), MessageType::Exception);
    let loud = capture.events_above_debug();
    assert_eq!(loud.len(), 1, "{loud:?}");
    assert_eq!(loud[0].level, Level::ERROR);
    assert!(loud[0].field("panic").is_some_and(|p| p.contains("always panics")), "{loud:?}");
}
