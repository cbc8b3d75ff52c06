//! What only generated code calls: the derives' and the service macro's runtime. Not part
//! of the documented API; it changes with the macros, without notice.

pub use crate::__if_idl as if_idl;
pub use crate::__if_proptest as if_proptest;
#[cfg(feature = "idl")]
pub use crate::idl::{
    doc_comment, enum_definition, service_definition, struct_definition, IdlField, IdlMethod, IdlThrows,
};
pub use crate::service::{Exceptions, MethodResult, ReturnField, Returns, Void};
#[cfg(feature = "proptest")]
pub use crate::testing::Lazy;
#[cfg(feature = "proptest")]
pub use proptest;

use crate::error::Error;

/// The IDL name of one instantiation of a generic type: `Page` with `[Item]` is `Page_Item`,
/// with `[list<string>]` `Page_list_string`. IDL has no generics, so each instantiation is
/// its own definition.
///
/// ```
/// use thrift_core::__private::instantiation_name;
/// assert_eq!(instantiation_name("Page", &["map<string, i64>".into()]), "Page_map_string_i64");
/// ```
#[cfg(feature = "idl")]
pub fn instantiation_name(name: &str, params: &[String]) -> String {
    let mut out = String::from(name);
    for param in params {
        out.push('_');
        let mut last_was_sep = false;
        for c in param.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                out.push(c);
                last_was_sep = false;
            } else if !last_was_sep {
                out.push('_');
                last_was_sep = true;
            }
        }
        while out.ends_with('_') {
            out.pop();
        }
    }
    out
}

/// The error for a required field absent from the input.
#[cold]
pub fn missing_field(container: &'static str, name: &'static str, id: i16) -> Error {
    Error::missing_field(container, name, id)
}
