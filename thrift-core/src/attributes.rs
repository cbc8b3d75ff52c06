//! The derives and their `#[thrift(...)]` attributes, in one place.
//!
//! # `#[derive(ThriftStruct)]`
//!
//! On a struct with named fields. Every field needs an id; the rest is optional.
//!
//! ```
//! use std::borrow::Cow;
//! use bytes::Bytes;
//! use thrift_core::{Binary, ThriftStruct};
//!
//! #[derive(ThriftStruct, Debug, PartialEq)]
//! #[thrift(name = "HelloRequest")] // the IDL name; defaults to the Rust name
//! struct Hello<'a> {
//!     #[thrift(id = 1, required)]  // an error when absent from the input
//!     name: &'a str,               // borrowed from the input: no copy
//!     #[thrift(id = 2)]            // `Option` = optional: written only when Some
//!     message: Option<String>,
//!     #[thrift(id = 3)]            // default requiredness: always written,
//!     retries: i32,                // `Default::default()` when absent
//!     #[thrift(id = 4, default = 30)] // the value when absent
//!     timeout_secs: i64,
//!     #[thrift(id = 5, name = "traceId")] // the IDL name of the field
//!     trace: Bytes,                // a slice of the input `Bytes`: no copy
//!     #[thrift(id = 6)]
//!     note: Cow<'a, str>,
//!     #[thrift(id = 7, default = "guest")] // a string literal converts into the field type
//!     user: String,
//!     #[thrift(skip)]              // not on the wire: `Default::default()` (or `default`) on decode
//!     cache: Vec<u8>,
//! }
//!
//! let hello = Hello {
//!     name: "ada",
//!     message: None,
//!     retries: 2,
//!     timeout_secs: 5,
//!     trace: Bytes::from_static(b"t"),
//!     note: "n".into(),
//!     user: "bob".into(),
//!     cache: Vec::new(),
//! };
//! let bytes = Bytes::from(thrift_core::to_vec::<Binary, _>(&hello));
//! assert_eq!(thrift_core::from_bytes::<Binary, Hello<'_>>(&bytes).unwrap(), hello);
//!
//! // A missing required field is an error naming the struct and field.
//! let err = thrift_core::from_slice::<Binary, Hello<'_>>(&[0]).unwrap_err();
//! assert_eq!(err.to_string(), "HelloRequest: missing required field name (id 1) at offset 1");
//! ```
//!
//! Field attributes:
//!
//! | attribute | meaning |
//! | --- | --- |
//! | `id = N` | the field id, any `i16` (0 and negative ids allowed) |
//! | `required` | an error when absent on read, or present with another wire type; not allowed on `Option` |
//! | `optional` | says explicitly what an `Option` field already is |
//! | `default = expr` | the value when absent; a string, byte string or `[..]` literal is converted with `From` (`"guest"` for a `String`, `Box<str>`, `Arc<str>` or [`SharedStr`](crate::SharedStr), which points at the literal, `[1, 2]` for a `Vec` or set); shown in the IDL: a literal as written, any other value (`Color::Green`, a struct, a map) as the IDL constant of its value when its type has one (see [IDL](#idl)) |
//! | `name = "..."` | the IDL name (default: the Rust name, in the struct's `rename_all` case) |
//! | `skip` | not encoded, not in the IDL; decoded as `default` or `Default::default()` |
//! | `with = "module"` | the field is on the wire as the Thrift value `module::encode` and `module::decode` exchange (below) |
//! | `encode_with = "path"`, `decode_with = "path"` | the same with two functions named one by one; give both |
//!
//! A field whose type is not an `Option` and has neither `required` nor `default` takes
//! `Default::default()` when absent, as Apache's default requiredness reads it; its type
//! must implement `Default` (for a generic `T`, say so with `bound`, below).
//!
//! `with` puts a type that is not a Thrift type (a `Duration`, an address, a type of another
//! crate) on the wire as one that is, as serde's `with` does. The functions have these
//! signatures, `T` the field's type (the `T` of an `Option<T>`: an optional field stays
//! optional), `W` any Thrift type (it may borrow: `&'a str` from the value when encoding, from
//! the input when decoding), `E` any `Display`:
//!
//! ```text
//! fn encode(value: &T) -> W
//! fn decode(wire: W) -> Result<T, E>
//! ```
//!
//! Both take the same `W`, checked at compile time, so what one peer writes the other reads;
//! `W` is the field's wire type and its IDL type, and a `default` shows as `encode(&default)`.
//! A value `decode` refuses is an [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData)
//! at the field, with the error's message. `encode` runs twice per write (once to size the
//! field, once to write it), so keep it cheap. With `ThriftArbitrary`, the field is made by
//! `decode` from generated `W`s, those it refuses drawn again.
//!
//! ```
//! use std::time::Duration;
//! use thrift_core::{Binary, Idl, ThriftStruct};
//!
//! /// A `Duration` as whole milliseconds: an `i64` on the wire.
//! mod millis {
//!     use std::time::Duration;
//!
//!     pub fn encode(value: &Duration) -> i64 {
//!         i64::try_from(value.as_millis()).unwrap_or(i64::MAX)
//!     }
//!
//!     pub fn decode(ms: i64) -> Result<Duration, String> {
//!         u64::try_from(ms).map(Duration::from_millis).map_err(|_| format!("negative duration: {ms} ms"))
//!     }
//! }
//!
//! fn to_text(addr: &std::net::Ipv4Addr) -> String {
//!     addr.to_string()
//! }
//!
//! fn from_text(text: String) -> Result<std::net::Ipv4Addr, std::net::AddrParseError> {
//!     text.parse()
//! }
//!
//! #[derive(ThriftStruct, Debug, PartialEq)]
//! struct Timeouts {
//!     #[thrift(id = 1, with = "millis", default = Duration::from_secs(30))]
//!     request: Duration,
//!     #[thrift(id = 2, with = "millis")]
//!     idle: Option<Duration>,
//!     #[thrift(id = 3, required, encode_with = "to_text", decode_with = "from_text")]
//!     peer: std::net::Ipv4Addr,
//! }
//!
//! let t = Timeouts { request: Duration::from_millis(1500), idle: None, peer: [10, 0, 0, 1].into() };
//! let bytes = thrift_core::to_vec::<Binary, _>(&t);
//! assert_eq!(thrift_core::from_slice::<Binary, Timeouts>(&bytes).unwrap(), t);
//!
//! let idl = Idl::new().add::<Timeouts>().render();
//! assert!(idl.contains("1: i64 request = 30000\n  2: optional i64 idle\n  3: required string peer\n"), "{idl}");
//!
//! // A negative duration from a peer: an error at the field.
//! #[derive(ThriftStruct)]
//! struct Raw {
//!     #[thrift(id = 1)]
//!     request: i64,
//!     #[thrift(id = 3)]
//!     peer: String,
//! }
//! let raw = thrift_core::to_vec::<Binary, _>(&Raw { request: -1, peer: "10.0.0.1".into() });
//! let err = thrift_core::from_slice::<Binary, Timeouts>(&raw).unwrap_err();
//! assert_eq!(err.to_string(), "Timeouts.request (id 1): invalid data: negative duration: -1 ms at offset 11");
//! ```
//!
//! Struct attributes:
//!
//! | attribute | meaning |
//! | --- | --- |
//! | `name = "..."` | the IDL name |
//! | `exception` | a Thrift `exception`: also implements `std::error::Error` and `Display` (printing `Debug`) |
//! | `display = false` | with `exception`: no derived `Display`, write your own |
//! | `throws(id = N, name = "...")` | with `exception`: the field it is thrown as in a method's result and `throws (...)` clause (default `1: err`) |
//! | `rename_all = "..."` | the case of the fields' IDL names: `"camelCase"`, `"PascalCase"`, `"snake_case"`, `"SCREAMING_SNAKE_CASE"`, `"lowercase"`, `"UPPERCASE"` |
//! | `bound = "T: Default, ..."` | where-predicates added to every derived impl, beside the trait's own bound on each type parameter |
//! | `transparent` | a newtype (`struct UserId(i64)`) that is its one field on the wire; a `typedef` in the IDL |
//! | `crate = "path"` | the path of `thrift_core` when it is renamed in Cargo.toml |
//!
//! ```
//! use std::collections::VecDeque;
//! use std::sync::Arc;
//! use thrift_core::{Compact, Idl, ThriftStruct};
//!
//! #[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
//! #[thrift(transparent)]
//! struct UserId(i64);
//!
//! #[derive(ThriftStruct, Debug, PartialEq)]
//! #[thrift(rename_all = "camelCase", bound = "T: Default")]
//! struct Page<T> {
//!     #[thrift(id = 1)]
//!     owner_id: UserId,
//!     #[thrift(id = 2)]
//!     items: VecDeque<T>,
//!     #[thrift(id = 3)]
//!     extra: T,                 // default requiredness: needs `T: Default`, from `bound`
//!     #[thrift(id = 4, default = "none")]
//!     next_token: Arc<str>,
//! }
//!
//! let page = Page { owner_id: UserId(7), items: VecDeque::from(vec![1i32]), extra: 0, next_token: "t".into() };
//! let bytes = thrift_core::to_vec::<Compact, _>(&page);
//! assert_eq!(thrift_core::from_slice::<Compact, Page<i32>>(&bytes).unwrap(), page);
//! // The newtype is an `i64` on the wire.
//! assert_eq!(thrift_core::to_vec::<Compact, _>(&UserId(7)), thrift_core::to_vec::<Compact, _>(&7i64));
//!
//! let idl = Idl::new().add::<Page<i32>>().render();
//! assert!(idl.starts_with("typedef i64 UserId\n"), "{idl}");
//! assert!(idl.contains("1: UserId ownerId\n"), "{idl}");
//! assert!(idl.contains("4: string nextToken = \"none\"\n"), "{idl}");
//! ```
//!
//! An exception with its own message:
//!
//! ```
//! use thrift_core::ThriftStruct;
//!
//! #[derive(ThriftStruct, Debug)]
//! #[thrift(exception, display = false)]
//! struct NotFound {
//!     #[thrift(id = 1)]
//!     key: String,
//! }
//!
//! impl std::fmt::Display for NotFound {
//!     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
//!         write!(f, "no such key: {}", self.key)
//!     }
//! }
//!
//! let err: Box<dyn std::error::Error> = Box::new(NotFound { key: "k".into() });
//! assert_eq!(err.to_string(), "no such key: k");
//! ```
//!
//! Unknown fields are skipped. A known field id arriving with another wire type is skipped
//! when the field is optional or of default requiredness (with a `tracing` debug event,
//! feature `tracing`), and is an [`ErrorKind::WrongFieldType`](crate::ErrorKind::WrongFieldType)
//! when it is required. A field seen twice keeps its last value.
//!
//! # `#[derive(ThriftEnum)]`
//!
//! On an enum with explicit discriminants: an `i32` on the wire. Every enum says what
//! becomes of a value a newer peer adds, one of:
//!
//! - a variant `#[thrift(unknown)] Name(i32)` holds it (open, the recommended form): the
//!   message decodes, and re-encoding writes the same number back, so nothing is lost;
//! - `#[thrift(closed)]` on the enum: an unknown value is an
//!   [`ErrorKind::UnknownEnumValue`](crate::ErrorKind::UnknownEnumValue), which fails the
//!   whole message, even for an `Option` field.
//!
//! An enum with neither does not compile, and the error says what to add. A derive cannot
//! add the variant itself (derives do not change the item), and silently choosing the
//! strict form would break old readers the day a peer evolves; the newtype-over-`i32` form
//! Apache's Rust generator uses would lose `match` exhaustiveness and the variants' names.
//! The open form costs nothing on the wire and little in memory: the enum is 8 bytes (a
//! tag and the `i32`) where a closed one is 1 (4 with `#[repr(i32)]`), and decoding is the
//! same compare chain, its last arm keeping the value instead of returning an error.
//!
//! ```
//! use thrift_core::{Compact, ThriftEnum};
//!
//! #[derive(ThriftEnum, Debug, Clone, Copy, PartialEq)]
//! #[repr(i32)] // Rust needs it for discriminants beside a data variant
//! enum Status { Ok = 0, Busy = 3, #[thrift(unknown)] Other(i32) }
//!
//! #[derive(ThriftEnum, Debug, Clone, Copy, PartialEq)]
//! #[thrift(closed, rename_all = "SCREAMING_SNAKE_CASE")] // IDL names `OK`, `TOO_BUSY`
//! enum Strict { Ok = 0, TooBusy = 3 }
//!
//! let seven = thrift_core::to_vec::<Compact, _>(&7i32);
//! assert_eq!(thrift_core::from_slice::<Compact, Status>(&seven).unwrap(), Status::Other(7));
//! assert_eq!(thrift_core::to_vec::<Compact, _>(&Status::Other(7)), seven);
//! assert!(thrift_core::from_slice::<Compact, Strict>(&seven).is_err());
//! assert_eq!(i32::from(&Status::Busy), 3);
//! ```
//!
//! Enum attributes: `closed`, `name`, `rename_all`, `crate`; variant attributes: `name`,
//! `unknown`.
//!
//! # `#[derive(ThriftUnion)]`
//!
//! On an enum whose variants each hold one value and carry an id. As for enums, every
//! union says what becomes of a member a newer peer adds:
//!
//! - a variant `#[thrift(unknown)] Name(i16)` (open): a union with no member this side
//!   knows decodes as `Name(id)`, the id of the first member it skipped (0 when the struct
//!   was empty). Only the id is kept: re-encoding it writes an empty union, which a closed
//!   reader rejects and an open one reads back as `Name(0)`;
//! - `#[thrift(closed)]`: no known member is an
//!   [`ErrorKind::InvalidUnion`](crate::ErrorKind::InvalidUnion), as Apache's libraries do.
//!
//! Two or more known members set is an error either way.
//!
//! ```
//! use thrift_core::{Binary, StructEncoder, ThriftUnion};
//!
//! #[derive(ThriftUnion, Debug, PartialEq)]
//! enum Shape {
//!     #[thrift(id = 1)]
//!     Circle(f64),
//!     #[thrift(id = 2, name = "label")]
//!     Label(String),
//!     #[thrift(unknown)]
//!     Unknown(i16),
//! }
//!
//! let bytes = thrift_core::to_vec::<Binary, _>(&Shape::Circle(1.5));
//! assert_eq!(thrift_core::from_slice::<Binary, Shape>(&bytes).unwrap(), Shape::Circle(1.5));
//!
//! // A newer peer's member 3.
//! let mut newer = Vec::new();
//! let mut s = StructEncoder::<Binary, _>::new(&mut newer);
//! s.field(3, &true);
//! s.finish();
//! assert_eq!(thrift_core::from_slice::<Binary, Shape>(&newer).unwrap(), Shape::Unknown(3));
//! assert_eq!(thrift_core::to_vec::<Binary, _>(&Shape::Unknown(3)), [0]); // empty
//! ```
//!
//! Union attributes: `closed`, `name`, `rename_all`, `exception`, `crate`; variant
//! attributes: `id`, `name`, `unknown`.
//!
//! A union of exceptions is a method's error type (see `thrift_net::service`): each variant
//! is thrown as its own field of the method's result, at its id, named in `throws (...)` by
//! its `name`, else in the union's `rename_all` case, else in snake_case, as IDL fields are
//! spelled (`NotFound(NotFoundError)` is `1: NotFoundError not_found`). An exception struct
//! thrown on its own is `1: err`, or what its `throws(id = N, name = "...")` says.
//!
//! # Evolving a schema safely
//!
//! What each change does when a newer writer talks to an older reader (and back):
//!
//! | change | on the wire | in the older Rust reader |
//! | --- | --- | --- |
//! | add a field | a field id the reader does not know | skipped; the rest decodes |
//! | remove a field | the id no longer arrives | optional: `None`; default: its default; **required: an error**, so never remove (or add) a required field |
//! | add an enum value | an `i32` with no variant | open enum: `Unknown(n)`, re-encoded as `n`; closed: the message fails |
//! | add a union member | a union whose only member has an unknown id | open union: `Unknown(id)`, re-encoded empty; closed: the message fails |
//! | change a field's type | the id arrives with another wire type | optional/default: skipped (as absent), debug event; required: [`WrongFieldType`](crate::ErrorKind::WrongFieldType) |
//! | optional ↔ default requiredness | nothing changes on the wire when the value is set | a default field is always written; an optional one only when `Some` |
//! | to or from `required` | a reader that requires it fails when it is absent | keep such changes behind a version in both peers |
//! | rename a field or type | nothing: only ids and wire types are on the wire | nothing; other languages see the new IDL name |
//! | give a field `with` functions | nothing when their wire type is the field's old type (`i64` milliseconds for an `i64` field) | nothing; another wire type is a change of the field's type (above) |
//!
//! So: give new fields new ids, make new fields optional or default, never reuse an id, and
//! declare an `unknown` variant in every enum and union that other services may extend.
//! With the `proptest` feature, `thrift_core::testing::check_evolution` checks
//! both directions over generated values of the two versions.
//!
//! # `#[derive(ThriftArbitrary)]`
//!
//! Beside any of the three derives, from the same attributes: proptest strategies for the
//! type (`thrift_core::testing::ThriftArbitrary` and proptest's
//! `Arbitrary`, so `any::<T>()` works), with the `proptest` feature; without it, nothing.
//! Required and default fields are always set, optional ones sometimes `None`, `skip`
//! fields take their default, `with` fields are made by their `decode`, open enums sometimes hold an unknown value (never a known
//! one) and open unions sometimes `Unknown(0)` (the unknown case that survives a roundtrip:
//! re-encoded, an unknown member is an empty union). Borrowed fields (`&'a str`) are
//! generated through their owned form, for the `'static` instantiation. Sizes are bounded
//! by `thrift_core::testing::Sizes`, recursion by its depth. See `thrift_core::testing`
//! and the README's "Testing your types".
//!
//! # IDL
//!
//! Every derived type renders its IDL definition, dependencies first, with its `///` doc
//! comments as `/** */` comments, its defaults, a `typedef` for each `transparent`
//! newtype, and one definition per instantiation of a generic type (`Page<Item>` is
//! `Page_Item`). A default that is a literal is shown as written; any other value is
//! evaluated when the document is built and rendered as an IDL constant: a derived enum's variant as `Color.Green` (its
//! [`IdlLiteral`](crate::IdlLiteral)), a derived struct or union as `{"field": value, ...}`
//! (unset optional fields left out), lists, sets and maps of those, and a `with` field's
//! default as its wire value. A value with a part no literal can spell (a hand-written type
//! without `IdlLiteral`, an unknown enum value) shows no default; the Rust reader applies it
//! all the same. Two Rust types with one IDL name (two enums both named `Color`) are both
//! kept in the document and reported by [`Idl::conflicts`](crate::Idl::conflicts), never
//! one silently dropped. Unknown variants and `skip` fields are Rust's alone and are left out. A name
//! Apache's compiler reserves (`list`, `map`, `set`, `string`, `required`, `uuid`, ...) is a
//! compile error asking for a `name = "..."`. [`Idl::namespace`](crate::Idl::namespace),
//! [`Idl::typedef`](crate::Idl::typedef) and [`Idl::constant`](crate::Idl::constant) add
//! the declarations no Rust type carries.
//!
//! ```
//! use thrift_core::{Idl, ThriftEnum, ThriftStruct};
//!
//! #[derive(ThriftEnum, Clone, Copy, Default)]
//! #[thrift(closed)]
//! enum Color { #[default] Red = 1 }
//!
//! #[derive(ThriftStruct)]
//! struct Pixel {
//!     #[thrift(id = 1)]
//!     color: Color,
//!     #[thrift(id = 2)]
//!     alpha: Option<f64>,
//! }
//!
//! let idl = Idl::new().add::<Pixel>().render();
//! assert_eq!(idl, "enum Color {\n  Red = 1\n}\n\nstruct Pixel {\n  1: Color color\n  2: optional double alpha\n}\n");
//!
//! let idl = Idl::new().namespace("py", "pixels").constant("MAX_ALPHA", &1.0f64).add::<Pixel>().render();
//! assert!(idl.starts_with("namespace py pixels\n\nconst double MAX_ALPHA = 1.0\n\nenum Color {"), "{idl}");
//!
//! #[derive(ThriftStruct)]
//! struct Canvas {
//!     #[thrift(id = 1, default = Color::Red)]
//!     background: Color,
//!     #[thrift(id = 2, default = Pixel { color: Color::Red, alpha: Some(0.5) })]
//!     fill: Pixel,
//! }
//!
//! let idl = Idl::new().constant("DEFAULT_COLOR", &Color::Red).add::<Canvas>().render();
//! assert!(idl.contains("const Color DEFAULT_COLOR = Color.Red\n"), "{idl}");
//! assert!(idl.contains("  1: Color background = Color.Red\n"), "{idl}");
//! assert!(idl.contains("  2: Pixel fill = {\"color\": Color.Red, \"alpha\": 0.5}\n"), "{idl}");
//! ```
