//! Wire-level type ids and message types shared by every protocol.

use std::fmt;

/// A Thrift type id as the binary protocol writes it (`TType` in Apache's libraries).
///
/// The compact protocol uses different numbers on the wire; it maps to and from these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TType {
    /// End of a struct's fields.
    Stop = 0,
    /// No value; only appears as the result type of `void` methods.
    Void = 1,
    /// `bool`.
    Bool = 2,
    /// `byte` / `i8`.
    I8 = 3,
    /// `double`.
    Double = 4,
    /// `i16`.
    I16 = 6,
    /// `i32`, and enums.
    I32 = 8,
    /// `i64`.
    I64 = 10,
    /// `string` and `binary`.
    String = 11,
    /// `struct`, `union` and `exception`.
    Struct = 12,
    /// `map<K, V>`.
    Map = 13,
    /// `set<T>`.
    Set = 14,
    /// `list<T>`.
    List = 15,
    /// `uuid` (16 bytes).
    Uuid = 16,
}

impl TType {
    /// The type for a binary-protocol type id, or `None` if no type has that id.
    #[inline]
    pub const fn from_u8(id: u8) -> Option<TType> {
        Some(match id {
            0 => TType::Stop,
            1 => TType::Void,
            2 => TType::Bool,
            3 => TType::I8,
            4 => TType::Double,
            6 => TType::I16,
            8 => TType::I32,
            10 => TType::I64,
            11 => TType::String,
            12 => TType::Struct,
            13 => TType::Map,
            14 => TType::Set,
            15 => TType::List,
            16 => TType::Uuid,
            _ => return None,
        })
    }

    /// The IDL spelling of this type (`"i32"`, `"list"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            TType::Stop => "stop",
            TType::Void => "void",
            TType::Bool => "bool",
            TType::I8 => "i8",
            TType::Double => "double",
            TType::I16 => "i16",
            TType::I32 => "i32",
            TType::I64 => "i64",
            TType::String => "string",
            TType::Struct => "struct",
            TType::Map => "map",
            TType::Set => "set",
            TType::List => "list",
            TType::Uuid => "uuid",
        }
    }
}

impl fmt::Display for TType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kind of an RPC message, carried in its envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MessageType {
    /// A request that expects a reply.
    Call = 1,
    /// A successful (or declared-exception) reply.
    Reply = 2,
    /// A reply carrying a `TApplicationException`.
    Exception = 3,
    /// A request that expects no reply.
    Oneway = 4,
}

impl MessageType {
    /// The message type for a wire value, or `None` if it is not one.
    #[inline]
    pub const fn from_u8(v: u8) -> Option<MessageType> {
        Some(match v {
            1 => MessageType::Call,
            2 => MessageType::Reply,
            3 => MessageType::Exception,
            4 => MessageType::Oneway,
            _ => return None,
        })
    }
}
