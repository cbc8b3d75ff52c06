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
//! }
//!
//! let hello = Hello {
//!     name: "ada",
//!     message: None,
//!     retries: 2,
//!     timeout_secs: 5,
//!     trace: Bytes::from_static(b"t"),
//!     note: "n".into(),
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
//! | `required` | an error when absent on read; not allowed on `Option` |
//! | `optional` | says explicitly what an `Option` field already is |
//! | `default = expr` | the value when absent (the IDL shows it when it is a literal) |
//! | `name = "..."` | the IDL name (default: the Rust name) |
//!
//! A field whose type is not an `Option` and has neither `required` nor `default` takes
//! `Default::default()` when absent, as Apache's default requiredness reads it; its type
//! must implement `Default`.
//!
//! Struct attributes: `name = "..."`, `exception` (also implements `Display` and
//! `std::error::Error`), and `crate = "path"` when `thrift_core` is renamed in Cargo.toml.
//!
//! Unknown fields are skipped; a known field id arriving with another wire type is
//! skipped too; a field seen twice keeps its last value.
//!
//! # `#[derive(ThriftEnum)]`
//!
//! On a fieldless enum with explicit discriminants: an `i32` on the wire. An unknown value
//! is an error, unless a variant marked `unknown` holds it.
//!
//! ```
//! use thrift_core::{Compact, ThriftEnum};
//!
//! #[derive(ThriftEnum, Debug, Clone, Copy, PartialEq)]
//! enum Status { Ok = 0, Busy = 3 }
//!
//! #[derive(ThriftEnum, Debug, Clone, Copy, PartialEq)]
//! #[repr(i32)]
//! enum OpenStatus { Ok = 0, Busy = 3, #[thrift(unknown)] Other(i32) }
//!
//! let seven = thrift_core::to_vec::<Compact, _>(&7i32);
//! assert!(thrift_core::from_slice::<Compact, Status>(&seven).is_err());
//! assert_eq!(thrift_core::from_slice::<Compact, OpenStatus>(&seven).unwrap(), OpenStatus::Other(7));
//! assert_eq!(i32::from(&Status::Busy), 3);
//! ```
//!
//! # `#[derive(ThriftUnion)]`
//!
//! On an enum whose variants each hold one value and carry an id. Exactly one field must
//! be set on the wire; none or several is an error naming the union.
//!
//! ```
//! use thrift_core::{Binary, ThriftUnion};
//!
//! #[derive(ThriftUnion, Debug, PartialEq)]
//! enum Shape {
//!     #[thrift(id = 1)]
//!     Circle(f64),
//!     #[thrift(id = 2, name = "label")]
//!     Label(String),
//! }
//!
//! let bytes = thrift_core::to_vec::<Binary, _>(&Shape::Circle(1.5));
//! assert_eq!(thrift_core::from_slice::<Binary, Shape>(&bytes).unwrap(), Shape::Circle(1.5));
//! assert!(thrift_core::from_slice::<Binary, Shape>(&[0]).is_err()); // no field set
//! ```
//!
//! # IDL
//!
//! Every derived type renders its IDL definition, dependencies first:
//!
//! ```
//! use thrift_core::{Idl, ThriftEnum, ThriftStruct};
//!
//! #[derive(ThriftEnum, Clone, Copy, Default)]
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
//! ```
