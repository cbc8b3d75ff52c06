//! What only generated code calls: the derives' and the service macro's runtime. Not part
//! of the documented API; it changes with the macros, without notice.

pub use crate::__if_idl as if_idl;
#[cfg(feature = "idl")]
pub use crate::idl::{enum_definition, service_definition, struct_definition, IdlField, IdlMethod, IdlThrows};
pub use crate::service::{Exceptions, MethodResult, ReturnField, Returns, Void};

use crate::error::Error;

/// The error for a required field absent from the input.
#[cold]
pub fn missing_field(container: &'static str, name: &'static str, id: i16) -> Error {
    Error::missing_field(container, name, id)
}
