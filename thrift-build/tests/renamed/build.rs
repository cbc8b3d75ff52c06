//! Generates Apache's ThriftTest for a crate that knows thrift-core as `tc` and thrift-net
//! as `tn`.

fn main() {
    let apache = thrift_tests::apache_src::apache_source().unwrap_or_else(|e| panic!("{e}"));
    let test = apache.join("test");
    thrift_build::Config::new()
        .cargo_warnings(false)
        .core_crate("tc")
        .net_crate("tn")
        .compile(&[test.join("ThriftTest.thrift")], &[&test])
        .unwrap_or_else(|e| panic!("{e}"));
}
