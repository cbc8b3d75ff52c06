//! The binaries' command line as Apache's cross-test runner uses it: flags, exit codes,
//! signals.

mod support;

use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::Duration;

use support::{run_client, rust_client, rust_server, Place, RunningServer, Server};

/// How long a server may take to exit after a stop signal.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

#[test]
fn the_server_stops_promptly_on_sigint_sigterm_and_sighup() {
    for signal in ["INT", "TERM", "HUP"] {
        let mut server = RunningServer::start(Server::Ours(rust_server()), "binary", "buffered").unwrap();
        // A connection left open must not hold the server up.
        let _idle = TcpStream::connect(server.addr).unwrap();
        let status = Command::new("kill").args(["-s", signal, &server.pid().to_string()]).status().unwrap();
        assert!(status.success(), "kill -s {signal} failed");
        match server.wait_exit(STOP_TIMEOUT) {
            Some(status) => assert!(status.success(), "SIG{signal}: exited with {status}: {}", server.stderr()),
            None => panic!("SIG{signal}: still running after {STOP_TIMEOUT:?}"),
        }
    }
}

#[test]
fn a_connection_that_sends_nothing_is_shrugged_off() {
    let server = RunningServer::start(Server::Ours(rust_server()), "compact", "framed").unwrap();
    for _ in 0..20 {
        drop(TcpStream::connect(server.addr).unwrap());
    }
    let run = run_client(rust_client(), &server.place, "compact", "framed").unwrap();
    assert_eq!(run.code, Some(0), "{}", run.output);
}

#[test]
fn no_server_is_a_setup_failure() {
    // A port that was free a moment ago: nothing listens there.
    let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let run = run_client(rust_client(), &Place::Tcp(addr), "binary", "buffered").unwrap();
    assert_eq!(run.code, Some(64), "{}", run.output);
    assert!(run.output.contains("connect failed"), "{}", run.output);
}

#[test]
fn bad_flags_are_a_setup_failure() {
    let out = rust_client().args(["--protocol", "simplejson"]).output().unwrap();
    assert_eq!(out.status.code(), Some(64), "{}", String::from_utf8_lossy(&out.stderr));
    let out = rust_server().args(["--transport", "zmq"]).output().unwrap();
    assert!(!out.status.success());
}

#[test]
fn a_server_without_second_service_fails_only_the_multiplexed_check() {
    // A plain server takes `ThriftTest:` calls (it ignores the prefix) but has no
    // SecondService: exactly the base-type bit is set.
    let server = RunningServer::start(Server::Ours(rust_server()), "binary", "buffered").unwrap();
    let run = run_client(rust_client(), &server.place, "multi", "buffered").unwrap();
    assert_eq!(run.code, Some(1), "{}", run.output);
    let failed: Vec<&str> = run.output.lines().filter(|l| l.contains("*** FAILED ***")).collect();
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert!(failed[0].starts_with("secondtestString(\"foobar\") *** FAILED ***"), "{failed:#?}");
}
