//! The benchmark shapes as this project's types: owned ([`Small`], [`Medium`], [`Large`]),
//! zero-copy ([`SmallRef`], [`MediumRef`], [`LargeRef`]) and owned zero-copy
//! ([`SmallShared`], [`MediumShared`], [`LargeShared`]: `SharedStr` and `Bytes`), the same structs as
//! `idl/shapes.thrift`. Maps and sets are B-trees so that the bytes are deterministic and
//! equal to what Apache's generated code (which also uses B-trees) writes.
//!
//! The fields are those of the IDL, which says what each is for.
#![allow(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use thrift_core::{SharedStr, ThriftStruct};

/// About 150 bytes in the binary protocol: ten scalars, two short strings, a short binary.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct Small {
    #[thrift(id = 1, required)]
    pub id: i32,
    #[thrift(id = 2, required)]
    pub timestamp: i64,
    #[thrift(id = 3, required)]
    pub flags: i16,
    #[thrift(id = 4, required)]
    pub level: i8,
    #[thrift(id = 5, required)]
    pub active: bool,
    #[thrift(id = 6, required)]
    pub score: f64,
    #[thrift(id = 7, required)]
    pub count: i32,
    #[thrift(id = 8, required)]
    pub sequence: i64,
    #[thrift(id = 9, required)]
    pub ratio: f64,
    #[thrift(id = 10, required)]
    pub archived: bool,
    #[thrift(id = 11, required)]
    pub name: String,
    #[thrift(id = 12, required)]
    pub label: String,
    #[thrift(id = 13, required)]
    pub token: Vec<u8>,
}

/// About 5.5 KB: lists of i64 and strings, a string map, a set, ten [`Small`]s and
/// optional fields.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct Medium {
    #[thrift(id = 1, required)]
    pub id: i64,
    #[thrift(id = 2, required)]
    pub title: String,
    #[thrift(id = 3, required)]
    pub values: Vec<i64>,
    #[thrift(id = 4, required)]
    pub names: Vec<String>,
    #[thrift(id = 5, required)]
    pub attributes: BTreeMap<String, String>,
    #[thrift(id = 6, required)]
    pub tags: BTreeSet<i32>,
    #[thrift(id = 7, required)]
    pub items: Vec<Small>,
    #[thrift(id = 8)]
    pub note: Option<String>,
    #[thrift(id = 9)]
    pub parent: Option<i64>,
    #[thrift(id = 10)]
    pub weight: Option<f64>,
}

/// About 230 KB: thirty [`Medium`]s and a 64 KiB binary.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct Large {
    #[thrift(id = 1, required)]
    pub id: i64,
    #[thrift(id = 2, required)]
    pub name: String,
    #[thrift(id = 3, required)]
    pub mediums: Vec<Medium>,
    #[thrift(id = 4, required)]
    pub blob: Vec<u8>,
}

/// [`Small`] borrowing its strings and binary from the input.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Small")]
pub struct SmallRef<'a> {
    #[thrift(id = 1, required)]
    pub id: i32,
    #[thrift(id = 2, required)]
    pub timestamp: i64,
    #[thrift(id = 3, required)]
    pub flags: i16,
    #[thrift(id = 4, required)]
    pub level: i8,
    #[thrift(id = 5, required)]
    pub active: bool,
    #[thrift(id = 6, required)]
    pub score: f64,
    #[thrift(id = 7, required)]
    pub count: i32,
    #[thrift(id = 8, required)]
    pub sequence: i64,
    #[thrift(id = 9, required)]
    pub ratio: f64,
    #[thrift(id = 10, required)]
    pub archived: bool,
    #[thrift(id = 11, required)]
    pub name: &'a str,
    #[thrift(id = 12, required)]
    pub label: &'a str,
    #[thrift(id = 13, required)]
    pub token: &'a [u8],
}

/// [`Medium`] borrowing its strings from the input.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Medium")]
pub struct MediumRef<'a> {
    #[thrift(id = 1, required)]
    pub id: i64,
    #[thrift(id = 2, required)]
    pub title: &'a str,
    #[thrift(id = 3, required)]
    pub values: Vec<i64>,
    #[thrift(id = 4, required)]
    pub names: Vec<&'a str>,
    #[thrift(id = 5, required)]
    pub attributes: BTreeMap<&'a str, &'a str>,
    #[thrift(id = 6, required)]
    pub tags: BTreeSet<i32>,
    #[thrift(id = 7, required)]
    pub items: Vec<SmallRef<'a>>,
    #[thrift(id = 8)]
    pub note: Option<&'a str>,
    #[thrift(id = 9)]
    pub parent: Option<i64>,
    #[thrift(id = 10)]
    pub weight: Option<f64>,
}

/// [`Large`] borrowing its strings from the input; the blob is a refcounted slice of the
/// input `Bytes`.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Large")]
pub struct LargeRef<'a> {
    #[thrift(id = 1, required)]
    pub id: i64,
    #[thrift(id = 2, required)]
    pub name: &'a str,
    #[thrift(id = 3, required)]
    pub mediums: Vec<MediumRef<'a>>,
    #[thrift(id = 4, required)]
    pub blob: Bytes,
}

/// [`Small`] with owned strings and binary that share the input `Bytes` when decoded from one.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Small")]
pub struct SmallShared {
    #[thrift(id = 1, required)]
    pub id: i32,
    #[thrift(id = 2, required)]
    pub timestamp: i64,
    #[thrift(id = 3, required)]
    pub flags: i16,
    #[thrift(id = 4, required)]
    pub level: i8,
    #[thrift(id = 5, required)]
    pub active: bool,
    #[thrift(id = 6, required)]
    pub score: f64,
    #[thrift(id = 7, required)]
    pub count: i32,
    #[thrift(id = 8, required)]
    pub sequence: i64,
    #[thrift(id = 9, required)]
    pub ratio: f64,
    #[thrift(id = 10, required)]
    pub archived: bool,
    #[thrift(id = 11, required)]
    pub name: SharedStr,
    #[thrift(id = 12, required)]
    pub label: SharedStr,
    #[thrift(id = 13, required)]
    pub token: Bytes,
}

/// [`Medium`] with [`SharedStr`] strings.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Medium")]
pub struct MediumShared {
    #[thrift(id = 1, required)]
    pub id: i64,
    #[thrift(id = 2, required)]
    pub title: SharedStr,
    #[thrift(id = 3, required)]
    pub values: Vec<i64>,
    #[thrift(id = 4, required)]
    pub names: Vec<SharedStr>,
    #[thrift(id = 5, required)]
    pub attributes: BTreeMap<SharedStr, SharedStr>,
    #[thrift(id = 6, required)]
    pub tags: BTreeSet<i32>,
    #[thrift(id = 7, required)]
    pub items: Vec<SmallShared>,
    #[thrift(id = 8)]
    pub note: Option<SharedStr>,
    #[thrift(id = 9)]
    pub parent: Option<i64>,
    #[thrift(id = 10)]
    pub weight: Option<f64>,
}

/// [`Large`] with [`SharedStr`] strings and a `Bytes` blob.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(name = "Large")]
pub struct LargeShared {
    #[thrift(id = 1, required)]
    pub id: i64,
    #[thrift(id = 2, required)]
    pub name: SharedStr,
    #[thrift(id = 3, required)]
    pub mediums: Vec<MediumShared>,
    #[thrift(id = 4, required)]
    pub blob: Bytes,
}

fn shared(s: &str) -> SharedStr {
    SharedStr::from(s.to_owned())
}

impl Small {
    /// The owned zero-copy form of this value (strings and binary copied once).
    pub fn shared(&self) -> SmallShared {
        SmallShared {
            id: self.id,
            timestamp: self.timestamp,
            flags: self.flags,
            level: self.level,
            active: self.active,
            score: self.score,
            count: self.count,
            sequence: self.sequence,
            ratio: self.ratio,
            archived: self.archived,
            name: shared(&self.name),
            label: shared(&self.label),
            token: Bytes::copy_from_slice(&self.token),
        }
    }

    /// The zero-copy view of this value.
    pub fn borrowed(&self) -> SmallRef<'_> {
        SmallRef {
            id: self.id,
            timestamp: self.timestamp,
            flags: self.flags,
            level: self.level,
            active: self.active,
            score: self.score,
            count: self.count,
            sequence: self.sequence,
            ratio: self.ratio,
            archived: self.archived,
            name: &self.name,
            label: &self.label,
            token: &self.token,
        }
    }
}

impl Medium {
    /// The owned zero-copy form of this value.
    pub fn shared(&self) -> MediumShared {
        MediumShared {
            id: self.id,
            title: shared(&self.title),
            values: self.values.clone(),
            names: self.names.iter().map(|s| shared(s)).collect(),
            attributes: self.attributes.iter().map(|(k, v)| (shared(k), shared(v))).collect(),
            tags: self.tags.clone(),
            items: self.items.iter().map(Small::shared).collect(),
            note: self.note.as_deref().map(shared),
            parent: self.parent,
            weight: self.weight,
        }
    }

    /// The zero-copy view of this value.
    pub fn borrowed(&self) -> MediumRef<'_> {
        MediumRef {
            id: self.id,
            title: &self.title,
            values: self.values.clone(),
            names: self.names.iter().map(String::as_str).collect(),
            attributes: self.attributes.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
            tags: self.tags.clone(),
            items: self.items.iter().map(Small::borrowed).collect(),
            note: self.note.as_deref(),
            parent: self.parent,
            weight: self.weight,
        }
    }
}

impl Large {
    /// The owned zero-copy form of this value.
    pub fn shared(&self) -> LargeShared {
        LargeShared {
            id: self.id,
            name: shared(&self.name),
            mediums: self.mediums.iter().map(Medium::shared).collect(),
            blob: Bytes::copy_from_slice(&self.blob),
        }
    }

    /// The zero-copy view of this value (the blob copied once into a `Bytes`).
    pub fn borrowed(&self) -> LargeRef<'_> {
        LargeRef {
            id: self.id,
            name: &self.name,
            mediums: self.mediums.iter().map(Medium::borrowed).collect(),
            blob: Bytes::copy_from_slice(&self.blob),
        }
    }
}
