//! `hand_struct!`: a struct with hand-wired `Encode`/`Decode` over thrift-core's
//! [`StructEncoder`](thrift_core::StructEncoder), [`StructSizer`](thrift_core::StructSizer)
//! and [`StructDecoder`](thrift_core::StructDecoder), as the derive's output calls them,
//! plus [`ToJson`](crate::json::ToJson).
//!
//! It lets the interop tests check thrift-core against Apache's library independently of
//! thrift-derive. Each field is `id: kind name: Type`, where kind is
//! - `plain`: always written; when absent, `Default::default()` or the `= default` given;
//! - `required`: always written; absent is an error;
//! - `optional`: the Rust field is `Option<Type>`, written only when `Some`.

/// Defines a struct with hand-wired Thrift encoding; see the [module docs](self).
#[macro_export]
macro_rules! hand_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident as $idl_kind:literal {
            $( $id:literal : $kind:ident $field:ident : $ty:ty $(= $default:expr)? ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        $vis struct $name {
            $( #[allow(missing_docs)] pub $field: $crate::hand_struct!(@ty $kind $ty), )*
        }

        impl ::thrift_core::ThriftType for $name {
            const TTYPE: ::thrift_core::TType = ::thrift_core::TType::Struct;
        }

        impl ::thrift_core::IdlType for $name {
            fn idl_type(idl: &mut ::thrift_core::Idl) -> String {
                idl.define(stringify!($name), |idl| {
                    let mut text = format!("{} {} {{\n", $idl_kind, stringify!($name));
                    $(
                        text.push_str(&format!(
                            "  {}: {}{} {}\n",
                            $id,
                            $crate::hand_struct!(@idl_kind $kind),
                            idl.type_name::<$ty>(),
                            stringify!($field),
                        ));
                    )*
                    text.push_str("}\n");
                    text
                });
                stringify!($name).into()
            }
        }

        impl ::thrift_core::Encode for $name {
            fn encode<P: ::thrift_core::Protocol, B: ::thrift_core::bytes::BufMut + ?Sized>(&self, buf: &mut B) {
                let mut s = ::thrift_core::StructEncoder::<P, B>::new(buf);
                $( $crate::hand_struct!(@put s, $kind, $id, &self.$field); )*
                s.finish();
            }
            fn encoded_len<P: ::thrift_core::Protocol>(&self) -> usize {
                let mut s = ::thrift_core::StructSizer::<P>::new();
                $( $crate::hand_struct!(@put s, $kind, $id, &self.$field); )*
                s.finish()
            }
        }

        impl<'de> ::thrift_core::Decode<'de> for $name {
            fn decode<P: ::thrift_core::Protocol>(r: &mut ::thrift_core::Reader<'de>) -> ::thrift_core::Result<Self> {
                $( let mut $field: Option<$ty> = None; )*
                let mut s = ::thrift_core::StructDecoder::<P>::begin(r)?;
                while let Some(field) = s.next_field(r)? {
                    match field.id {
                        $(
                            $id => s
                                .read(r, field, &mut $field)
                                .map_err(|e| e.in_field(stringify!($name), stringify!($field), $id))?,
                        )*
                        _ => s.skip(r, field)?,
                    }
                }
                Ok($name {
                    $( $field: $crate::hand_struct!(@finish $kind, $name, $field, $id $(, $default)?), )*
                })
            }
        }

        impl $crate::json::ToJson for $name {
            fn to_json(&self) -> ::serde_json::Value {
                $crate::json::object([
                    $( (stringify!($field), $crate::hand_struct!(@json $kind, &self.$field)), )*
                ])
            }
        }
    };

    (@ty optional $ty:ty) => { Option<$ty> };
    (@ty $kind:ident $ty:ty) => { $ty };

    (@idl_kind optional) => { "optional " };
    (@idl_kind required) => { "required " };
    (@idl_kind plain) => { "" };

    (@put $s:ident, optional, $id:literal, $value:expr) => {
        if let Some(v) = $value {
            $s.field($id, v);
        }
    };
    (@put $s:ident, $kind:ident, $id:literal, $value:expr) => { $s.field($id, $value) };

    (@finish optional, $name:ident, $field:ident, $id:literal) => { $field };
    (@finish required, $name:ident, $field:ident, $id:literal) => {
        match $field {
            Some(v) => v,
            None => return Err(::thrift_core::__private::missing_field(stringify!($name), stringify!($field), $id)),
        }
    };
    (@finish plain, $name:ident, $field:ident, $id:literal) => { $field.unwrap_or_default() };
    (@finish plain, $name:ident, $field:ident, $id:literal, $default:expr) => { $field.unwrap_or_else(|| $default) };

    (@json optional, $value:expr) => { $value.as_ref().map($crate::json::ToJson::to_json) };
    (@json $kind:ident, $value:expr) => { Some($crate::json::ToJson::to_json($value)) };
}
