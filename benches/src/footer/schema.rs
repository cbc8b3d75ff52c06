//! The schema half of a footer: `SchemaElement`, the `LogicalType` union and what it holds,
//! and `ColumnOrder`. Field ids are parquet.thrift's.

use thrift_core::{ThriftStruct, ThriftUnion};

use super::enums::{ConvertedType, EdgeInterpolationAlgorithm, FieldRepetitionType, Type};

/// One node of the schema tree, flattened depth-first (`SchemaElement`); `S` is the string
/// type.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct SchemaElement<S> {
    /// The physical type; unset on a group.
    #[thrift(id = 1, name = "type")]
    pub physical_type: Option<Type>,
    /// `FIXED_LEN_BYTE_ARRAY`'s length, or the values' maximum bit length.
    #[thrift(id = 2)]
    pub type_length: Option<i32>,
    /// Unset only on the root.
    #[thrift(id = 3)]
    pub repetition_type: Option<FieldRepetitionType>,
    /// The node's name.
    #[thrift(id = 4, required)]
    pub name: S,
    /// A group's child count; unset on a leaf.
    #[thrift(id = 5)]
    pub num_children: Option<i32>,
    /// The deprecated annotation.
    #[thrift(id = 6)]
    pub converted_type: Option<ConvertedType>,
    /// A decimal's scale (deprecated with `converted_type`).
    #[thrift(id = 7)]
    pub scale: Option<i32>,
    /// A decimal's precision (deprecated with `converted_type`).
    #[thrift(id = 8)]
    pub precision: Option<i32>,
    /// The original schema's field id.
    #[thrift(id = 9)]
    pub field_id: Option<i32>,
    /// The annotation that replaces `converted_type`.
    #[thrift(id = 10, name = "logicalType")]
    pub logical_type: Option<LogicalType<S>>,
}

/// A struct with no fields: parquet.thrift's `StringType`, `MapType`, `ListType`,
/// `EnumType`, `DateType`, `NullType`, `JsonType`, `BsonType`, `UUIDType`, `Float16Type`,
/// the `TimeUnit` members and the `ColumnOrder` members are all empty on the wire.
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Empty {}

/// A decimal's scale and precision (`DecimalType`).
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecimalType {
    /// Digits after the point.
    #[thrift(id = 1, required)]
    pub scale: i32,
    /// Digits in all.
    #[thrift(id = 2, required)]
    pub precision: i32,
}

/// The unit of a time or timestamp (`TimeUnit`).
#[allow(missing_docs)]
#[derive(ThriftUnion, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    #[thrift(id = 1, name = "MILLIS")]
    Millis(Empty),
    #[thrift(id = 2, name = "MICROS")]
    Micros(Empty),
    #[thrift(id = 3, name = "NANOS")]
    Nanos(Empty),
    /// A unit this side does not know: the id of its member.
    #[thrift(unknown)]
    Unknown(i16),
}

/// A time or timestamp's unit and whether it is UTC-adjusted (`TimeType`, `TimestampType`).
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeType {
    /// Whether the values are adjusted to UTC.
    #[thrift(id = 1, required, name = "isAdjustedToUTC")]
    pub is_adjusted_to_utc: bool,
    /// The unit.
    #[thrift(id = 2, required)]
    pub unit: TimeUnit,
}

/// An integer's width and signedness (`IntType`).
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntType {
    /// 8, 16, 32 or 64.
    #[thrift(id = 1, required, name = "bitWidth")]
    pub bit_width: i8,
    /// Signed or not.
    #[thrift(id = 2, required, name = "isSigned")]
    pub is_signed: bool,
}

/// A variant's specification version (`VariantType`).
#[derive(ThriftStruct, Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariantType {
    /// The version the values were written with.
    #[thrift(id = 1)]
    pub specification_version: Option<i8>,
}

/// A geometry's coordinate reference system (`GeometryType`).
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct GeometryType<S> {
    /// The CRS; `OGC:CRS84` when unset.
    #[thrift(id = 1)]
    pub crs: Option<S>,
}

/// A geography's CRS and edge interpolation (`GeographyType`).
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
pub struct GeographyType<S> {
    /// The CRS; `OGC:CRS84` when unset.
    #[thrift(id = 1)]
    pub crs: Option<S>,
    /// The edge interpolation; spherical when unset.
    #[thrift(id = 2)]
    pub algorithm: Option<EdgeInterpolationAlgorithm>,
}

/// A schema node's annotation (`LogicalType`); `S` is the string type.
#[allow(missing_docs)]
#[derive(ThriftUnion, Debug, Clone, PartialEq)]
pub enum LogicalType<S> {
    #[thrift(id = 1, name = "STRING")]
    String(Empty),
    #[thrift(id = 2, name = "MAP")]
    Map(Empty),
    #[thrift(id = 3, name = "LIST")]
    List(Empty),
    #[thrift(id = 4, name = "ENUM")]
    Enum(Empty),
    #[thrift(id = 5, name = "DECIMAL")]
    Decimal(DecimalType),
    #[thrift(id = 6, name = "DATE")]
    Date(Empty),
    #[thrift(id = 7, name = "TIME")]
    Time(TimeType),
    #[thrift(id = 8, name = "TIMESTAMP")]
    Timestamp(TimeType),
    #[thrift(id = 10, name = "INTEGER")]
    Integer(IntType),
    #[thrift(id = 11, name = "UNKNOWN")]
    Null(Empty),
    #[thrift(id = 12, name = "JSON")]
    Json(Empty),
    #[thrift(id = 13, name = "BSON")]
    Bson(Empty),
    #[thrift(id = 14, name = "UUID")]
    Uuid(Empty),
    #[thrift(id = 15, name = "FLOAT16")]
    Float16(Empty),
    #[thrift(id = 16, name = "VARIANT")]
    Variant(VariantType),
    #[thrift(id = 17, name = "GEOMETRY")]
    Geometry(GeometryType<S>),
    #[thrift(id = 18, name = "GEOGRAPHY")]
    Geography(GeographyType<S>),
    /// A logical type this side does not know (a newer writer's): the id of its member,
    /// whose value was skipped.
    #[thrift(unknown)]
    Unknown(i16),
}

/// How a column's statistics are ordered (`ColumnOrder`).
#[allow(missing_docs)]
#[derive(ThriftUnion, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnOrder {
    #[thrift(id = 1, name = "TYPE_ORDER")]
    TypeOrder(Empty),
    #[thrift(id = 2, name = "IEEE_754_TOTAL_ORDER")]
    Ieee754TotalOrder(Empty),
    #[thrift(id = 3, name = "INT96_TIMESTAMP_ORDER")]
    Int96TimestampOrder(Empty),
    /// An order this side does not know: the id of its member.
    #[thrift(unknown)]
    Unknown(i16),
}
