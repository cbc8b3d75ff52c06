//! Shared pieces of the fuzz targets: the derived shapes they decode, a counting allocator
//! and the allocation bound, the chunking of input for the streaming codecs, and the seed
//! corpora. See README.md for how to build and run the targets.

pub mod alloc;
pub mod checks;
pub mod chunks;
pub mod seeds;
pub mod shapes;

/// Bytes shown as hex in assertion messages.
pub struct Hex<'a>(pub &'a [u8]);

impl std::fmt::Debug for Hex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}
