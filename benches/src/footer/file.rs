//! The footer's root, `FileMetaData`, and `KeyValue`. Field ids are parquet.thrift's.

use thrift_core::ThriftStruct;

use super::enums::Encoding;
use super::row_group::RowGroup;
use super::schema::{ColumnOrder, SchemaElement};

/// A Parquet file's footer (`FileMetaData`): `S` is the string type, `B` the binary type.
/// Encryption (field 8, `encryption_algorithm`) is not modelled: skipped when present.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
#[thrift(bound = "L: Default")]
pub struct FileMetaData<S, B, L = Vec<S>, E = Vec<Encoding>> {
    /// The format version.
    #[thrift(id = 1, required)]
    pub version: i32,
    /// The schema tree, flattened depth-first; the first element is the root.
    #[thrift(id = 2, required)]
    pub schema: Vec<SchemaElement<S>>,
    /// Rows in the file.
    #[thrift(id = 3, required)]
    pub num_rows: i64,
    /// The row groups.
    #[thrift(id = 4, required)]
    pub row_groups: Vec<RowGroup<S, B, L, E>>,
    /// Application metadata.
    #[thrift(id = 5)]
    pub key_value_metadata: Option<Vec<KeyValue<S>>>,
    /// The writer, as `name version (build hash)`.
    #[thrift(id = 6)]
    pub created_by: Option<S>,
    /// Per leaf column, the order its statistics use.
    #[thrift(id = 7)]
    pub column_orders: Option<Vec<ColumnOrder>>,
    /// With a plaintext footer of an encrypted file, the key of the footer's signature.
    #[thrift(id = 9)]
    pub footer_signing_key_metadata: Option<B>,
}

/// One application metadata entry (`KeyValue`).
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct KeyValue<S> {
    /// The key.
    #[thrift(id = 1, required)]
    pub key: S,
    /// The value, if any.
    #[thrift(id = 2)]
    pub value: Option<S>,
}
