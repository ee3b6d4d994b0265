//! The synthetic data of the GPU benches, defined by formulas that
//! `torch_embedding_bag.py` repeats, so both sides pool the same batches:
//!
//! - row `r` (of `batch * 26`) has `1 + r % 4` keys;
//! - key `i` of row `r` is `(r * 2654435761 + i * 40503) % VOCAB`;
//! - table entry `(k, j)` is `((k * 31 + j) % 1000) / 1000 - 0.5`.

#![allow(dead_code)]

use tessera_core::data::{Dims, SampleBatch};

/// Categorical slots per sample (Criteo's 26).
pub const SLOTS: usize = 26;
/// Rows in the embedding table.
pub const VOCAB: u64 = 100_000;

/// Keys in row `r`.
pub fn row_len(r: usize) -> usize {
    1 + r % 4
}

/// Key `i` of row `r`.
pub fn key(r: usize, i: usize) -> u32 {
    ((r as u64 * 2_654_435_761 + i as u64 * 40_503) % VOCAB) as u32
}

/// The table, `VOCAB x dim`.
pub fn table(dim: usize) -> Vec<f32> {
    (0..VOCAB as usize * dim)
        .map(|x| {
            let (k, j) = (x / dim, x % dim);
            ((k * 31 + j) % 1000) as f32 / 1000.0 - 0.5
        })
        .collect()
}

/// Keys in a batch of `samples` samples.
pub fn batch_keys(samples: usize) -> usize {
    (0..samples * SLOTS).map(row_len).sum()
}

/// Host buffers `(label_dense, row_offsets, values)` of a batch of `samples` samples (one
/// label, 13 dense features).
pub fn host_buffers(samples: usize) -> (Vec<f32>, Vec<u32>, Vec<u32>) {
    let dims = dims();
    let (l, o, v) = dims.buffer_lens(samples, batch_keys(samples)).unwrap();
    let (mut ld, mut offsets, mut values) = (vec![0f32; l], vec![0u32; o], vec![0u32; v]);
    {
        let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values).unwrap();
        fill(&mut batch, samples);
    }
    (ld, offsets, values)
}

/// The sample shape: 1 label, 13 dense, 26 slots.
pub fn dims() -> Dims {
    Dims::new(1, 13, SLOTS)
}

/// Sample `s`'s keys, a row per slot, written into `keys` (`SLOTS` rows, reused).
pub fn sample_keys(s: usize, keys: &mut [Vec<u32>]) {
    for (slot, row) in keys.iter_mut().enumerate() {
        let r = s * SLOTS + slot;
        row.clear();
        row.extend((0..row_len(r)).map(|i| key(r, i)));
    }
}

/// Writes `samples` samples of the formulas into `batch`.
pub fn fill(batch: &mut SampleBatch<'_, u32>, samples: usize) {
    let dense = [0.25f32; 13];
    let mut keys: Vec<Vec<u32>> = vec![Vec::new(); SLOTS];
    for s in 0..samples {
        sample_keys(s, &mut keys);
        let slots: Vec<&[u32]> = keys.iter().map(Vec::as_slice).collect();
        batch.push_sample(&[1.0], &dense, &slots).unwrap();
    }
}
