//! ThriftTest generated with `core_crate("tc")` and `net_crate("tn")`: it builds, with
//! warnings denied, in a crate where neither `thrift_core` nor `thrift_net` exists.

#![deny(warnings)]

/// The generated modules.
pub mod gen {
    include!(concat!(env!("OUT_DIR"), "/mod.rs"));
}

#[cfg(test)]
mod tests {
    use crate::gen::thrift_test::{thrift_test, Xtruct};

    #[test]
    fn encodes_and_exports_through_the_renamed_crates() {
        let x = Xtruct { string_thing: "s".into(), ..Default::default() };
        let bytes = tc::to_vec::<tc::Compact, _>(&x);
        assert_eq!(tc::from_slice::<tc::Compact, Xtruct>(&bytes).unwrap(), x);
        let idl = tc::Idl::new().add_service::<thrift_test::Definition>().render();
        assert!(idl.contains("service ThriftTest {"));
    }
}
