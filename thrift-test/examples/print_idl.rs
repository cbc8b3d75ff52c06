//! Prints the IDL the derives and the service macro export for ThriftTest.
fn main() {
    print!("{}", thrift_conformance::idl());
}
