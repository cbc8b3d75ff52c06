// The three shapes the codec benchmarks encode and decode, for the peers' code generators
// (pilota-build and Apache's `thrift --gen rs`). benches/src/shapes.rs declares the same
// structs with this project's derives; the benchmarks check that all three agree on the
// bytes before timing anything.

namespace rs shapes

// About 150 bytes in the binary protocol: ten scalars, two short strings, a short binary.
struct Small {
  1: required i32 id
  2: required i64 timestamp
  3: required i16 flags
  4: required i8 level
  5: required bool active
  6: required double score
  7: required i32 count
  8: required i64 sequence
  9: required double ratio
  10: required bool archived
  11: required string name
  12: required string label
  13: required binary token
}

// About 5-6 KB: lists of i64 and strings, a string map, a set, ten small structs, and
// optional fields (one of them absent).
struct Medium {
  1: required i64 id
  2: required string title
  3: required list<i64> values
  4: required list<string> names
  5: required map<string, string> attributes
  6: required set<i32> tags
  7: required list<Small> items
  8: optional string note
  9: optional i64 parent
  10: optional double weight
}

// About 230 KB: thirty mediums and a 64 KiB binary.
struct Large {
  1: required i64 id
  2: required string name
  3: required list<Medium> mediums
  4: required binary blob
}
