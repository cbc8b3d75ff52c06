//! Every type of Apache's `ThriftTest.thrift`, as plain Rust types with the derives.
//!
//! IDL names are kept where Rust spells them differently (`userMap`, `errorCode`, `type`),
//! so the exported IDL, and the Python code generated from it, read like Apache's file.
//! Sets and maps are `BTreeSet`/`BTreeMap`: their values order and hash, so `Insanity` can
//! sit in a set and be a map key, as `CrazyNesting` asks.

use std::collections::{BTreeMap, BTreeSet};

use thrift_core::{ThriftEnum, ThriftStruct, ThriftUnion};

/// Docstring! The enum every language's test client sends back and forth.
#[derive(ThriftEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[thrift(closed)]
pub enum Numberz {
    /// 1
    #[thrift(name = "ONE")]
    One = 1,
    /// 2
    #[thrift(name = "TWO")]
    Two = 2,
    /// 3
    #[thrift(name = "THREE")]
    Three = 3,
    /// 5
    #[thrift(name = "FIVE")]
    Five = 5,
    /// 6
    #[thrift(name = "SIX")]
    Six = 6,
    /// 8
    #[thrift(name = "EIGHT")]
    Eight = 8,
}

/// `typedef i64 UserId`: a typedef is only a name, so the IDL shows `i64`.
pub type UserId = i64;

/// `typedef map<string,Bonk> MapType`.
pub type MapType = BTreeMap<String, Bonk>;

/// A message and its type.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Bonk {
    /// Field 1.
    #[thrift(id = 1)]
    pub message: String,
    /// Field 2, `type` in the IDL.
    #[thrift(id = 2, name = "type")]
    pub kind: i32,
}

/// Two booleans.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Bools {
    /// Field 1.
    #[thrift(id = 1)]
    pub im_true: bool,
    /// Field 2.
    #[thrift(id = 2)]
    pub im_false: bool,
}

/// The struct most test methods carry.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Xtruct {
    /// Field 1.
    #[thrift(id = 1)]
    pub string_thing: String,
    /// Field 4.
    #[thrift(id = 4)]
    pub byte_thing: i8,
    /// Field 9.
    #[thrift(id = 9)]
    pub i32_thing: i32,
    /// Field 11.
    #[thrift(id = 11)]
    pub i64_thing: i64,
}

/// An `Xtruct` nested in another struct.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Xtruct2 {
    /// Field 1.
    #[thrift(id = 1)]
    pub byte_thing: i8,
    /// Field 2.
    #[thrift(id = 2)]
    pub struct_thing: Xtruct,
    /// Field 3.
    #[thrift(id = 3)]
    pub i32_thing: i32,
}

/// `Xtruct` with field 4 of another type.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Xtruct3 {
    /// Field 1.
    #[thrift(id = 1)]
    pub string_thing: String,
    /// Field 4.
    #[thrift(id = 4)]
    pub changed: i32,
    /// Field 9.
    #[thrift(id = 9)]
    pub i32_thing: i32,
    /// Field 11.
    #[thrift(id = 11)]
    pub i64_thing: i64,
}

/// The value `testInsanity` sends and returns nested in maps.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Insanity {
    /// Field 1.
    #[thrift(id = 1, name = "userMap")]
    pub user_map: BTreeMap<Numberz, UserId>,
    /// Field 2.
    #[thrift(id = 2)]
    pub xtructs: Vec<Xtruct>,
}

/// The deepest nesting of the file: `list<map<set<i32>, map<i32,set<list<map<Insanity,string>>>>>>`.
pub type CrazyList = Vec<BTreeMap<BTreeSet<i32>, BTreeMap<i32, BTreeSet<Vec<BTreeMap<Insanity, String>>>>>>;

/// Containers of structs in containers, a required field among them.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct CrazyNesting {
    /// Field 1.
    #[thrift(id = 1)]
    pub string_field: String,
    /// Field 2.
    #[thrift(id = 2)]
    pub set_field: Option<BTreeSet<Insanity>>,
    /// Field 3.
    #[thrift(id = 3, required)]
    pub list_field: CrazyList,
    /// Field 4.
    #[thrift(id = 4)]
    pub binary_field: Vec<u8>,
}

/// One of five things.
#[derive(ThriftUnion, Debug, Clone, PartialEq, Eq)]
#[thrift(closed)]
pub enum SomeUnion {
    /// Field 1.
    #[thrift(id = 1, name = "map_thing")]
    MapThing(BTreeMap<Numberz, UserId>),
    /// Field 2.
    #[thrift(id = 2, name = "string_thing")]
    StringThing(String),
    /// Field 3.
    #[thrift(id = 3, name = "i32_thing")]
    I32Thing(i32),
    /// Field 4.
    #[thrift(id = 4, name = "xtruct_thing")]
    XtructThing(Xtruct3),
    /// Field 5.
    #[thrift(id = 5, name = "insanity_thing")]
    InsanityThing(Insanity),
}

/// The exception `testException` and `testMultiException` throw.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
#[thrift(exception)]
pub struct Xception {
    /// Field 1.
    #[thrift(id = 1, name = "errorCode")]
    pub error_code: i32,
    /// Field 2.
    #[thrift(id = 2)]
    pub message: String,
}

/// The second exception of `testMultiException`.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
#[thrift(exception)]
pub struct Xception2 {
    /// Field 1.
    #[thrift(id = 1, name = "errorCode")]
    pub error_code: i32,
    /// Field 2.
    #[thrift(id = 2)]
    pub struct_thing: Xtruct,
}

/// No fields at all.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct EmptyStruct {}

/// One field holding an empty struct.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OneField {
    /// Field 1.
    #[thrift(id = 1)]
    pub field: EmptyStruct,
}

/// The old version of a struct that gained fields: readers of either version skip what
/// they do not know.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct VersioningTestV1 {
    /// Field 1.
    #[thrift(id = 1)]
    pub begin_in_both: i32,
    /// Field 3.
    #[thrift(id = 3)]
    pub old_string: String,
    /// Field 12.
    #[thrift(id = 12)]
    pub end_in_both: i32,
}

/// The new version of `VersioningTestV1`: field 3 changed type, fields were added.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct VersioningTestV2 {
    /// Field 1.
    #[thrift(id = 1)]
    pub begin_in_both: i32,
    /// Field 2.
    #[thrift(id = 2)]
    pub newint: i32,
    /// Field 3.
    #[thrift(id = 3)]
    pub newbyte: i8,
    /// Field 4.
    #[thrift(id = 4)]
    pub newshort: i16,
    /// Field 5.
    #[thrift(id = 5)]
    pub newlong: i64,
    /// Field 6.
    #[thrift(id = 6)]
    pub newdouble: f64,
    /// Field 7.
    #[thrift(id = 7)]
    pub newstruct: Bonk,
    /// Field 8.
    #[thrift(id = 8)]
    pub newlist: Vec<i32>,
    /// Field 9.
    #[thrift(id = 9)]
    pub newset: BTreeSet<i32>,
    /// Field 10.
    #[thrift(id = 10)]
    pub newmap: BTreeMap<i32, i32>,
    /// Field 11.
    #[thrift(id = 11)]
    pub newstring: String,
    /// Field 12.
    #[thrift(id = 12)]
    pub end_in_both: i32,
}

/// A list of integers, later read as a list of strings (`ListTypeVersioningV2`).
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct ListTypeVersioningV1 {
    /// Field 1.
    #[thrift(id = 1)]
    pub myints: Vec<i32>,
    /// Field 2.
    #[thrift(id = 2)]
    pub hello: String,
}

/// `ListTypeVersioningV1` with field 1 of another element type.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct ListTypeVersioningV2 {
    /// Field 1.
    #[thrift(id = 1)]
    pub strings: Vec<String>,
    /// Field 2.
    #[thrift(id = 2)]
    pub hello: String,
}

/// A struct whose first field id is not 1.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct GuessProtocolStruct {
    /// Field 7.
    #[thrift(id = 7)]
    pub map_field: BTreeMap<String, String>,
}

/// Field ids far apart: compact's long field headers.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
pub struct LargeDeltas {
    /// Field 1.
    #[thrift(id = 1)]
    pub b1: Bools,
    /// Field 10.
    #[thrift(id = 10)]
    pub b10: Bools,
    /// Field 100.
    #[thrift(id = 100)]
    pub b100: Bools,
    /// Field 500.
    #[thrift(id = 500)]
    pub check_true: bool,
    /// Field 1000.
    #[thrift(id = 1000)]
    pub b1000: Bools,
    /// Field 1500.
    #[thrift(id = 1500)]
    pub check_false: bool,
    /// Field 2000.
    #[thrift(id = 2000)]
    pub vertwo2000: VersioningTestV2,
    /// Field 2500.
    #[thrift(id = 2500)]
    pub a_set2500: BTreeSet<String>,
    /// Field 3000.
    #[thrift(id = 3000)]
    pub vertwo3000: VersioningTestV2,
    /// Field 4000.
    #[thrift(id = 4000)]
    pub big_numbers: Vec<i32>,
}

/// Lists of lists.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct NestedListsI32x2 {
    /// Field 1.
    #[thrift(id = 1)]
    pub integerlist: Vec<Vec<i32>>,
}

/// Lists of lists of lists.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct NestedListsI32x3 {
    /// Field 1.
    #[thrift(id = 1)]
    pub integerlist: Vec<Vec<Vec<i32>>>,
}

/// Sets in lists and maps.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct NestedMixedx2 {
    /// Field 1.
    #[thrift(id = 1)]
    pub int_set_list: Vec<BTreeSet<i32>>,
    /// Field 2.
    #[thrift(id = 2)]
    pub map_int_strset: BTreeMap<i32, BTreeSet<String>>,
    /// Field 3.
    #[thrift(id = 3)]
    pub map_int_strset_list: Vec<BTreeMap<i32, BTreeSet<String>>>,
}

/// A list of structs.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct ListBonks {
    /// Field 1.
    #[thrift(id = 1)]
    pub bonk: Vec<Bonk>,
}

/// Structs three lists deep.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct NestedListsBonk {
    /// Field 1.
    #[thrift(id = 1)]
    pub bonk: Vec<Vec<Vec<Bonk>>>,
}

/// Optional fields that Apache declares with defaults (`b = true`, `s = "true"`).
///
/// The derive gives an `Option` field no default (it is `None` when absent), so these
/// are plain optionals: the wire is the same, only the value a reader assumes when the
/// field is absent differs.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct BoolTest {
    /// Field 1.
    #[thrift(id = 1)]
    pub b: Option<bool>,
    /// Field 2.
    #[thrift(id = 2)]
    pub s: Option<String>,
}

/// One required string.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct StructA {
    /// Field 1.
    #[thrift(id = 1, required)]
    pub s: String,
}

/// An optional and a required struct.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct StructB {
    /// Field 1.
    #[thrift(id = 1)]
    pub aa: Option<StructA>,
    /// Field 2.
    #[thrift(id = 2, required)]
    pub ab: StructA,
}

/// An optional set Apache gives the default `["test"]` (see [`BoolTest`] on defaults).
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct OptionalSetDefaultTest {
    /// Field 1.
    #[thrift(id = 1)]
    pub with_default: Option<BTreeSet<String>>,
}

/// Binary values as set elements and map keys.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq, Default)]
pub struct OptionalBinary {
    /// Field 1.
    #[thrift(id = 1)]
    pub bin_set: Option<BTreeSet<Vec<u8>>>,
    /// Field 2.
    #[thrift(id = 2)]
    pub bin_map: Option<BTreeMap<Vec<u8>, i32>>,
}
