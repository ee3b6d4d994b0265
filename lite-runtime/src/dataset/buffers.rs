//! Owned memory for one [`SampleBatch`], for programs that do not manage their own.

use tessera_core::data::{BatchError, Dims, Key, SampleBatch};

use super::budget::{MemoryBudget, MemoryError};

/// The three buffers a [`SampleBatch`] of `samples` samples and up to `keys` keys needs.
///
/// ```
/// use tessera_core::data::Dims;
/// use tessera_lite::dataset::BatchBuffers;
///
/// let mut buffers = BatchBuffers::<u32>::new(Dims::new(1, 3, 4), 256, 256 * 4 * 8);
/// let batch = buffers.batch().unwrap();
/// assert_eq!(batch.capacity(), 256);
/// ```
#[derive(Debug, Clone)]
pub struct BatchBuffers<K> {
    dims: Dims,
    label_dense: Vec<f32>,
    row_offsets: Vec<K>,
    values: Vec<K>,
}

impl<K: Key> BatchBuffers<K> {
    /// Buffers for `samples` samples of `dims` holding `keys` keys in all, checked against
    /// `budget` (the three buffers together) and reserved fallibly: sizes that come from a
    /// file or an argument go through here.
    pub fn try_new(
        dims: Dims,
        samples: usize,
        keys: usize,
        budget: MemoryBudget,
    ) -> Result<Self, MemoryError> {
        let (s, k) = (samples as u128, size_of::<K>() as u128);
        let ld = s * (dims.label_dim as u128 + dims.dense_dim as u128);
        let rows = s * dims.slot_num as u128 + 1;
        let total = ld * 4 + rows * k + keys as u128 * k;
        budget.check::<u8>("batch buffers", total)?;
        // Each length fits usize: their bytes together passed the check above.
        Ok(Self {
            dims,
            label_dense: budget.vec("batch labels and dense features", ld as usize, 0.0)?,
            row_offsets: budget.vec("batch row offsets", rows as usize, K::default())?,
            values: budget.vec("batch keys", keys, K::default())?,
        })
    }

    /// Buffers for `samples` samples of `dims` holding `keys` keys in all, for sizes the
    /// program chose itself; sizes from outside go through [`try_new`](Self::try_new), which
    /// refuses absurd ones where this would abort on the failed allocation.
    pub fn new(dims: Dims, samples: usize, keys: usize) -> Self {
        let rows = samples.saturating_mul(dims.slot_num);
        Self {
            dims,
            label_dense: vec![0.0; samples.saturating_mul(dims.label_dense())],
            row_offsets: vec![K::default(); rows.saturating_add(1)],
            values: vec![K::default(); keys],
        }
    }

    /// An empty batch over the buffers.
    pub fn batch(&mut self) -> Result<SampleBatch<'_, K>, BatchError> {
        SampleBatch::new(
            self.dims,
            &mut self.label_dense,
            &mut self.row_offsets,
            &mut self.values,
        )
    }
}
