//! The one error type of decoding, with what failed and where.

use std::fmt;

use crate::wire::TType;

/// A specialized `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, without where; see [`Error`] for the place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended before a value was complete.
    #[error("truncated: needed {needed} more bytes, {remaining} remaining")]
    Truncated {
        /// Bytes the value needs.
        needed: usize,
        /// Bytes left in the input.
        remaining: usize,
    },
    /// A type id that no Thrift type has.
    #[error("invalid type id 0x{0:02x}")]
    InvalidType(u8),
    /// A container whose declared element, key or value type is not the one expected.
    #[error("container declares {found} elements, expected {expected}")]
    UnexpectedElementType {
        /// The type the Rust value needs.
        expected: TType,
        /// The type on the wire.
        found: TType,
    },
    /// A string that is not valid UTF-8.
    #[error("invalid UTF-8 in string")]
    InvalidUtf8,
    /// A negative length or element count.
    #[error("negative length {0}")]
    NegativeLength(i64),
    /// A length or count beyond a limit or beyond the bytes remaining.
    #[error("declared length {len} exceeds {limit} ({what})")]
    LengthTooLarge {
        /// The declared length.
        len: u64,
        /// The bound it broke.
        limit: u64,
        /// Which bound: `"bytes remaining"`, `"max_string_len"`, ...
        what: &'static str,
    },
    /// Nesting deeper than [`Limits::max_depth`](crate::Limits::max_depth).
    #[error("nesting deeper than the depth limit {0}")]
    DepthExceeded(u16),
    /// A varint longer than its type allows.
    #[error("varint too long")]
    VarintTooLong,
    /// A varint of allowed length whose value does not fit its type: for example a 32-bit
    /// varint whose fifth byte carries more than the 4 bits left, or an `i16` whose zigzag
    /// value needs more than 16 bits. An error rather than a silent truncation.
    #[error("varint value does not fit in {bits} bits")]
    VarintOverflow {
        /// The width of the type read (16, 32 or 64).
        bits: u8,
    },
    /// A required field absent from the input.
    #[error("missing required field {name} (id {id})")]
    MissingField {
        /// The field's IDL name.
        name: &'static str,
        /// The field id.
        id: i16,
    },
    /// A required field that arrived with another wire type than its Rust type's: it was
    /// there, but cannot be read as what this side expects (an incompatible schema change).
    #[error("wire type {found}, expected {expected}")]
    WrongFieldType {
        /// The wire type of the field's Rust type.
        expected: TType,
        /// The wire type the input declared.
        found: TType,
    },
    /// An enum value with no variant.
    #[error("unknown value {value} for enum {name}")]
    UnknownEnumValue {
        /// The enum's name.
        name: &'static str,
        /// The value on the wire.
        value: i32,
    },
    /// A union without exactly one known field set.
    #[error("union {name} has {count} fields set, expected exactly one")]
    InvalidUnion {
        /// The union's name.
        name: &'static str,
        /// How many fields the input set.
        count: usize,
    },
    /// A malformed message envelope.
    #[error("bad message envelope: {0}")]
    BadEnvelope(&'static str),
    /// An old-style binary envelope (name first, no version word) read with
    /// [`Limits::strict_binary_envelope`](crate::Limits::strict_binary_envelope) on.
    #[error("non-strict binary envelope rejected (strict mode)")]
    NonStrictEnvelope,
    /// Input left over after a complete value.
    #[error("{0} trailing bytes after the value")]
    TrailingBytes(usize),
    /// A value that decoded but breaks a rule of its type.
    #[error("invalid data: {0}")]
    InvalidData(String),
}

/// One step of the path to the place a decode failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathSegment {
    /// The struct, union or exception being decoded.
    pub container: &'static str,
    /// The field's IDL name.
    pub field: &'static str,
    /// The field id.
    pub id: i16,
}

/// A decoding error: what failed, at which byte offset, along which field path.
///
/// Displayed as `Outer.field (id 1) > Inner.name (id 2): invalid UTF-8 in string at offset 12`.
///
/// ```
/// use thrift_core::{Binary, Error, ErrorKind};
/// let err = thrift_core::from_slice::<Binary, String>(&[0, 0, 0, 9, b'h']).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::Truncated { .. }));
/// assert_eq!(err.offset(), Some(4));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    offset: Option<usize>,
    /// Innermost segment first; pushed as the error bubbles out.
    path: Vec<PathSegment>,
    /// Where the walker (skip, the scanner) was: set only on its errors.
    walk: Option<WalkPlace>,
}

/// The walker's place at an error: the token it was reading, how deep, in which field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WalkPlace {
    token: &'static str,
    depth: usize,
    field_id: Option<i16>,
}

impl Error {
    /// An error of this kind, with no place yet.
    #[cold]
    pub fn new(kind: ErrorKind) -> Error {
        Error(Box::new(Inner { kind, offset: None, path: Vec::new(), walk: None }))
    }

    /// An error of this kind at a byte offset.
    #[cold]
    pub fn at(kind: ErrorKind, offset: usize) -> Error {
        Error(Box::new(Inner { kind, offset: Some(offset), path: Vec::new(), walk: None }))
    }

    /// A missing required field of `container`.
    #[cold]
    pub(crate) fn missing_field(container: &'static str, name: &'static str, id: i16) -> Error {
        Error::new(ErrorKind::MissingField { name, id }).in_struct(container)
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The byte offset in the input where it went wrong, when known.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// The field path, outermost first.
    pub fn path(&self) -> impl Iterator<Item = &PathSegment> {
        self.0.path.iter().rev()
    }

    /// The token a skip or a [`Scanner`](crate::Scanner) was reading when it failed
    /// (`"field header"`, `"list header"`, `"i32"`, `"envelope"`...); `None` for errors of
    /// decoding.
    ///
    /// ```
    /// use thrift_core::{skip, Binary, ErrorKind, Reader, TType};
    /// // A struct whose field 1 is a list of -1 elements.
    /// let input = [0x0f, 0x00, 0x01, 0x08, 0xff, 0xff, 0xff, 0xff];
    /// let err = skip::<Binary>(&mut Reader::new(&input), TType::Struct).unwrap_err();
    /// assert_eq!(err.kind(), &ErrorKind::NegativeLength(-1));
    /// assert_eq!((err.token(), err.depth(), err.field_id()), (Some("list header"), Some(1), Some(1)));
    /// assert_eq!(err.to_string(), "negative length -1 at offset 3 (list header, depth 1, field id 1)");
    /// ```
    pub fn token(&self) -> Option<&'static str> {
        self.0.walk.map(|w| w.token)
    }

    /// How deep the walker (skip or a [`Scanner`](crate::Scanner)) was when it failed: the
    /// structs and containers open, counting those the reader had entered before a skip and,
    /// for the scanner, the message's own struct; `None` for errors of decoding.
    pub fn depth(&self) -> Option<usize> {
        self.0.walk.map(|w| w.depth)
    }

    /// The id of the field the walker was reading (or had last read) in the innermost
    /// struct it walked when it failed, if any.
    pub fn field_id(&self) -> Option<i16> {
        self.0.walk.and_then(|w| w.field_id)
    }

    /// Records the walker's place: the token being read, the depth and the field id.
    #[cold]
    pub(crate) fn walked(mut self, token: &'static str, depth: usize, field_id: Option<i16>) -> Error {
        self.0.walk = Some(WalkPlace { token, depth, field_id });
        self
    }

    /// Records that this error happened inside field `field` (id `id`) of `container`.
    #[cold]
    pub fn in_field(mut self, container: &'static str, field: &'static str, id: i16) -> Error {
        self.0.path.push(PathSegment { container, field, id });
        self
    }

    /// Records the struct for an error with no field (a missing field, a bad union).
    #[cold]
    fn in_struct(mut self, container: &'static str) -> Error {
        self.0.path.push(PathSegment { container, field: "", id: 0 });
        self
    }

    /// Sets the offset if none is recorded yet.
    #[cold]
    pub fn with_offset(mut self, offset: usize) -> Error {
        self.0.offset.get_or_insert(offset);
        self
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.path().enumerate() {
            if i > 0 {
                f.write_str(" > ")?;
            }
            if seg.field.is_empty() {
                f.write_str(seg.container)?;
            } else {
                write!(f, "{}.{} (id {})", seg.container, seg.field, seg.id)?;
            }
        }
        if !self.0.path.is_empty() {
            f.write_str(": ")?;
        }
        write!(f, "{}", self.0.kind)?;
        if let Some(offset) = self.0.offset {
            write!(f, " at offset {offset}")?;
        }
        if let Some(w) = self.0.walk {
            write!(f, " ({}, depth {}", w.token, w.depth)?;
            if let Some(id) = w.field_id {
                write!(f, ", field id {id}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl std::error::Error for Error {}
