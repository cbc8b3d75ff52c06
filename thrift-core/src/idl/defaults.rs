//! How the derives find the IDL literal of a default: the value's [`IdlLiteral`] when its
//! type has one, a derived struct's, union's or newtype's [`CompositeLiteral`] otherwise,
//! else none, chosen at compile time by method resolution (autoref specialization), so
//! asking never requires a literal.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use super::{Idl, IdlLiteral, IdlType};

/// The IDL type of a `with` field: that of the wire value its functions exchange.
pub fn with_idl_type<'a, T: 'a, W: IdlType, E>(
    idl: &mut Idl,
    _encode: fn(&'a T) -> W,
    _decode: fn(W) -> Result<T, E>,
) -> String {
    W::idl_type(idl)
}

/// A value whose IDL literal is wanted, when it has one: `(&&&LiteralOf(&v)).idl_default()`
/// calls [`ViaIdlLiteral`] when `v`'s type implements [`IdlLiteral`](IdlLiteral),
/// else [`ViaComposite`] when it implements [`CompositeLiteral`] (a derived struct, union
/// or newtype), else [`NoIdlLiteral`] (`None`), so a default of any type can be asked for
/// its literal without requiring one. The derives call it with both traits in scope.
///
/// ```
/// use thrift_core::__private::{LiteralOf, NoIdlLiteral as _, ViaComposite as _, ViaIdlLiteral as _};
/// struct Opaque;
/// assert_eq!((&&&LiteralOf(&vec![1i32])).idl_default(), Some("[1]".to_owned()));
/// assert_eq!((&&&LiteralOf(&Opaque)).idl_default(), None);
/// ```
pub struct LiteralOf<'a, T: ?Sized>(pub &'a T);

/// The literal of a [`LiteralOf`] whose type has an `IdlLiteral`.
pub trait ViaIdlLiteral {
    /// `Some(literal)`.
    fn idl_default(&self) -> Option<String>;
}

impl<T: IdlLiteral + ?Sized> ViaIdlLiteral for &&LiteralOf<'_, T> {
    fn idl_default(&self) -> Option<String> {
        Some(self.0.idl_literal())
    }
}

/// The literal of a derived struct, union or newtype value, when every field it sets has
/// one. Implemented by the derives without bounds on the fields (a bound would make a
/// recursive type's impl depend on itself), each field's literal found by [`LiteralOf`].
pub trait CompositeLiteral {
    /// The literal, or `None` when a set field's type has none.
    fn composite_literal(&self) -> Option<String>;
}

macro_rules! composite_pointee {
    ($($ptr:ty),+) => {$(
        impl<T: CompositeLiteral + ?Sized> CompositeLiteral for $ptr {
            fn composite_literal(&self) -> Option<String> {
                (**self).composite_literal()
            }
        }
    )+};
}

composite_pointee!(&T, Box<T>, Arc<T>, Rc<T>);

/// `[a, b]` of composites, `None` when one has no literal.
fn composite_list<'a, T: CompositeLiteral + 'a>(items: impl Iterator<Item = &'a T>) -> Option<String> {
    let items: Option<Vec<String>> = items.map(CompositeLiteral::composite_literal).collect();
    Some(format!("[{}]", items?.join(", ")))
}

/// `{k: v}` of composite values under keys with literals, `None` when a value has none.
fn composite_map<'a, K: IdlLiteral + 'a, V: CompositeLiteral + 'a>(
    entries: impl Iterator<Item = (&'a K, &'a V)>,
) -> Option<String> {
    let entries: Option<Vec<String>> =
        entries.map(|(k, v)| Some(format!("{}: {}", k.idl_literal(), v.composite_literal()?))).collect();
    Some(format!("{{{}}}", entries?.join(", ")))
}

// Collections of composites: a list of structs, a map from names to structs. (Collections of
// values with an `IdlLiteral` have one themselves.)
macro_rules! composite_lists {
    ($($coll:ident $(, $s:ident)?);+) => {$(
        impl<T: CompositeLiteral $(, $s)?> CompositeLiteral for $coll<T $(, $s)?> {
            fn composite_literal(&self) -> Option<String> {
                composite_list(self.iter())
            }
        }
    )+};
}

composite_lists!(Vec; VecDeque; BTreeSet; HashSet, S);

impl<K: IdlLiteral, V: CompositeLiteral> CompositeLiteral for BTreeMap<K, V> {
    fn composite_literal(&self) -> Option<String> {
        composite_map(self.iter())
    }
}

impl<K: IdlLiteral, V: CompositeLiteral, S> CompositeLiteral for HashMap<K, V, S> {
    fn composite_literal(&self) -> Option<String> {
        composite_map(self.iter())
    }
}

/// The literal of a [`LiteralOf`] whose type is a [`CompositeLiteral`].
pub trait ViaComposite {
    /// The composite's literal.
    fn idl_default(&self) -> Option<String>;
}

impl<T: CompositeLiteral + ?Sized> ViaComposite for &LiteralOf<'_, T> {
    fn idl_default(&self) -> Option<String> {
        self.0.composite_literal()
    }
}

/// The fallback for a [`LiteralOf`] whose type has no literal.
pub trait NoIdlLiteral {
    /// `None`.
    fn idl_default(&self) -> Option<String>;
}

impl<T: ?Sized> NoIdlLiteral for LiteralOf<'_, T> {
    fn idl_default(&self) -> Option<String> {
        None
    }
}

/// `{"name": literal, ...}`: a struct or union value as an IDL constant, from its fields'
/// names and literals (`None` for an unset optional field, left out).
pub fn struct_literal(fields: &[(&str, Option<String>)]) -> String {
    let set: Vec<String> = fields
        .iter()
        .filter_map(|(name, lit)| lit.as_ref().map(|lit| format!("{}: {lit}", name.idl_literal())))
        .collect();
    format!("{{{}}}", set.join(", "))
}
