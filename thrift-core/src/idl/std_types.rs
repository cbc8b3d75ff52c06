//! The IDL spelling of the standard types this crate encodes.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use bytes::Bytes;

use super::{Idl, IdlType};
use crate::impls::{OrderedDouble, Uuid};

macro_rules! named {
    ($idl:literal: $($ty:ty),+) => {$(
        impl IdlType for $ty {
            fn idl_type(_: &mut Idl) -> String {
                $idl.into()
            }
        }
    )+};
}

named!("bool": bool);
named!("i8": i8);
named!("i16": i16);
named!("i32": i32);
named!("i64": i64);
named!("double": f64, OrderedDouble);
named!("string": str, String, Cow<'_, str>);
named!("binary": [u8], Vec<u8>, Cow<'_, [u8]>, Bytes);
named!("uuid": Uuid);

macro_rules! pointee {
    ($($ptr:ty),+) => {$(
        impl<T: IdlType + ?Sized> IdlType for $ptr {
            fn idl_type(idl: &mut Idl) -> String {
                T::idl_type(idl)
            }
        }
    )+};
}

pointee!(&T, Box<T>, Arc<T>, Rc<T>);

impl<T: IdlType> IdlType for Vec<T> {
    fn idl_type(idl: &mut Idl) -> String {
        format!("list<{}>", T::idl_type(idl))
    }
}

impl<T: IdlType> IdlType for VecDeque<T> {
    fn idl_type(idl: &mut Idl) -> String {
        format!("list<{}>", T::idl_type(idl))
    }
}

#[cfg(feature = "uuid")]
impl IdlType for ::uuid::Uuid {
    fn idl_type(_: &mut Idl) -> String {
        "uuid".into()
    }
}

impl<T: IdlType, S> IdlType for HashSet<T, S> {
    fn idl_type(idl: &mut Idl) -> String {
        format!("set<{}>", T::idl_type(idl))
    }
}

impl<T: IdlType> IdlType for BTreeSet<T> {
    fn idl_type(idl: &mut Idl) -> String {
        format!("set<{}>", T::idl_type(idl))
    }
}

/// `map<K, V>`, the key defined first.
fn map<K: IdlType, V: IdlType>(idl: &mut Idl) -> String {
    let key = K::idl_type(idl);
    format!("map<{}, {}>", key, V::idl_type(idl))
}

impl<K: IdlType, V: IdlType, S> IdlType for HashMap<K, V, S> {
    fn idl_type(idl: &mut Idl) -> String {
        map::<K, V>(idl)
    }
}

impl<K: IdlType, V: IdlType> IdlType for BTreeMap<K, V> {
    fn idl_type(idl: &mut Idl) -> String {
        map::<K, V>(idl)
    }
}
