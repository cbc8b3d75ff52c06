//! Parse, resolve, generate and format 10,000 lines of IDL, timed.
//!
//! `cargo bench -p thrift-build --bench generate`. The IDL is one realistic block (an enum,
//! typedefs, constants, structs with every kind of field, a union, exceptions, a service
//! with throws and oneway) repeated with renamed definitions, each block referring to the
//! previous one's types, until it is at least 10,000 lines. Prints the best and median of
//! the runs.

use std::time::{Duration, Instant};

use thrift_build::diagnostics::Diagnostics;
use thrift_build::{resolve, Config};

fn block(i: usize) -> String {
    let prev = i.saturating_sub(1);
    format!(
        r#"
/** The status of things, number {i}. */
enum Status{i} {{
  UNKNOWN = 0,
  ACTIVE = 1,
  SUSPENDED,
  DELETED = 10,
}}

typedef i64 UserId{i}
typedef map<string, list<UserId{i}>> Groups{i}

const i32 MAX_ITEMS_{i} = {i}
const string GREETING_{i} = "hello {i}"
const list<i32> PRIMES_{i} = [2, 3, 5, 7, 11]
const map<string, i32> LIMITS_{i} = {{"small": 1, "large": MAX_ITEMS_{i}}}

/** An account. */
struct Account{i} {{
  1: required UserId{i} id
  /** Shown to others. */
  2: string display_name = "guest"
  3: optional string email
  4: Status{i} status = Status{i}.ACTIVE
  5: i32 retries = 3
  6: double score
  7: list<string> tags
  8: set<i64> friends
  9: map<string, string> labels
  10: Groups{i} groups
  11: binary avatar
  12: optional Account{prev} previous
}}

/** A tree of accounts. */
struct Node{i} {{
  1: Account{i} value
  2: list<Node{i}> children
  3: optional Node{i} parent
}}

union Contact{i} {{
  1: string email
  2: i64 phone
  3: Account{i} account
}}

exception NotFound{i} {{
  1: UserId{i} id
  2: string message
}}

exception Denied{i} {{
  1: string reason
}}

/** Accounts, by id. */
service Accounts{i} {{
  Account{i} get(1: UserId{i} id) throws (1: NotFound{i} err)
  Account{i} getChecked(1: UserId{i} id, 2: string token) throws (1: NotFound{i} notFound, 2: Denied{i} denied)
  list<Account{i}> listAll(1: i32 limit, 2: i32 offset)
  map<UserId{i}, Contact{i}> contacts(1: set<UserId{i}> ids)
  void touch(1: UserId{i} id)
  oneway void log(1: string line)
}}
"#
    )
}

fn main() {
    let mut idl = String::from("struct Account0 { 1: i64 id }\n");
    let mut i = 1;
    while idl.lines().count() < 10_000 {
        idl.push_str(&block(i));
        i += 1;
    }
    let lines = idl.lines().count();
    let config = Config::new();
    let run = || {
        let start = Instant::now();
        let mut diags = Diagnostics::new();
        let program = resolve::load_str("bench.thrift", &idl, &mut diags);
        let generated = config.generate_program(&program, diags).unwrap_or_else(|e| panic!("{e}"));
        let elapsed = start.elapsed();
        let rust_lines: usize = generated.files.iter().map(|f| f.contents.lines().count()).sum();
        (elapsed, rust_lines)
    };
    let (_, rust_lines) = run(); // warm up
    let mut times: Vec<Duration> = (0..10).map(|_| run().0).collect();
    times.sort();
    println!(
        "{lines} lines of IDL ({} blocks) -> {rust_lines} lines of Rust: best {:.0} ms, median {:.0} ms over {} runs",
        i - 1,
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3,
        times.len()
    );
}
