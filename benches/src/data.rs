//! Deterministic, seeded builders of the benchmark values.

use std::collections::{BTreeMap, BTreeSet};

use crate::shapes::{Large, Medium, Small};

/// SplitMix64: a tiny, well-mixed generator, so the data is the same on every run and
/// machine without a dependency for it.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo)
    }

    /// A string of `lo..hi` characters, mostly ASCII words with an occasional two-byte
    /// character, as names and labels in real payloads are.
    pub fn text(&mut self, lo: u64, hi: u64) -> String {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_ ";
        let len = self.range(lo, hi);
        (0..len)
            .map(|_| match self.range(0, 40) {
                0 => 'é',
                _ => ALPHABET[self.range(0, ALPHABET.len() as u64) as usize] as char,
            })
            .collect()
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    /// An `i64` whose magnitude varies from one to eight bytes, so compact varints vary too.
    pub fn int(&mut self) -> i64 {
        let bits = self.range(1, 64);
        let v = (self.next_u64() >> (64 - bits)) as i64;
        if self.next_u64() & 1 == 0 {
            v
        } else {
            -v
        }
    }

    /// A finite double.
    pub fn float(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 40) as f64 - 1000.0
    }
}

/// A [`Small`]: about 145 bytes in binary.
pub fn small(rng: &mut Rng) -> Small {
    Small {
        id: rng.next_u64() as i32,
        timestamp: 1_700_000_000_000 + rng.range(0, 100_000_000) as i64,
        flags: rng.range(0, 1 << 12) as i16,
        level: rng.range(0, 8) as i8,
        active: rng.next_u64() & 1 == 1,
        score: rng.float(),
        count: rng.range(0, 10_000) as i32,
        sequence: rng.int(),
        ratio: rng.float(),
        archived: rng.next_u64() & 1 == 1,
        name: rng.text(16, 24),
        label: rng.text(8, 16),
        token: rng.bytes(16),
    }
}

/// A [`Medium`]: about 5.5 KB in binary.
pub fn medium(rng: &mut Rng) -> Medium {
    Medium {
        id: rng.int(),
        title: rng.text(24, 40),
        values: (0..256).map(|_| rng.int()).collect(),
        names: (0..48).map(|_| rng.text(8, 24)).collect(),
        attributes: (0..16)
            .map(|i| (format!("attr-{i:02}-{}", rng.text(2, 8)), rng.text(12, 28)))
            .collect::<BTreeMap<_, _>>(),
        tags: (0..32).map(|_| rng.range(0, 1 << 20) as i32).collect::<BTreeSet<_>>(),
        items: (0..10).map(|_| small(rng)).collect(),
        note: Some(rng.text(32, 48)),
        parent: Some(rng.int()),
        weight: None,
    }
}

/// A [`Large`]: about 230 KB in binary.
pub fn large(rng: &mut Rng) -> Large {
    Large {
        id: rng.int(),
        name: rng.text(16, 32),
        mediums: (0..30).map(|_| medium(rng)).collect(),
        blob: rng.bytes(64 * 1024),
    }
}

/// The three values every benchmark uses, from fixed seeds.
#[derive(Clone, Debug)]
pub struct Values {
    /// The small shape.
    pub small: Small,
    /// The medium shape.
    pub medium: Medium,
    /// The large shape.
    pub large: Large,
}

impl Values {
    /// Builds the values (the same on every run).
    pub fn new() -> Values {
        Values { small: small(&mut Rng::new(1)), medium: medium(&mut Rng::new(2)), large: large(&mut Rng::new(3)) }
    }
}

impl Default for Values {
    fn default() -> Self {
        Values::new()
    }
}
