//! Shared by the GPU tests: the skip rule, a small deterministic RNG, and random batches.

#![allow(dead_code)]

use tessera_core::data::Key;
use tessera_gpu::{Gpu, GpuError};

/// Device 0, or `None` after printing why the test is skipped (no driver, no device). Any
/// other failure to create the context fails the test.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::first() {
        Ok(gpu) => Some(gpu),
        Err(e @ (GpuError::NoDriver { .. } | GpuError::NoDevice { .. })) => {
            println!("{test}: skipped: no CUDA driver/device ({e})");
            None
        }
        Err(e) => panic!("{test}: creating the CUDA context failed: {e}"),
    }
}

/// xorshift64*: reproducible batches without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    pub fn float(&mut self) -> f32 {
        // Values of mixed magnitude and sign, so the order of additions matters.
        let m = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        let e = self.below(12) as i32 - 6;
        let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f32.powi(e)
    }
}

/// Slot keys of one sample: rows of random length (empty rows common), one huge row if
/// `huge`, keys in `0..vocab` plus edge keys (`vocab - 1`, and `0`).
pub fn sample_keys<K: Key>(rng: &mut Rng, slots: usize, vocab: u64, huge: bool) -> Vec<Vec<K>> {
    (0..slots)
        .map(|s| {
            let n = if huge && s == 0 {
                4096 + rng.below(2048) as usize
            } else {
                match rng.below(4) {
                    0 => 0,
                    1 => 1,
                    _ => rng.below(12) as usize,
                }
            };
            (0..n)
                .map(|_| {
                    let k = match rng.below(8) {
                        0 => vocab.saturating_sub(1),
                        1 => 0,
                        _ => rng.below(vocab),
                    };
                    K::from_i128(i128::from(k)).unwrap_or_default()
                })
                .collect()
        })
        .collect()
}
