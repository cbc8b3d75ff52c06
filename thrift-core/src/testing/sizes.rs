//! How large generated values may get.

/// Bounds on the values [`ThriftArbitrary`](super::ThriftArbitrary) strategies generate, in
/// the spirit of [`Limits`](crate::Limits) but much smaller, so a property test's cases stay
/// fast to encode, compare and print.
///
/// The defaults are 8 elements per container, 32 characters per string (or bytes per
/// binary) and 4 levels of nested structs, unions and containers.
///
/// ```
/// use thrift_core::testing::Sizes;
/// let tiny = Sizes { max_collection: 2, ..Sizes::default() };
/// assert_eq!((tiny.max_string, tiny.max_depth), (32, 4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Most elements (or map entries) in one list, set or map.
    pub max_collection: usize,
    /// Most characters in a string, or bytes in a binary.
    pub max_string: usize,
    /// How many levels of structs, unions and containers may nest below the value. At the
    /// last level, containers are empty, optional fields absent and unions pick any member
    /// lazily (an open union its unknown case), so recursive types stay finite.
    pub max_depth: u16,
}

impl Sizes {
    /// The sizes one level down: what a struct, union or container passes to what it holds.
    pub fn nested(&self) -> Sizes {
        Sizes { max_depth: self.max_depth.saturating_sub(1), ..*self }
    }

    /// Whether this is the last level: containers are generated empty here.
    pub fn at_bottom(&self) -> bool {
        self.max_depth == 0
    }
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes { max_collection: 8, max_string: 32, max_depth: 4 }
    }
}
