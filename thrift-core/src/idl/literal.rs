//! Values as IDL constant literals, for [`Idl::constant`](super::Idl::constant).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use crate::impls::OrderedDouble;

/// A value with an IDL literal: numbers, `true`/`false`, strings, and lists, sets and maps
/// of them.
///
/// ```
/// use std::collections::BTreeMap;
/// use thrift_core::IdlLiteral;
/// let map: BTreeMap<&str, Vec<f64>> = [("a", vec![1.5, -2.0])].into();
/// assert_eq!(map.idl_literal(), "{\"a\": [1.5, -2.0]}");
/// ```
pub trait IdlLiteral {
    /// The literal's text.
    fn idl_literal(&self) -> String;
}

macro_rules! display {
    ($($ty:ty),+) => {$(
        impl IdlLiteral for $ty {
            fn idl_literal(&self) -> String {
                self.to_string()
            }
        }
    )+};
}

display!(bool, i8, i16, i32, i64);

impl IdlLiteral for f64 {
    /// Always with a fraction or exponent, so it reads back as a double. NaN and the
    /// infinities have no IDL literal: they render as `NaN`, `inf` and `-inf`, which
    /// Apache's compiler rejects rather than reading another number.
    fn idl_literal(&self) -> String {
        format!("{self:?}")
    }
}

impl IdlLiteral for str {
    /// Double-quoted; Apache's lexer unescapes `\\`, `\"`, `\n`, `\r` and `\t`.
    fn idl_literal(&self) -> String {
        let mut out = String::from("\"");
        for c in self.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }
}

impl IdlLiteral for String {
    fn idl_literal(&self) -> String {
        self.as_str().idl_literal()
    }
}

impl<T: IdlLiteral + ?Sized> IdlLiteral for &T {
    fn idl_literal(&self) -> String {
        (**self).idl_literal()
    }
}

macro_rules! pointee {
    ($($ptr:ty),+) => {$(
        impl<T: IdlLiteral + ?Sized> IdlLiteral for $ptr {
            fn idl_literal(&self) -> String {
                (**self).idl_literal()
            }
        }
    )+};
}

pointee!(Box<T>, Arc<T>, Rc<T>);

impl IdlLiteral for Cow<'_, str> {
    fn idl_literal(&self) -> String {
        (**self).idl_literal()
    }
}

impl IdlLiteral for OrderedDouble {
    fn idl_literal(&self) -> String {
        self.0.idl_literal()
    }
}

fn list<'a, T: IdlLiteral + 'a>(items: impl Iterator<Item = &'a T>) -> String {
    let items: Vec<String> = items.map(IdlLiteral::idl_literal).collect();
    format!("[{}]", items.join(", "))
}

fn map<'a, K: IdlLiteral + 'a, V: IdlLiteral + 'a>(entries: impl Iterator<Item = (&'a K, &'a V)>) -> String {
    let entries: Vec<String> = entries.map(|(k, v)| format!("{}: {}", k.idl_literal(), v.idl_literal())).collect();
    format!("{{{}}}", entries.join(", "))
}

impl<T: IdlLiteral> IdlLiteral for Vec<T> {
    fn idl_literal(&self) -> String {
        list(self.iter())
    }
}

impl<T: IdlLiteral> IdlLiteral for VecDeque<T> {
    fn idl_literal(&self) -> String {
        list(self.iter())
    }
}

impl<T: IdlLiteral> IdlLiteral for [T] {
    fn idl_literal(&self) -> String {
        list(self.iter())
    }
}

impl<T: IdlLiteral> IdlLiteral for BTreeSet<T> {
    fn idl_literal(&self) -> String {
        list(self.iter())
    }
}

impl<T: IdlLiteral, S> IdlLiteral for HashSet<T, S> {
    fn idl_literal(&self) -> String {
        list(self.iter())
    }
}

impl<K: IdlLiteral, V: IdlLiteral> IdlLiteral for BTreeMap<K, V> {
    fn idl_literal(&self) -> String {
        map(self.iter())
    }
}

impl<K: IdlLiteral, V: IdlLiteral, S> IdlLiteral for HashMap<K, V, S> {
    fn idl_literal(&self) -> String {
        map(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::IdlLiteral;

    #[test]
    fn doubles_read_back_as_doubles() {
        assert_eq!(2.0f64.idl_literal(), "2.0");
        assert_eq!((-0.5f64).idl_literal(), "-0.5");
        assert_eq!(1e300f64.idl_literal(), "1e300");
    }

    #[test]
    fn strings_escape_what_the_lexer_unescapes() {
        assert_eq!("a\"b\\c\nd".idl_literal(), "\"a\\\"b\\\\c\\nd\"");
    }
}
