//! A dataset read end to end and summed up: samples, skips, and keys per slot (`inspect`).

use tessera_core::data::{Dims, Key};

use super::buffers::BatchBuffers;
use super::error::DatasetError;
use super::reader::BatchReader;

/// Keys per sample in one slot, over a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NnzStats {
    /// The fewest keys a sample had.
    pub min: u64,
    /// The most keys a sample had.
    pub max: u64,
    /// Keys in all.
    pub total: u64,
    /// Samples with no key in the slot.
    pub empty: u64,
}

/// What [`summarize`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The sample shape.
    pub dims: Dims,
    /// Samples decoded.
    pub samples: u64,
    /// Samples skipped.
    pub skipped: u64,
    /// Per slot.
    pub slots: Vec<NnzStats>,
}

impl Summary {
    /// Keys per sample over all slots, on average.
    pub fn mean_nnz(&self) -> f64 {
        let total: u64 = self.slots.iter().map(|s| s.total).sum();
        if self.samples == 0 {
            0.0
        } else {
            total as f64 / self.samples as f64
        }
    }
}

/// Reads all of `reader` through a batch of `batch_samples` samples and `batch_keys` keys,
/// counting keys per slot; `progress(samples_read, announced)` is called after each batch.
pub fn summarize<K: Key, R: BatchReader<K> + ?Sized>(
    reader: &mut R,
    batch_samples: usize,
    batch_keys: usize,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Summary, DatasetError> {
    let dims = reader.dims();
    let announced = reader.announced_samples();
    let mut buffers = BatchBuffers::<K>::new(dims, batch_samples, batch_keys);
    let mut batch = buffers.batch().map_err(|e| DatasetError::Config {
        path: Default::default(),
        reason: format!("batch: {e}"),
    })?;
    let mut slots = vec![
        NnzStats {
            min: u64::MAX,
            ..NnzStats::default()
        };
        dims.slot_num
    ];
    let mut samples = 0u64;
    while let Some(n) = reader.next_batch(&mut batch)? {
        samples += n as u64;
        let csr = batch.csr();
        for (row, keys) in csr.iter().enumerate() {
            let s = &mut slots[row % dims.slot_num.max(1)];
            let nnz = keys.len() as u64;
            s.min = s.min.min(nnz);
            s.max = s.max.max(nnz);
            s.total += nnz;
            s.empty += u64::from(nnz == 0);
        }
        let stats = reader.stats();
        progress(stats.decoded() + stats.skipped(), announced);
    }
    if samples == 0 {
        slots.iter_mut().for_each(|s| s.min = 0);
    }
    Ok(Summary {
        dims,
        samples,
        skipped: reader.stats().skipped(),
        slots,
    })
}
