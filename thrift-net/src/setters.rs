//! Chainable setters for the settings structs, so a field added later breaks no user.

/// Implements, for each `with_field => field: [Type]`, `fn with_field(self, value) -> Self`,
/// documented as setting the field (whose own docs say what it does). An `Option<T>` field's
/// setter takes `impl Into<Option<T>>`: a plain `T`, or `None`.
macro_rules! setters {
    ($ty:ident { $($(#[$attr:meta])* $setter:ident => $field:ident: [$($arg:tt)+]),* $(,)? }) => {
        impl $ty {
            $($crate::setters::setters!(@one $ty, $(#[$attr])* $setter, $field, $($arg)+);)*
        }
    };
    (@one $ty:ident, $(#[$attr:meta])* $setter:ident, $field:ident, Option<$inner:ty>) => {
        #[doc = concat!("Sets [`", stringify!($field), "`](", stringify!($ty), "::", stringify!($field), ").")]
        $(#[$attr])*
        #[must_use]
        pub fn $setter(mut self, $field: impl Into<Option<$inner>>) -> Self {
            self.$field = $field.into();
            self
        }
    };
    (@one $ty:ident, $(#[$attr:meta])* $setter:ident, $field:ident, $arg:ty) => {
        #[doc = concat!("Sets [`", stringify!($field), "`](", stringify!($ty), "::", stringify!($field), ").")]
        $(#[$attr])*
        #[must_use]
        pub fn $setter(mut self, $field: $arg) -> Self {
            self.$field = $field;
            self
        }
    };
}
pub(crate) use setters;
