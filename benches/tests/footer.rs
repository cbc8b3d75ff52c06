//! This project's derived Parquet footer types (`thrift_benches::footer`) against
//! arrow-rs's decoder, on footers arrow-rs writes: every family decodes to what arrow-rs
//! reads, and re-encoding a decoded footer decodes back to an equal value.
//!
//! `cargo test -p thrift-benches --features parquet --test footer`
#![cfg(feature = "parquet")]

use bytes::Bytes;
use parquet::file::metadata::ParquetMetaDataReader;
use thrift_benches::footer::{self, Footer, LazyFooter, OwnedFooter, SharedFooter};
use thrift_core::Compact;

/// Decodes a footer of `columns` leaf columns with every family, checks each against
/// arrow-rs and that it survives re-encoding.
fn agrees_and_roundtrips(columns: usize) {
    let file = footer::parquet_file(columns);
    let bytes = footer::footer_of(&file);
    let arrow = ParquetMetaDataReader::decode_metadata(bytes).expect("arrow-rs decodes");
    assert_eq!(arrow.row_groups()[0].num_columns(), columns);

    let borrowed: Footer<'_> = thrift_core::from_slice::<Compact, _>(bytes).expect("borrowed decodes");
    footer::assert_agrees(&borrowed, &arrow);
    let again = thrift_core::to_vec::<Compact, _>(&borrowed);
    assert_eq!(thrift_core::from_slice::<Compact, Footer<'_>>(&again).expect("re-encoded decodes"), borrowed);

    let lazy: LazyFooter<'_> = thrift_core::from_slice::<Compact, _>(bytes).expect("lazy decodes");
    footer::assert_agrees(&lazy, &arrow);
    // Its lists re-encode as the bytes they came from: the footer encodes as the borrowed one.
    assert_eq!(thrift_core::to_vec::<Compact, _>(&lazy), thrift_core::to_vec::<Compact, _>(&borrowed));
    let again = thrift_core::to_vec::<Compact, _>(&lazy);
    assert_eq!(thrift_core::from_slice::<Compact, LazyFooter<'_>>(&again).expect("re-encoded decodes"), lazy);

    let owned: OwnedFooter = thrift_core::from_slice::<Compact, _>(bytes).expect("owned decodes");
    footer::assert_agrees(&owned, &arrow);
    let again = thrift_core::to_vec::<Compact, _>(&owned);
    assert_eq!(thrift_core::from_slice::<Compact, OwnedFooter>(&again).expect("re-encoded decodes"), owned);

    let input = Bytes::copy_from_slice(bytes);
    let shared: SharedFooter = thrift_core::from_bytes::<Compact, _>(&input).expect("shared decodes");
    footer::assert_agrees(&shared, &arrow);
    let again = Bytes::from(thrift_core::to_vec::<Compact, _>(&shared));
    assert_eq!(thrift_core::from_bytes::<Compact, SharedFooter>(&again).expect("re-encoded decodes"), shared);

    // Nothing arrow-rs wrote fell into an unknown variant: the models cover it.
    assert!(borrowed.schema.iter().all(|e| !matches!(e.logical_type, Some(footer::LogicalType::Unknown(_)))));
    assert!(borrowed.column_orders.iter().flatten().all(|o| !matches!(o, footer::ColumnOrder::Unknown(_))));
}

#[test]
fn footer_of_20_columns() {
    agrees_and_roundtrips(20);
}

#[test]
fn footer_of_300_columns() {
    agrees_and_roundtrips(300);
}
