//! [`HeapSize`]: the heap a decoded footer holds, to compare with what decoding asked the
//! allocator for (equal when every list reserved exactly its declared count).

use bytes::Bytes;
use thrift_core::{LazyList, SharedStr};

use super::column::{BoundingBox, ColumnMetaData, GeospatialStatistics, PageEncodingStats, SizeStatistics, Statistics};
use super::enums::{
    CompressionCodec, ConvertedType, EdgeInterpolationAlgorithm, Encoding, FieldRepetitionType, PageType, Type,
};
use super::file::{FileMetaData, KeyValue};
use super::row_group::{ColumnChunk, RowGroup, SortingColumn};
use super::schema::{
    ColumnOrder, DecimalType, Empty, GeographyType, GeometryType, IntType, LogicalType, SchemaElement, TimeType,
    TimeUnit, VariantType,
};

/// The heap bytes a value owns: each `Vec`'s `capacity * size_of::<T>()` and each
/// `String`'s capacity, summed through the tree. Borrowed strings and slices own none, nor
/// do [`SharedStr`] and [`Bytes`], which share the input's buffer.
pub trait HeapSize {
    /// The bytes this value owns on the heap, not counting its own size.
    fn heap_size(&self) -> usize;
}

/// Values that own no heap.
macro_rules! no_heap {
    ($($ty:ty),* $(,)?) => {$(
        impl HeapSize for $ty {
            fn heap_size(&self) -> usize {
                0
            }
        }
    )*};
}

no_heap!(bool, i8, i16, i32, i64, u8, f64, &str, &[u8], SharedStr, Bytes);
no_heap!(Type, ConvertedType, FieldRepetitionType, Encoding, CompressionCodec, PageType, EdgeInterpolationAlgorithm);
no_heap!(
    Empty,
    DecimalType,
    TimeUnit,
    TimeType,
    IntType,
    VariantType,
    ColumnOrder,
    SortingColumn,
    PageEncodingStats,
    BoundingBox
);

/// A borrowed list owns nothing: its elements are the input's bytes.
impl<T> HeapSize for LazyList<'_, T> {
    fn heap_size(&self) -> usize {
        0
    }
}

impl HeapSize for String {
    fn heap_size(&self) -> usize {
        self.capacity()
    }
}

impl<T: HeapSize> HeapSize for Vec<T> {
    fn heap_size(&self) -> usize {
        self.capacity() * size_of::<T>() + self.iter().map(HeapSize::heap_size).sum::<usize>()
    }
}

impl<T: HeapSize> HeapSize for Option<T> {
    fn heap_size(&self) -> usize {
        self.as_ref().map_or(0, HeapSize::heap_size)
    }
}

/// A struct's heap: the sum of its fields'.
macro_rules! fields_heap {
    ([$($param:ident),*] $ty:ty: $($field:ident),+) => {
        impl<$($param: HeapSize),*> HeapSize for $ty {
            fn heap_size(&self) -> usize {
                0 $(+ self.$field.heap_size())+
            }
        }
    };
}

fields_heap!([S, B, L, E] FileMetaData<S, B, L, E>: schema, row_groups, key_value_metadata, created_by, column_orders, footer_signing_key_metadata);
fields_heap!([S] KeyValue<S>: key, value);
fields_heap!([S] SchemaElement<S>: name, logical_type);
fields_heap!([S] GeometryType<S>: crs);
fields_heap!([S] GeographyType<S>: crs);
fields_heap!([S, B, L, E] RowGroup<S, B, L, E>: columns, sorting_columns);
fields_heap!([S, B, L, E] ColumnChunk<S, B, L, E>: file_path, meta_data);
fields_heap!([S, B, L, E] ColumnMetaData<S, B, L, E>: encodings, path_in_schema, key_value_metadata, statistics, encoding_stats, size_statistics, geospatial_statistics);
fields_heap!([B] Statistics<B>: max, min, max_value, min_value);
fields_heap!([] SizeStatistics: repetition_level_histogram, definition_level_histogram);
fields_heap!([] GeospatialStatistics: geospatial_types);

impl<S: HeapSize> HeapSize for LogicalType<S> {
    fn heap_size(&self) -> usize {
        match self {
            LogicalType::Geometry(g) => g.heap_size(),
            LogicalType::Geography(g) => g.heap_size(),
            _ => 0,
        }
    }
}
