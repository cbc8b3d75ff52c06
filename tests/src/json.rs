//! The JSON form of values that the Python helper (tests/python/interop.py) understands.
//!
//! bool and integers are JSON booleans and numbers; a double is the 16 hex digits of its
//! bits, so NaN payloads, infinities and -0.0 compare exactly; a string is a JSON string and
//! a binary is hex; lists and sets are arrays, maps arrays of `[key, value]` pairs; structs
//! are objects keyed by field name, without their unset optional fields.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasher;

use serde_json::{json, Map, Value};
use thrift_core::{ApplicationException, Uuid};

/// A value's JSON form for the Python helper.
pub trait ToJson {
    /// The JSON form.
    fn to_json(&self) -> Value;
}

/// Implements [`ToJson`] for types that serde_json already spells as we do.
macro_rules! as_is {
    ($($ty:ty),+) => {$(
        impl ToJson for $ty {
            fn to_json(&self) -> Value {
                json!(self)
            }
        }
    )+};
}

as_is!(bool, i8, i16, i32, i64, String, str);

impl ToJson for f64 {
    fn to_json(&self) -> Value {
        Value::String(format!("{:016x}", self.to_bits()))
    }
}

impl ToJson for Cow<'_, str> {
    fn to_json(&self) -> Value {
        json!(self)
    }
}

/// `binary`: hex.
impl ToJson for [u8] {
    fn to_json(&self) -> Value {
        Value::String(hex::encode(self))
    }
}

/// `binary`: hex.
impl ToJson for Vec<u8> {
    fn to_json(&self) -> Value {
        Value::String(hex::encode(self))
    }
}

impl ToJson for bytes::Bytes {
    fn to_json(&self) -> Value {
        Value::String(hex::encode(self))
    }
}

impl ToJson for Uuid {
    fn to_json(&self) -> Value {
        Value::String(hex::encode(self.0))
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl<T: ToJson + ?Sized> ToJson for Box<T> {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

/// Lists (`Vec<u8>` is `binary` above: u8 itself has no JSON form, so the two never meet).
impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson> ToJson for BTreeSet<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<K: ToJson, V: ToJson> ToJson for BTreeMap<K, V> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(|(k, v)| json!([k.to_json(), v.to_json()])).collect())
    }
}

/// In iteration order, which is the order the same set is encoded in.
impl<T: ToJson, S: BuildHasher> ToJson for HashSet<T, S> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

/// In iteration order, which is the order the same map is encoded in: so Python, keeping
/// the order it is given, writes the same bytes.
impl<K: ToJson, V: ToJson, S: BuildHasher> ToJson for HashMap<K, V, S> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(|(k, v)| json!([k.to_json(), v.to_json()])).collect())
    }
}

/// `TApplicationException`, with the field names of Apache's Python class.
impl ToJson for ApplicationException {
    fn to_json(&self) -> Value {
        json!({ "message": self.message, "type": self.kind.code() })
    }
}

/// Builds a struct's JSON object from `(name, value)` pairs, leaving out `None`s (unset
/// optional fields).
pub fn object<'a>(fields: impl IntoIterator<Item = (&'a str, Option<Value>)>) -> Value {
    let mut map = Map::new();
    for (name, value) in fields {
        if let Some(value) = value {
            map.insert(name.to_owned(), value);
        }
    }
    Value::Object(map)
}

/// Where `a` and `b` first differ, briefly: values can be megabytes long.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    fn walk(a: &Value, b: &Value, path: &mut String) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    let len = path.len();
                    path.push('.');
                    path.push_str(k);
                    let d = match (x.get(k), y.get(k)) {
                        (Some(p), Some(q)) => walk(p, q, path),
                        (p, _) => Some(format!("{path}: only in the {}", if p.is_some() { "first" } else { "second" })),
                    };
                    path.truncate(len);
                    if d.is_some() {
                        return d;
                    }
                }
                None
            }
            (Value::Array(x), Value::Array(y)) if x.len() != y.len() => {
                Some(format!("{path}: {} elements vs {}", x.len(), y.len()))
            }
            (Value::Array(x), Value::Array(y)) => x.iter().zip(y).enumerate().find_map(|(i, (p, q))| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let d = walk(p, q, path);
                path.truncate(len);
                d
            }),
            _ if a == b => None,
            _ => Some(format!("{path}: {} vs {}", brief(a), brief(b))),
        }
    }
    walk(a, b, &mut "$".to_owned())
}

/// A value's JSON text, cut to a readable length.
pub fn brief(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 120 {
        text
    } else {
        format!("{}...", text.chars().take(117).collect::<String>())
    }
}

/// Implements [`ToJson`] for a derived struct from its field names, optional fields last.
///
/// ```
/// # use thrift_tests::json::ToJson;
/// struct Point { x: i32, label: Option<String> }
/// thrift_tests::json_fields!(Point { x } optional { label });
/// assert_eq!(Point { x: 1, label: None }.to_json(), serde_json::json!({ "x": 1 }));
/// ```
#[macro_export]
macro_rules! json_fields {
    ($ty:ty { $($field:ident),* $(,)? } $(optional { $($opt:ident),* $(,)? })?) => {
        impl $crate::json::ToJson for $ty {
            fn to_json(&self) -> ::serde_json::Value {
                $crate::json::object([
                    $( (::core::stringify!($field), ::core::option::Option::Some($crate::json::ToJson::to_json(&self.$field))), )*
                    $($( (::core::stringify!($opt), self.$opt.as_ref().map($crate::json::ToJson::to_json)), )*)?
                ])
            }
        }
    };
}
