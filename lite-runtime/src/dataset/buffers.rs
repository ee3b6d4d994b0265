//! Owned memory for one [`SampleBatch`], for programs that do not manage their own.

use tessera_core::data::{BatchError, Dims, Key, SampleBatch};

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
    /// Buffers for `samples` samples of `dims` holding `keys` keys in all.
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
