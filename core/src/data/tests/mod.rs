//! Tests of the data path: round trips through the encoder and a decoder fed in random
//! chunks, every corruption the issue names (with its sample and byte offset), both error
//! policies, CSR checkpoints and Raw decoding.

extern crate std;

use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;

mod csr;
mod cursor;
mod norm;
mod raw;

pub(super) fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 128 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// One decoded or generated sample.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sample<K> {
    pub label: Vec<f32>,
    pub dense: Vec<f32>,
    pub slots: Vec<Vec<K>>,
}

impl<K: Key> Sample<K> {
    pub fn slot_refs(&self) -> Vec<&[K]> {
        self.slots.iter().map(|s| &s[..]).collect()
    }
}

/// Owned buffers for a batch of `samples` samples with room for `values` keys.
pub(super) struct Buffers<K> {
    pub ld: Vec<f32>,
    pub offsets: Vec<K>,
    pub values: Vec<K>,
}

impl<K: Key> Buffers<K> {
    pub fn new(dims: Dims, samples: usize, values: usize) -> Self {
        let (ld, offsets, values) = dims.buffer_lens(samples, values).unwrap();
        Self {
            ld: vec![0.0; ld],
            offsets: vec![K::default(); offsets],
            values: vec![K::default(); values],
        }
    }

    pub fn batch(&mut self, dims: Dims) -> SampleBatch<'_, K> {
        SampleBatch::new(dims, &mut self.ld, &mut self.offsets, &mut self.values).unwrap()
    }
}

/// The samples a batch holds.
pub(super) fn drain<K: Key>(batch: &SampleBatch<'_, K>, out: &mut Vec<Sample<K>>) {
    let dims = batch.dims();
    for s in 0..batch.samples() {
        out.push(Sample {
            label: batch.labels(s).unwrap().to_vec(),
            dense: batch.dense(s).unwrap().to_vec(),
            slots: (0..dims.slot_num)
                .map(|k| batch.keys(s, k).unwrap().to_vec())
                .collect(),
        });
    }
}

pub(super) fn arb_dims() -> impl Strategy<Value = Dims> {
    (0usize..3, 0usize..4, 1usize..5).prop_map(|(l, d, s)| Dims::new(l, d, s))
}

pub(super) fn arb_samples<K: Key + Arbitrary>(
    dims: Dims,
    max_nnz: usize,
) -> impl Strategy<Value = Vec<Sample<K>>> {
    let sample = (
        proptest::collection::vec(-1e6f32..1e6, dims.label_dim),
        proptest::collection::vec(-1e6f32..1e6, dims.dense_dim),
        proptest::collection::vec(
            proptest::collection::vec(any::<K>(), 0..=max_nnz),
            dims.slot_num,
        ),
    )
        .prop_map(|(label, dense, slots)| Sample {
            label,
            dense,
            slots,
        });
    proptest::collection::vec(sample, 0..24)
}
