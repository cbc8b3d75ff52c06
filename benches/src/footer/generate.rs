//! Footers made by arrow-rs's own writer: a file of `columns` leaf columns (a mix of
//! INT64, DOUBLE, INT32 `DATE`, INT64 `TIMESTAMP`, BYTE_ARRAY `STRING`/`UTF8`, some inside
//! optional groups), a few row groups of a few hundred rows, the default writer
//! properties (statistics on), then the footer cut from the file's end.

use std::fmt::Write as _;
use std::sync::Arc;

use parquet::data_type::ByteArray;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;

/// Row groups per generated file.
pub const ROW_GROUPS: usize = 4;
/// Rows per row group.
pub const ROWS: usize = 300;

/// What a leaf column holds.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Int64,
    Double,
    Date,
    Timestamp,
    Utf8,
}

/// A leaf column: its kind and how deep its definition levels go (0 for `REQUIRED` at the
/// top, 2 for `OPTIONAL` inside an `OPTIONAL` group).
#[derive(Clone, Copy, Debug)]
struct Leaf {
    kind: Kind,
    max_def: i16,
}

/// The schema text for `columns` leaves, and the leaves in schema order.
fn schema(columns: usize) -> (String, Vec<Leaf>) {
    let mut text = String::from("message footer_bench {\n");
    let mut leaves = Vec::with_capacity(columns);
    while leaves.len() < columns {
        let i = leaves.len();
        // Every 25th position, when two leaves are left to place, an optional group of two.
        if i % 25 == 10 && columns - i >= 2 {
            let _ = writeln!(
                text,
                "  OPTIONAL group g{i:04} {{\n    OPTIONAL INT64 id;\n    OPTIONAL BYTE_ARRAY label (STRING);\n  }}"
            );
            leaves.push(Leaf { kind: Kind::Int64, max_def: 2 });
            leaves.push(Leaf { kind: Kind::Utf8, max_def: 2 });
            continue;
        }
        let (kind, line) = match i % 6 {
            0 => (Kind::Int64, format!("REQUIRED INT64 c{i:04}_id;")),
            1 => (Kind::Double, format!("OPTIONAL DOUBLE c{i:04}_amount;")),
            2 => (Kind::Utf8, format!("OPTIONAL BYTE_ARRAY c{i:04}_name (STRING);")),
            3 => (Kind::Timestamp, format!("OPTIONAL INT64 c{i:04}_at (TIMESTAMP(MILLIS,true));")),
            4 => (Kind::Date, format!("OPTIONAL INT32 c{i:04}_day (DATE);")),
            _ => (Kind::Utf8, format!("OPTIONAL BYTE_ARRAY c{i:04}_code (UTF8);")),
        };
        let max_def = if i % 6 == 0 { 0 } else { 1 };
        let _ = writeln!(text, "  {line}");
        leaves.push(Leaf { kind, max_def });
    }
    text.push('}');
    (text, leaves)
}

/// Writes one row group's values of `leaf`: every seventh row null where the column is
/// optional, values that differ per column and row group so statistics differ too.
fn write_leaf(
    col: &mut SerializedColumnWriter<'_>,
    leaf: Leaf,
    column: usize,
    group: usize,
) -> parquet::errors::Result<()> {
    use parquet::column::writer::ColumnWriter;
    let defs: Vec<i16> =
        (0..ROWS).map(|row| if leaf.max_def > 0 && row % 7 == 3 { leaf.max_def - 1 } else { leaf.max_def }).collect();
    let present: Vec<usize> = (0..ROWS).filter(|&row| defs[row] == leaf.max_def).collect();
    let defs = (leaf.max_def > 0).then_some(&defs[..]);
    let seed = (column * 1_000 + group * 100_000) as i64;
    match (col.untyped(), leaf.kind) {
        (ColumnWriter::Int64ColumnWriter(w), Kind::Int64 | Kind::Timestamp) => {
            let values: Vec<i64> = present.iter().map(|&row| seed + row as i64 * 37 % 1_009).collect();
            w.write_batch(&values, defs, None)?;
        }
        (ColumnWriter::DoubleColumnWriter(w), Kind::Double) => {
            let values: Vec<f64> = present.iter().map(|&row| (seed + row as i64) as f64 * 0.25).collect();
            w.write_batch(&values, defs, None)?;
        }
        (ColumnWriter::Int32ColumnWriter(w), Kind::Date) => {
            let values: Vec<i32> = present.iter().map(|&row| 19_000 + (column + row) as i32 % 365).collect();
            w.write_batch(&values, defs, None)?;
        }
        (ColumnWriter::ByteArrayColumnWriter(w), Kind::Utf8) => {
            let values: Vec<ByteArray> = present
                .iter()
                .map(|&row| ByteArray::from(format!("v{column:04}-g{group}-{:05}", row * 13 % 257).as_str()))
                .collect();
            w.write_batch(&values, defs, None)?;
        }
        (_, kind) => panic!("column {column}: writer does not match {kind:?}"),
    }
    Ok(())
}

/// A whole Parquet file of `columns` leaf columns, written by arrow-rs.
pub fn parquet_file(columns: usize) -> Vec<u8> {
    let (text, leaves) = schema(columns);
    let schema = Arc::new(parse_message_type(&text).expect("generated schema parses"));
    let props = WriterProperties::builder()
        .set_key_value_metadata(Some(vec![KeyValue::new("footer.bench".to_string(), format!("{columns} columns"))]))
        .build();
    let mut writer = SerializedFileWriter::new(Vec::new(), schema, Arc::new(props)).expect("writer");
    for group in 0..ROW_GROUPS {
        let mut rg = writer.next_row_group().expect("row group");
        let mut column = 0;
        while let Some(mut col) = rg.next_column().expect("column") {
            write_leaf(&mut col, leaves[column], column, group).expect("write");
            col.close().expect("close column");
            column += 1;
        }
        assert_eq!(column, columns);
        rg.close().expect("close row group");
    }
    writer.into_inner().expect("finish file")
}

/// The footer (`FileMetaData`'s Thrift compact bytes) of a Parquet file: before the last 8
/// bytes, which are its length (u32, little-endian) and `PAR1`.
pub fn footer_of(file: &[u8]) -> &[u8] {
    let n = file.len();
    assert!(n >= 12 && &file[n - 4..] == b"PAR1", "not a Parquet file");
    let len = u32::from_le_bytes(file[n - 8..n - 4].try_into().expect("4 bytes")) as usize;
    &file[n - 8 - len..n - 8]
}

/// The footer of a generated file of `columns` leaf columns.
pub fn footer(columns: usize) -> Vec<u8> {
    footer_of(&parquet_file(columns)).to_vec()
}
