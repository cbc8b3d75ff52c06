//! Splitting an input into arbitrary chunks, as a socket would deliver it.

/// Chunk lengths drawn from a seed: xorshift, with the largest chunk chosen by the seed's
/// low bits (1, 8, 64 or 1024 bytes), so the fuzzer explores byte-at-a-time delivery as
/// well as large reads.
pub struct Chunks<'a> {
    rest: &'a [u8],
    state: u32,
    max: usize,
}

impl<'a> Chunks<'a> {
    /// Chunks of `input` drawn from `seed`.
    pub fn new(input: &'a [u8], seed: u32) -> Self {
        let max = [1, 8, 64, 1024][(seed & 3) as usize];
        Chunks { rest: input, state: seed | 1, max }
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        self.state ^= self.state << 13;
        self.state ^= self.state >> 17;
        self.state ^= self.state << 5;
        let len = (self.state as usize % self.max + 1).min(self.rest.len());
        let (chunk, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_input_in_order() {
        let input: Vec<u8> = (0..=255).collect();
        for seed in 0..16 {
            let joined: Vec<u8> = Chunks::new(&input, seed).flatten().copied().collect();
            assert_eq!(joined, input);
            assert!(Chunks::new(&input, seed).all(|c| !c.is_empty()));
        }
        assert!(Chunks::new(&input, 0).all(|c| c.len() == 1));
    }
}
