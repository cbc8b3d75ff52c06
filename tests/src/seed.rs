//! Seeds for property tests that must be replayable: each run draws a new seed (so runs
//! explore different values) unless one is given, and says which it used.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use proptest::test_runner::{RngAlgorithm, TestRng};

/// The seed of a run's random values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seed {
    value: u64,
    /// The environment variable that replays it.
    var: &'static str,
}

impl Seed {
    /// The seed in environment variable `var` (a decimal `u64`), else a new one from the
    /// clock and the process id. Panics, naming `var`, when it holds something else.
    pub fn from_env(var: &'static str) -> Seed {
        let value = match std::env::var(var) {
            Ok(text) => text.trim().parse().unwrap_or_else(|e| panic!("{var}={text:?} is not a u64 seed: {e}")),
            Err(_) => {
                let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
                (nanos as u64) ^ (u64::from(std::process::id()) << 32)
            }
        };
        Seed { value, var }
    }

    /// The number itself.
    pub fn value(&self) -> u64 {
        self.value
    }

    /// A generator that draws the same values for the same seed on every machine.
    pub fn rng(&self) -> TestRng {
        let mut bytes = [0u8; 32];
        for chunk in bytes.chunks_mut(8) {
            chunk.copy_from_slice(&self.value.to_le_bytes());
        }
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
    }
}

/// `seed N (replay with VAR=N)`.
impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seed {} (replay with {}={})", self.value, self.var, self.value)
    }
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, TestRunner};

    use super::Seed;

    #[test]
    fn a_seed_replays_its_values() {
        let seed = Seed { value: 42, var: "SEED" };
        let draw = |seed: Seed| {
            let mut runner = TestRunner::new_with_rng(Config::default(), seed.rng());
            (0..5).map(|_| (0..1_000_000u32).new_tree(&mut runner).unwrap().current()).collect::<Vec<_>>()
        };
        assert_eq!(draw(seed), draw(seed));
        assert_ne!(draw(seed), draw(Seed { value: 43, ..seed }));
        assert_eq!(seed.to_string(), "seed 42 (replay with SEED=42)");
    }
}
