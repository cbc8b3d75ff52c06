//! A column chunk's metadata: `ColumnMetaData`, `Statistics`, `PageEncodingStats`,
//! `SizeStatistics` and the geospatial statistics. Field ids are parquet.thrift's.

use thrift_core::ThriftStruct;

use super::enums::{CompressionCodec, Encoding, PageType, Type};
use super::file::KeyValue;

/// A column chunk's metadata (`ColumnMetaData`): `S` is the string type, `B` the binary
/// type.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(bound = "L: Default")]
pub struct ColumnMetaData<S, B, L = Vec<S>, E = Vec<Encoding>> {
    /// The physical type.
    #[thrift(id = 1, required, name = "type")]
    pub physical_type: Type,
    /// Every encoding the chunk's pages use.
    #[thrift(id = 2, required)]
    pub encodings: E,
    /// The column's path from the root. Required in parquet.thrift, but newer writers may
    /// leave it out (arrow-rs's `set_write_path_in_schema(false)`), so here it is of
    /// default requiredness: empty when absent.
    #[thrift(id = 3)]
    pub path_in_schema: L,
    /// The compression.
    #[thrift(id = 4, required)]
    pub codec: CompressionCodec,
    /// Values, nulls included.
    #[thrift(id = 5, required)]
    pub num_values: i64,
    /// Bytes of the pages, headers included, uncompressed.
    #[thrift(id = 6, required)]
    pub total_uncompressed_size: i64,
    /// Bytes of the pages, headers included, compressed.
    #[thrift(id = 7, required)]
    pub total_compressed_size: i64,
    /// Application metadata.
    #[thrift(id = 8)]
    pub key_value_metadata: Option<Vec<KeyValue<S>>>,
    /// The offset of the first data page.
    #[thrift(id = 9, required)]
    pub data_page_offset: i64,
    /// The offset of the index page, if any.
    #[thrift(id = 10)]
    pub index_page_offset: Option<i64>,
    /// The offset of the dictionary page, if any.
    #[thrift(id = 11)]
    pub dictionary_page_offset: Option<i64>,
    /// The chunk's statistics.
    #[thrift(id = 12)]
    pub statistics: Option<Statistics<B>>,
    /// Pages per page type and encoding.
    #[thrift(id = 13)]
    pub encoding_stats: Option<Vec<PageEncodingStats>>,
    /// The offset of the bloom filter, if any.
    #[thrift(id = 14)]
    pub bloom_filter_offset: Option<i64>,
    /// The bloom filter's length.
    #[thrift(id = 15)]
    pub bloom_filter_length: Option<i32>,
    /// Sizes and level histograms.
    #[thrift(id = 16)]
    pub size_statistics: Option<SizeStatistics>,
    /// Bounding box and geometry types of a geospatial column.
    #[thrift(id = 17)]
    pub geospatial_statistics: Option<GeospatialStatistics>,
}

/// A chunk's or page's statistics (`Statistics`); `B` is the binary type. `min`/`max` are
/// the deprecated signed-order copies, `min_value`/`max_value` the ones in the column's order.
#[allow(missing_docs)]
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct Statistics<B> {
    #[thrift(id = 1)]
    pub max: Option<B>,
    #[thrift(id = 2)]
    pub min: Option<B>,
    #[thrift(id = 3)]
    pub null_count: Option<i64>,
    #[thrift(id = 4)]
    pub distinct_count: Option<i64>,
    #[thrift(id = 5)]
    pub max_value: Option<B>,
    #[thrift(id = 6)]
    pub min_value: Option<B>,
    #[thrift(id = 7)]
    pub is_max_value_exact: Option<bool>,
    #[thrift(id = 8)]
    pub is_min_value_exact: Option<bool>,
    #[thrift(id = 9)]
    pub nan_count: Option<i64>,
}

/// Pages of one type and encoding in a chunk (`PageEncodingStats`).
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageEncodingStats {
    /// The page type.
    #[thrift(id = 1, required)]
    pub page_type: PageType,
    /// The encoding.
    #[thrift(id = 2, required)]
    pub encoding: Encoding,
    /// How many pages.
    #[thrift(id = 3, required)]
    pub count: i32,
}

/// A chunk's unencoded size and level histograms (`SizeStatistics`).
#[derive(ThriftStruct, Debug, Clone, PartialEq, Eq)]
pub struct SizeStatistics {
    /// Bytes of `BYTE_ARRAY` values before encoding, lengths excluded.
    #[thrift(id = 1)]
    pub unencoded_byte_array_data_bytes: Option<i64>,
    /// Values per repetition level.
    #[thrift(id = 2)]
    pub repetition_level_histogram: Option<Vec<i64>>,
    /// Values per definition level.
    #[thrift(id = 3)]
    pub definition_level_histogram: Option<Vec<i64>>,
}

/// A geospatial column's bounding box (`BoundingBox`).
#[allow(missing_docs)]
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq)]
pub struct BoundingBox {
    #[thrift(id = 1, required)]
    pub xmin: f64,
    #[thrift(id = 2, required)]
    pub xmax: f64,
    #[thrift(id = 3, required)]
    pub ymin: f64,
    #[thrift(id = 4, required)]
    pub ymax: f64,
    #[thrift(id = 5)]
    pub zmin: Option<f64>,
    #[thrift(id = 6)]
    pub zmax: Option<f64>,
    #[thrift(id = 7)]
    pub mmin: Option<f64>,
    #[thrift(id = 8)]
    pub mmax: Option<f64>,
}

/// A geospatial column's statistics (`GeospatialStatistics`).
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct GeospatialStatistics {
    /// The bounding box.
    #[thrift(id = 1)]
    pub bbox: Option<BoundingBox>,
    /// The WKB geometry type codes present.
    #[thrift(id = 2)]
    pub geospatial_types: Option<Vec<i32>>,
}
