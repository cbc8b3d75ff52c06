//! Parquet footers (`FileMetaData`, parquet.thrift's field ids, compact protocol) as this
//! project's derived types, for the benchmark against arrow-rs's own footer decoder (bin
//! `footer-compare`) and the `footer` test.
//!
//! One set of types, generic over the string type `S` and the binary type `B`, gives the
//! three families: [`Footer`] borrows from the input, [`OwnedFooter`] copies into
//! `String`s and `Vec<u8>`s, [`SharedFooter`] shares the input `Bytes` (decode it with
//! `thrift_core::from_bytes`). Enums are open and unions have an unknown variant, so a
//! newer writer's values decode.

mod agree;
mod column;
mod enums;
mod file;
mod generate;
mod heap;
mod row_group;
mod schema;

use bytes::Bytes;
use thrift_core::SharedStr;

pub use agree::assert_agrees;
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
/// A footer owning copies of its strings and binaries.
pub type OwnedFooter = FileMetaData<String, Vec<u8>>;
/// A footer whose strings and binaries share the input `Bytes` (owned, no copy).
pub type SharedFooter = FileMetaData<SharedStr, Bytes>;
