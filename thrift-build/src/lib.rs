//! Thrift IDL to Rust: existing `.thrift` files become ordinary Rust types with
//! thrift-core's `#[derive(ThriftStruct, ThriftEnum, ThriftUnion)]` and services with
//! thrift-net's `#[service]`, the code a person would write by hand.
//!
//! # From a build script
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     thrift_build::Config::new().compile(&["idl/hello.thrift"], &["idl"])?;
//!     Ok(())
//! }
//! ```
//!
//! ```text
//! // src/lib.rs: one module per IDL file under `thrift`
//! pub mod thrift {
//!     include!(concat!(env!("OUT_DIR"), "/mod.rs"));
//! }
//! use thrift::hello::{HelloRequest, HelloService};
//! ```
//!
//! The crate needs `thrift-core` as a dependency, and `thrift-net` when the IDL has
//! services. Every file read is passed to cargo as `cargo:rerun-if-changed`, and the IDL's
//! warnings (a field without an id...) as `cargo:warning`.
//!
//! # From the command line, for code that is checked in
//!
//! ```text
//! cargo run -p thrift-build -- idl/hello.thrift -I idl -o src/gen
//! ```
//!
//! writes `src/gen/mod.rs` (`pub mod hello;` per file) and `src/gen/hello.rs`, mounted with
//! `mod gen;`. `--bytes`, `--hash-collections`, `--closed-enums` and
//! `--application-errors` are the options below.
//!
//! # What it generates
//!
//! ```
//! # fn main() {
//! let dir = std::env::temp_dir().join(format!("thrift-build-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(
//!     dir.join("hello.thrift"),
//!     r#"
//!     /** What to greet. */
//!     struct HelloRequest {
//!       1: required string name
//!       2: i32 times = 1
//!     }
//!     exception NoName { 1: string err }
//!     service HelloService {
//!       string sayHello(1: HelloRequest req) throws (1: NoName err)
//!     }
//!     "#,
//! )
//! .unwrap();
//! let out = dir.join("gen");
//! thrift_build::Config::new().out_dir(&out).compile(&[dir.join("hello.thrift")], &[&dir]).unwrap();
//! let code = std::fs::read_to_string(out.join("hello.rs")).unwrap();
//! assert!(code.contains(
//!     "/// What to greet.
//! #[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
//! pub struct HelloRequest {
//!     #[thrift(id = 1, required)]
//!     pub name: SharedStr,
//!     #[thrift(id = 2, default = 1)]
//!     pub times: i32,
//! }"
//! ));
//! assert!(code.contains("#[thrift_net::service(name = \"HelloService\")]\npub trait HelloService {"));
//! assert!(code.contains("    #[thrift(name = \"sayHello\")]\n    async fn say_hello("));
//! assert!(code.contains("req: HelloRequest,\n    ) -> Result<SharedStr, NoName>;"));
//! std::fs::remove_dir_all(&dir).unwrap();
//! # }
//! ```
//!
//! | IDL | Rust |
//! | --- | --- |
//! | `bool`, `i8` (`byte`), `i16`, `i32`, `i64`, `double` | `bool`, `i8`, `i16`, `i32`, `i64`, `f64` |
//! | `string`, `binary`, `uuid` | `thrift_core::SharedStr` (or `String`, with `Config::string_type("String")`), `Vec<u8>` (or `Bytes`), `thrift_core::Uuid` |
//! | `list<T>`, `set<T>`, `map<K, V>` | `Vec<T>`, `BTreeSet<T>` (or `HashSet`), `BTreeMap<K, V>` (or `HashMap`) |
//! | `typedef T Name` | `pub type Name = T;` |
//! | `const` | `pub const` for numbers, strings (`&str`), binary (`&[u8]`), enum values, lists of those (slices); `pub static NAME: LazyLock<T>` for maps, sets, structs |
//! | `enum` | a `ThriftEnum` with an `Other(i32)` variant for values the IDL does not name; a second name for a value is an associated constant |
//! | `struct` | a `ThriftStruct`; `optional` fields are `Option<T>`, `required` ones `#[thrift(required)]`, defaults `#[thrift(default = ...)]` and a `Default` impl |
//! | `union` | a `ThriftUnion` enum |
//! | `exception` | a `ThriftStruct` with `#[thrift(exception)]` |
//! | `service` | a trait with `#[thrift_net::service]`, which adds a module named after it (`hello_service::{Server, Client, Definition}`) |
//!
//! - **Names** are Rust's: `CamelCase` types and variants, `snake_case` fields, methods and
//!   modules, `SHOUTY_CASE` constants, `r#` before a keyword (`r#type`), `_` after the four
//!   that cannot be raw (`self_`), `_` again when two IDL names meet in one Rust name. The
//!   IDL name stays as `#[thrift(name = "...")]` wherever it differs: the wire never changes.
//! - **Doc comments** (`/** */`) become `///`; text rustdoc would read as code is fenced as
//!   `text`, so it never runs as a doctest.
//! - **Derives**: `Debug, Clone, PartialEq` always; `Eq, Hash, PartialOrd, Ord` where every
//!   field allows them (a `double` allows none, a `HashMap` only `Eq`); `Default` where
//!   every field has one, by hand when the IDL gives defaults.
//! - **Recursion**: a field that leads back to its own struct, not through a container, is
//!   a `Box<T>`; of default requiredness, an `Option<Box<T>>` (its default would be
//!   infinite). `list<T>` and the like need nothing.
//! - **Keys**: every set element and map key type Thrift allows has a Rust collection. A
//!   key needs `Ord` (or `Hash` for the hash collections), so a `double` in a key, and in
//!   every field of a struct or union held (at any depth) in a set element or map key, is a
//!   `thrift_core::OrderedDouble`, and the sets and maps of such a struct are BTree ones
//!   whatever the config. Apache Aurora's `set<Resource>` (a union with a `double` member)
//!   is a `BTreeSet<Resource>`. Equality and order are honest and total: those of
//!   `f64::total_cmp` (`-0.0` before `0.0`, a NaN equal to itself), the order Apache's Rust
//!   generator gets from `OrderedFloat`; on the wire an `OrderedDouble` is a plain `double`.
//! - **Services**: `#[service]` has no `extends`, so a service's trait holds its parents'
//!   methods first, then its own. A method's declared exceptions are its error type: the
//!   exception struct when it declares one `1: X err` (the shape the derive writes), else
//!   a generated `ThriftUnion` of them named `{Service}{Method}Error`. Methods return `T` or
//!   `Result<T, E>`; [`Config::application_errors`] lets handlers fail with a
//!   `TApplicationException` too. Argument defaults are dropped, with a warning.
//! - **Empty unions** become empty structs (same bytes), as the union derive needs a member.
//!
//! # Module layout
//!
//! One module per IDL file, named after the file (`ThriftTest.thrift` → `thrift_test`) or
//! its `namespace rs`, all siblings under the `mod.rs` root: a type of an included file is
//! `super::shared::Thing`. With the default output (`OUT_DIR`) the layout is
//! [`Layout::Include`]: `OUT_DIR/thrift_test.rs` and a `mod.rs` of
//! `pub mod thrift_test { include!("thrift_test.rs"); }`, mounted with
//! `include!(concat!(env!("OUT_DIR"), "/mod.rs"))`. With [`Config::out_dir`] (and the
//! command line) it is [`Layout::Modules`]: `mod.rs` declares `pub mod thrift_test;` and the
//! files carry their doc comment as `//!`, a module directory to check in. Definitions keep
//! their IDL order; imports are sorted; the output is the same on every run, and a file is
//! only rewritten when it changes.
//!
//! # The IDL it reads
//!
//! The grammar Apache's compiler 0.17 accepts (`thrifty.yy`): `include`, `cpp_include`,
//! `namespace` (`*` and `rs` included), `const`, `typedef`, `enum`, `struct`, `union`,
//! `exception`, `service` with `extends`, `oneway` and `throws`, requiredness, defaults,
//! field ids (left out: -1, -2... with a warning, as Apache assigns them), annotations,
//! `,`/`;` separators, `//`, `#` and `/* */` comments, `/** */` doc comments, `uuid`
//! (Apache 0.19), uuid constants with or without GUID braces, `senum` and `slist` (which
//! Apache's compilers before 0.17 read: a typedef of `string` and `string`, with a
//! warning). The old `cpp_namespace`-style headers are errors that say what replaced them,
//! as in Apache 0.17. A missing include is a warning, as in Apache; a name that needs it
//! is an error where it is used. Errors point at the mistake with
//! `file:line:col`, the line and a caret, several per run ([`diagnostics`]).
//!
//! The parser is written by hand rather than with a combinator crate: the grammar is
//! LL(1) and small, and by hand it gets exactly what matters here: messages that say what
//! was expected, recovery at the next definition so a run reports every mistake, a bound
//! on nesting so no input overflows the stack, and no way to panic. Every prefix of every
//! test IDL of Apache's compiler is tested, and `fuzz/` has a target for it.
//!
//! It is quick enough to run on every build: `cargo bench -p thrift-build --bench generate`
//! parses, resolves, generates and formats 10,000 lines of IDL (into 25,600 lines of Rust)
//! in 0.2 to 0.3 s on a 2-core machine shared with other builds.
//!
//! # Tested against Apache's compiler, on real IDL
//!
//! The tests (`tests/idl_corpus.rs`, `tests/apache_idls.rs`) hold thrift-build against
//! Apache's compiler 0.17 (Debian's `thrift-compiler`) on every IDL file of Apache's source
//! tree and on a corpus of IDL that six other projects publish, fetched at test time by
//! `scripts/fetch-idl-corpus.sh` (the repository keeps no copy):
//!
//! | project | files | from |
//! | --- | --- | --- |
//! | Apache Thrift 0.17 | its compiler's test IDLs, the tutorial, every library's test IDLs (186 files) | Debian's source package `thrift` |
//! | Apache Hive | the metastore IDL, `hms.thrift` (1,563 lines) | the crate `hive_metastore` 0.2.0 |
//! | Apache Parquet | the format IDL, `parquet.thrift` | the crate `parquet-format` 4.0.0 |
//! | CloudWeGo pilota | its generator's test IDLs (43 files) | the crate `pilota-build` 0.13.12 |
//! | Jaeger | its IDL: agent, jaeger, sampling, zipkincore... (9 files) | the npm package `jaeger-client` 3.19.0 |
//! | OpenZipkin | `zipkinCore.thrift` | the npm package `zipkin-encoder-thrift` 0.22.0 |
//! | Uber thriftrw | its test IDLs and a later copy of Apache's compiler test IDLs (58 files) | the npm package `thriftrw` 3.12.0 |
//!
//! - Every file Apache accepts, thrift-build generates, and the generated Rust compiles
//!   with warnings denied (the `thrift-build-corpus` fixture crate).
//! - Every file Apache rejects, thrift-build rejects, except for reasons it accepts on
//!   purpose: `uuid` (Apache's from 0.19), `senum`/`slist` (Apache's before 0.17), and
//!   names that Apache's generators reserve for their own languages (`self`, `lambda`),
//!   which generated Rust escapes.
//! - For every file both accept, the resolved model equals Apache's (`thrift --gen json`)
//!   field by field: every struct, union and exception with field ids, names, types,
//!   requiredness and defaults; enum values; constants; typedefs; services with `extends`,
//!   methods, arguments, return types, `oneway` and `throws`. A difference fails with the
//!   place named (`.structs[Xtruct].fields[byte_thing].key: apache 4, ours 5`).
//!
//! Beyond parsing, [`resolve`] checks what Apache's compiler checks (unknown types,
//! duplicate ids and names, include cycles, constants against their types, enum values in
//! `i32`) and a little more that Rust needs (an `i8` constant must fit an `i8`).

pub mod ast;
mod codegen;
mod config;
pub mod diagnostics;
mod lexer;
mod parser;
pub mod resolve;

pub use codegen::{Generated, GeneratedFile, GeneratedItem, ItemKind};
pub use config::{BinaryType, Config, Layout, MapType, SetType};
pub use diagnostics::Error;
pub use parser::parse;
