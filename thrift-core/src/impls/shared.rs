//! Owned and shared forms of `string`, `binary` and `list` that the ecosystem uses beside
//! `String`, `Vec<u8>` and `Vec<T>`: `Box<str>`, `Arc<str>`, `Rc<str>`, `Box<[u8]>`,
//! `Arc<[u8]>`, `Rc<[u8]>` and `VecDeque<T>`. Each decodes through the plain form, then
//! converts (a `Vec` becomes a `VecDeque` or `Box<[_]>` without copying).

use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

macro_rules! decode_via {
    ($plain:ty => $($ty:ty),+) => {$(
        impl<'de> Decode<'de> for $ty {
            #[inline]
            fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
                <$plain as Decode<'de>>::decode::<P>(r).map(<$ty>::from)
            }
        }
    )+};
}

// `Box<str>`, `Arc<str>` (and the byte forms) encode through the pointer impls.
decode_via!(&'de str => Box<str>, Arc<str>, Rc<str>);
decode_via!(&'de [u8] => Box<[u8]>, Arc<[u8]>, Rc<[u8]>);

impl<T: ThriftType> ThriftType for VecDeque<T> {
    const TTYPE: TType = TType::List;
    #[inline]
    fn json_shape() -> crate::json::Shape {
        crate::json::Shape::Elems(T::json_shape)
    }
}

impl<T: Encode> Encode for VecDeque<T> {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_list_begin(buf, T::TTYPE, self.len());
        T::encode_seq::<P, B>(self.iter(), buf);
    }
    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        P::list_begin_len(self.len()) + super::containers::elems_len::<P, T>(self.len(), self.iter())
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for VecDeque<T> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        // Through `Vec`, whose reservation is bounded by the input; the conversion reuses
        // its buffer.
        Vec::<T>::decode::<P>(r).map(VecDeque::from)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::rc::Rc;
    use std::sync::Arc;

    use crate::{Binary, Compact};

    fn roundtrip<T>(value: T)
    where
        T: crate::Encode + for<'de> crate::Decode<'de> + PartialEq + std::fmt::Debug,
    {
        let bytes = crate::to_vec::<Binary, _>(&value);
        assert_eq!(crate::from_slice::<Binary, T>(&bytes).unwrap(), value);
        let bytes = crate::to_vec::<Compact, _>(&value);
        assert_eq!(crate::from_slice::<Compact, T>(&bytes).unwrap(), value);
    }

    #[test]
    fn shared_strings_bytes_and_deques_roundtrip() {
        roundtrip::<Box<str>>("box".into());
        roundtrip::<Arc<str>>("arc".into());
        roundtrip::<Rc<str>>("rc".into());
        roundtrip::<Box<[u8]>>(vec![1, 2].into());
        roundtrip::<Arc<[u8]>>(vec![3].into());
        roundtrip::<Rc<[u8]>>(vec![4].into());
        roundtrip(VecDeque::from(vec![1i32, 2, 3]));
        roundtrip(Rc::new(7i64));
    }

    #[test]
    fn shared_strings_check_utf8() {
        let bytes = crate::to_vec::<Binary, _>(&[0xffu8][..]);
        assert!(crate::from_slice::<Binary, Arc<str>>(&bytes).is_err());
    }

    #[test]
    fn deque_is_a_list_on_the_wire() {
        let deque = VecDeque::from(vec![5i16, 6]);
        assert_eq!(crate::to_vec::<Compact, _>(&deque), crate::to_vec::<Compact, _>(&vec![5i16, 6]));
    }
}
