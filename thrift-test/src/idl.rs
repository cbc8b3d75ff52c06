//! The IDL of everything in this crate, as the derives and the service macro export it.

use thrift_core::Idl;

use crate::thrift_test::*;

/// The IDL of every `ThriftTest.thrift` type and both services, each definition after what
/// it uses. Apache's compiler reads it; the Python peer of the cross tests is generated
/// from it.
///
/// ```
/// let idl = thrift_conformance::idl();
/// assert!(idl.contains("service ThriftTest {"));
/// assert!(idl.contains("  2: list<Xtruct> xtructs\n"));
/// ```
pub fn idl() -> String {
    let mut idl = Idl::new();
    idl.add::<Numberz>()
        .add::<Bonk>()
        .add::<Bools>()
        .add::<Xtruct>()
        .add::<Xtruct2>()
        .add::<Xtruct3>()
        .add::<Insanity>()
        .add::<CrazyNesting>()
        .add::<SomeUnion>()
        .add::<Xception>()
        .add::<Xception2>()
        .add::<EmptyStruct>()
        .add::<OneField>()
        .add_service::<thrift_test::Definition>()
        .add_service::<second_service::Definition>()
        .add::<VersioningTestV1>()
        .add::<VersioningTestV2>()
        .add::<ListTypeVersioningV1>()
        .add::<ListTypeVersioningV2>()
        .add::<GuessProtocolStruct>()
        .add::<LargeDeltas>()
        .add::<NestedListsI32x2>()
        .add::<NestedListsI32x3>()
        .add::<NestedMixedx2>()
        .add::<ListBonks>()
        .add::<NestedListsBonk>()
        .add::<BoolTest>()
        .add::<StructA>()
        .add::<StructB>()
        .add::<OptionalSetDefaultTest>()
        .add::<OptionalBinary>();
    idl.render()
}
