//! Parquet footers (`FileMetaData`, parquet.thrift's field ids, compact protocol) as this
//! project's derived types, for the benchmark against arrow-rs's own footer decoder (bin
//! `footer-compare`) and the `footer` test.
//!
//! One set of types, generic over the string type `S`, the binary type `B` and the types of
//! a column chunk's two small lists (`L`, its path, and `E`, its encodings: `Vec`s unless
//! said), gives the four families: [`Footer`] borrows from the input, [`LazyFooter`] too with
//! those lists as `LazyList`s, [`OwnedFooter`] copies into `String`s and `Vec<u8>`s,
//! [`SharedFooter`] shares the input `Bytes` (decode it with `thrift_core::from_bytes`).
//! Enums are open and unions have an unknown variant, so a newer writer's values decode.

mod agree;
mod column;
mod enums;
mod file;
mod generate;
mod heap;
mod row_group;
mod schema;

use bytes::Bytes;
use thrift_core::{LazyList, SharedStr};

pub use agree::{assert_agrees, PathParts};
pub use column::{BoundingBox, ColumnMetaData, GeospatialStatistics, PageEncodingStats, SizeStatistics, Statistics};
pub use enums::{
    CompressionCodec, ConvertedType, EdgeInterpolationAlgorithm, Encoding, FieldRepetitionType, PageType, Type,
};
pub use file::{FileMetaData, KeyValue};
pub use generate::{footer, footer_of, parquet_file, ROWS, ROW_GROUPS};
pub use heap::HeapSize;
pub use row_group::{ColumnChunk, RowGroup, SortingColumn};
pub use schema::{
    ColumnOrder, DecimalType, Empty, GeographyType, GeometryType, IntType, LogicalType, SchemaElement, TimeType,
    TimeUnit, VariantType,
};

/// A footer borrowing its strings and binaries from the input (zero-copy).
pub type Footer<'a> = FileMetaData<&'a str, &'a [u8]>;
/// A footer borrowing from the input whose small lists of strings and enums (each column
/// chunk's `path_in_schema` and `encodings`) are [`LazyList`]s: no allocation for them.
pub type LazyFooter<'a> = FileMetaData<&'a str, &'a [u8], LazyList<'a, &'a str>, LazyList<'a, Encoding>>;
/// A footer owning copies of its strings and binaries.
pub type OwnedFooter = FileMetaData<String, Vec<u8>>;
/// A footer whose strings and binaries share the input `Bytes` (owned, no copy).
pub type SharedFooter = FileMetaData<SharedStr, Bytes>;
