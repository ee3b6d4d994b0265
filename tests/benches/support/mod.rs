//! What the benchmarks share: deterministic inputs, drawn from core's own `SplitMix64` (the
//! same stream on every machine, no `rand` needed).

// Each benchmark uses only some of these.
#![allow(dead_code)]

use tessera_core::cursor::SplitMix64;

/// A seeded source of benchmark inputs.
pub struct Rng(SplitMix64);

impl Rng {
    /// The stream for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed))
    }

    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [-1, 1).
    pub fn value(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// In `0..n`, by remainder (the slight bias does not matter for benchmark data).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
