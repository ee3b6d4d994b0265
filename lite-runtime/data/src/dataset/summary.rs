//! A dataset read end to end and summed up: samples, skips, and keys per slot (`inspect`).

use std::path::Path;

use tessera_core::data::{BatchSource, Dims, Key};

use super::error::DatasetError;
use super::source::DatasetSource;
use crate::buffers::{BatchBuffers, MemoryBudget};

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

/// Reads all of `reader` (a plan's serial pass, [`DatasetPlan::source`](super::DatasetPlan::source), or a share of it) through a batch of `batch_samples` samples and `batch_keys` keys,
/// counting keys per slot; `progress(samples_read, announced)` is called after each batch.
///
/// `source` is the dataset's path, named in errors about the batch: a sample shape with
/// nothing in it (dims `0,0,0`) is a [`DatasetError::Config`], and buffers over `budget`
/// (dims from a corrupt header, say) a [`DatasetError::Memory`], before anything is read.
pub fn summarize<K: Key>(
    reader: &mut DatasetSource<K>,
    source: &Path,
    batch_samples: usize,
    batch_keys: usize,
    budget: MemoryBudget,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Summary, DatasetError> {
    let dims = reader.plan().dims();
    if dims == Dims::new(0, 0, 0) {
        return Err(DatasetError::Config {
            path: source.to_owned(),
            reason: "dims 0,0,0: a sample with no label, no dense feature and no slot".into(),
        });
    }
    let announced = reader.plan().rows();
    let memory = |error| DatasetError::Memory {
        path: source.to_owned(),
        error,
    };
    let mut buffers = BatchBuffers::<K>::with_budget(dims, batch_samples, batch_keys, budget)
        .map_err(|e| super::buffers::buffers_error(e, source))?;
    let mut batch = buffers.batch().map_err(|e| DatasetError::Config {
        path: source.to_owned(),
        reason: format!("batch: {e}"),
    })?;
    let empty = NnzStats {
        min: u64::MAX,
        ..NnzStats::default()
    };
    let mut slots = budget
        .vec("per-slot statistics", dims.slot_num, empty)
        .map_err(memory)?;
    let mut samples = 0u64;
    loop {
        batch.clear();
        if reader
            .next_batch(&mut batch)
            .map_err(|e| reader.error(e))?
            .is_none()
        {
            break;
        }
        samples = samples.saturating_add(batch.samples() as u64);
        let csr = batch.csr();
        for (row, keys) in csr.iter().enumerate() {
            let s = &mut slots[row % dims.slot_num.max(1)];
            let nnz = keys.len() as u64;
            s.min = s.min.min(nnz);
            s.max = s.max.max(nnz);
            s.total = s.total.saturating_add(nnz);
            s.empty = s.empty.saturating_add(u64::from(nnz == 0));
        }
        let stats = reader.stats();
        progress(stats.decoded() + stats.skipped(), Some(announced));
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
