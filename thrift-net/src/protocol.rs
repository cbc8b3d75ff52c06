//! Choosing the protocol type for a [`ProtocolKind`](crate::ProtocolKind) known only at run
//! time.

/// Runs `$body` with `$p` bound to the protocol type of `$kind`.
macro_rules! with_protocol {
    ($kind:expr, $p:ident => $body:expr) => {
        match $kind {
            $crate::ProtocolKind::Binary | $crate::ProtocolKind::BinaryNonStrict => {
                type $p = thrift_core::Binary;
                $body
            }
            $crate::ProtocolKind::Compact => {
                type $p = thrift_core::Compact;
                $body
            }
        }
    };
}
pub(crate) use with_protocol;
