//! The check that this project's decode of a footer agrees with arrow-rs's: run before any
//! timing (a decoder that reads less would look faster) and by the `footer` test.

use parquet::file::metadata::ParquetMetaData;
use parquet::schema::types::Type as ArrowType;

use thrift_core::LazyList;

use super::FileMetaData;

/// A column path's parts, whatever list holds them.
pub trait PathParts {
    /// The parts, root first.
    fn parts(&self) -> Vec<&str>;
}

impl<S: AsRef<str>> PathParts for Vec<S> {
    fn parts(&self) -> Vec<&str> {
        self.iter().map(AsRef::as_ref).collect()
    }
}

impl<'de> PathParts for LazyList<'de, &'de str> {
    fn parts(&self) -> Vec<&str> {
        self.iter().collect()
    }
}

/// The names of arrow-rs's schema tree, depth-first from the root: the order of the
/// footer's `schema` list.
fn schema_names(node: &ArrowType, out: &mut Vec<String>) {
    out.push(node.name().to_string());
    if node.is_group() {
        for child in node.get_fields() {
            schema_names(child, out);
        }
    }
}

/// Panics, saying where, unless `ours` and `arrow` (decodes of the same footer) agree on
/// the row count, the schema's names, the row groups, each column's path, value count,
/// sizes, offsets and statistics (min/max bytes and null count).
pub fn assert_agrees<S: AsRef<str>, B: AsRef<[u8]>, L: PathParts, E>(
    ours: &FileMetaData<S, B, L, E>,
    arrow: &ParquetMetaData,
) {
    let file = arrow.file_metadata();
    assert_eq!(ours.version, file.version(), "version");
    assert_eq!(ours.num_rows, file.num_rows(), "num_rows");
    assert_eq!(ours.created_by.as_ref().map(AsRef::as_ref), file.created_by(), "created_by");

    let mut names = Vec::new();
    schema_names(file.schema_descr().root_schema(), &mut names);
    let our_names: Vec<&str> = ours.schema.iter().map(|e| e.name.as_ref()).collect();
    assert_eq!(our_names, names, "schema names");

    let kv: Vec<(&str, Option<&str>)> = ours
        .key_value_metadata
        .iter()
        .flatten()
        .map(|kv| (kv.key.as_ref(), kv.value.as_ref().map(AsRef::as_ref)))
        .collect();
    let arrow_kv: Vec<(&str, Option<&str>)> =
        file.key_value_metadata().into_iter().flatten().map(|kv| (kv.key.as_str(), kv.value.as_deref())).collect();
    assert_eq!(kv, arrow_kv, "key_value_metadata");

    assert_eq!(ours.row_groups.len(), arrow.num_row_groups(), "row groups");
    for (g, (rg, arrow_rg)) in ours.row_groups.iter().zip(arrow.row_groups()).enumerate() {
        assert_eq!(rg.num_rows, arrow_rg.num_rows(), "row group {g}: num_rows");
        assert_eq!(rg.total_byte_size, arrow_rg.total_byte_size(), "row group {g}: total_byte_size");
        assert_eq!(rg.total_compressed_size, Some(arrow_rg.compressed_size()), "row group {g}: total_compressed_size");
        assert_eq!(rg.columns.len(), arrow_rg.num_columns(), "row group {g}: columns");
        for (c, (chunk, arrow_col)) in rg.columns.iter().zip(arrow_rg.columns()).enumerate() {
            let at = format!("row group {g}, column {c}");
            let meta = chunk.meta_data.as_ref().unwrap_or_else(|| panic!("{at}: no meta_data"));
            let path = meta.path_in_schema.parts();
            assert_eq!(path, arrow_col.column_path().parts(), "{at}: path_in_schema");
            assert_eq!(meta.num_values, arrow_col.num_values(), "{at}: num_values");
            assert_eq!(meta.total_compressed_size, arrow_col.compressed_size(), "{at}: total_compressed_size");
            assert_eq!(meta.total_uncompressed_size, arrow_col.uncompressed_size(), "{at}: total_uncompressed_size");
            assert_eq!(meta.data_page_offset, arrow_col.data_page_offset(), "{at}: data_page_offset");
            assert_eq!(meta.dictionary_page_offset, arrow_col.dictionary_page_offset(), "{at}: dictionary_page_offset");
            assert_eq!(chunk.offset_index_offset, arrow_col.offset_index_offset(), "{at}: offset_index_offset");
            assert_eq!(chunk.column_index_offset, arrow_col.column_index_offset(), "{at}: column_index_offset");
            let stats = meta.statistics.as_ref();
            let arrow_stats = arrow_col.statistics();
            assert_eq!(stats.is_some(), arrow_stats.is_some(), "{at}: statistics present");
            if let (Some(stats), Some(arrow_stats)) = (stats, arrow_stats) {
                let min = stats.min_value.as_ref().or(stats.min.as_ref()).map(AsRef::as_ref);
                let max = stats.max_value.as_ref().or(stats.max.as_ref()).map(AsRef::as_ref);
                assert_eq!(min, arrow_stats.min_bytes_opt(), "{at}: statistics min");
                assert_eq!(max, arrow_stats.max_bytes_opt(), "{at}: statistics max");
                assert_eq!(stats.null_count.map(|n| n as u64), arrow_stats.null_count_opt(), "{at}: null_count");
            }
        }
    }
}
