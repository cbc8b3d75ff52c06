//! A footer's row groups: `RowGroup`, `SortingColumn`, `ColumnChunk`. Field ids are
//! parquet.thrift's.

use thrift_core::ThriftStruct;

use super::column::ColumnMetaData;
use super::enums::Encoding;

/// One row group (`RowGroup`): `S` is the string type, `B` the binary type.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(bound = "L: Default")]
pub struct RowGroup<S, B, L = Vec<S>, E = Vec<Encoding>> {
    /// One chunk per leaf column, in schema order.
    #[thrift(id = 1, required)]
    pub columns: Vec<ColumnChunk<S, B, L, E>>,
    /// Uncompressed bytes of all the columns' data.
    #[thrift(id = 2, required)]
    pub total_byte_size: i64,
    /// Rows in the group.
    #[thrift(id = 3, required)]
    pub num_rows: i64,
    /// The columns the rows are sorted by, if any.
    #[thrift(id = 4)]
    pub sorting_columns: Option<Vec<SortingColumn>>,
    /// The offset of the group's first page.
    #[thrift(id = 5)]
    pub file_offset: Option<i64>,
    /// Compressed bytes of all the columns' data.
    #[thrift(id = 6)]
    pub total_compressed_size: Option<i64>,
    /// The group's position in the file.
    #[thrift(id = 7)]
    pub ordinal: Option<i16>,
}

/// One sort key of a row group (`SortingColumn`).
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortingColumn {
    /// The leaf column's index.
    #[thrift(id = 1, required)]
    pub column_idx: i32,
    /// Descending rather than ascending.
    #[thrift(id = 2, required)]
    pub descending: bool,
    /// Nulls before the values rather than after.
    #[thrift(id = 3, required)]
    pub nulls_first: bool,
}

/// One column of one row group (`ColumnChunk`). Encryption (fields 8 and 9) is not
/// modelled: skipped when present.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(bound = "L: Default")]
pub struct ColumnChunk<S, B, L = Vec<S>, E = Vec<Encoding>> {
    /// The file holding the data, when not this one.
    #[thrift(id = 1)]
    pub file_path: Option<S>,
    /// Deprecated: the offset of the chunk's metadata (0 from current writers).
    #[thrift(id = 2, required)]
    pub file_offset: i64,
    /// The chunk's metadata.
    #[thrift(id = 3)]
    pub meta_data: Option<ColumnMetaData<S, B, L, E>>,
    /// Where the chunk's offset index is.
    #[thrift(id = 4)]
    pub offset_index_offset: Option<i64>,
    /// The offset index's length.
    #[thrift(id = 5)]
    pub offset_index_length: Option<i32>,
    /// Where the chunk's column index is.
    #[thrift(id = 6)]
    pub column_index_offset: Option<i64>,
    /// The column index's length.
    #[thrift(id = 7)]
    pub column_index_length: Option<i32>,
}
