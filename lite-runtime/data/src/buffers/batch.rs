//! [`BatchBuffers`]: the owned memory of one batch, which a cursor-set worker fills and sends
//! away and gets back, so that the set allocates nothing once running (and which the dataset
//! readers' own passes decode into).

use tessera_core::CapacityError;
use tessera_core::data::{BatchError, CsrCapacity, Dims, Key, SampleBatch};

use super::{BuffersError, MemoryBudget};

/// Owned buffers for one [`SampleBatch`] of a fixed shape: labels and dense features, CSR
/// row offsets and keys.
///
/// A batch borrows caller memory, so it cannot cross threads by itself; the buffers can.
/// A worker fills them through [`batch`](Self::batch), sends them with the sample count,
/// and the receiver rebuilds the filled batch with [`SampleBatch::resume`] (see
/// [`resume`](Self::resume)).
#[derive(Debug, Clone)]
pub struct BatchBuffers<K> {
    dims: Dims,
    label_dense: Vec<f32>,
    offsets: Vec<K>,
    values: Vec<K>,
}

impl<K: Key> BatchBuffers<K> {
    /// Buffers for batches of `samples` samples with room for `values` keys in all.
    ///
    /// Errors if such a batch holds no sample or its keys do not fit `K`
    /// ([`BuffersError::Batch`]), or if the sizes overflow or cannot be allocated
    /// ([`BuffersError::Memory`]) — never an abort on absurd sizes.
    pub fn new(dims: Dims, samples: usize, values: usize) -> Result<Self, BuffersError> {
        if K::from_usize(values).is_none() {
            // Before allocating: an offset past `K::MAX` could never be stored anyway.
            return Err(BuffersError::Batch(BatchError::Csr(CsrCapacity::Values(
                CapacityError {
                    needed: values,
                    available: usize::try_from(K::MAX).unwrap_or(usize::MAX),
                },
            ))));
        }
        let (ld, offsets, values) = dims
            .buffer_lens(samples, values)
            .ok_or(BuffersError::Memory)?;
        let mut buffers = Self {
            dims,
            label_dense: zeroed(ld)?,
            offsets: zeroed(offsets)?,
            values: zeroed(values)?,
        };
        buffers.batch()?;
        Ok(buffers)
    }

    /// [`new`](Self::new), with the bytes of the three buffers together checked against
    /// `budget` first ([`BuffersError::Budget`]): sizes that come from a file or an
    /// argument go through here.
    ///
    /// ```
    /// use tessera_core::data::Dims;
    /// use tessera_data::buffers::{BatchBuffers, BuffersError, MemoryBudget};
    ///
    /// let dims = Dims::new(1, 3, 4);
    /// let mut buffers = BatchBuffers::<u32>::with_budget(dims, 256, 256 * 4 * 8, MemoryBudget::DEFAULT)?;
    /// assert_eq!(buffers.batch()?.capacity(), 256);
    /// let huge = BatchBuffers::<u32>::with_budget(dims, 1 << 40, 1, MemoryBudget::DEFAULT);
    /// assert!(matches!(huge, Err(BuffersError::Budget(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_budget(
        dims: Dims,
        samples: usize,
        values: usize,
        budget: MemoryBudget,
    ) -> Result<Self, BuffersError> {
        let (s, k) = (samples as u128, size_of::<K>() as u128);
        let ld = s * dims.label_dense() as u128;
        let rows = s * dims.slot_num as u128 + 1;
        let total = ld * 4 + rows * k + values as u128 * k;
        budget
            .check::<u8>("batch buffers", total)
            .map_err(BuffersError::Budget)?;
        Self::new(dims, samples, values)
    }

    /// The sample shape.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Whether these are the buffers [`new`](Self::new) makes for the same arguments.
    pub(crate) fn fits(&self, dims: Dims, samples: usize, values: usize) -> bool {
        dims == self.dims
            && dims.buffer_lens(samples, values)
                == Some((
                    self.label_dense.len(),
                    self.offsets.len(),
                    self.values.len(),
                ))
    }

    /// An empty batch over the buffers. Cannot fail for buffers [`new`](Self::new) accepted;
    /// returns the error rather than panicking all the same.
    pub fn batch(&mut self) -> Result<SampleBatch<'_, K>, BatchError> {
        SampleBatch::new(
            self.dims,
            &mut self.label_dense,
            &mut self.offsets,
            &mut self.values,
        )
    }

    /// The batch of `samples` samples that an earlier [`batch`](Self::batch) over these
    /// buffers filled (on whichever thread); its CSR offsets are checked, O(rows).
    pub fn resume(&mut self, samples: usize) -> Result<SampleBatch<'_, K>, BatchError> {
        SampleBatch::resume(
            self.dims,
            &mut self.label_dense,
            &mut self.offsets,
            &mut self.values,
            samples,
        )
    }
}

/// Reading a filled batch in place, without [`resume`](BatchBuffers::resume)'s O(rows)
/// check: every access is bounds-checked instead (O(1)), so inconsistent buffers give `None`,
/// never a panic. `sample` must be below the batch's sample count (the caller's to keep).
impl<K: Key> BatchBuffers<K> {
    /// The labels and dense features of `sample`.
    pub(crate) fn label_dense(&self, sample: usize) -> Option<&[f32]> {
        let w = self.dims.label_dense();
        let start = sample.checked_mul(w)?;
        self.label_dense.get(start..start.checked_add(w)?)
    }

    /// The keys of CSR rows `first..end` (one slot, or a whole sample's slots).
    pub(crate) fn key_rows(&self, first: usize, end: usize) -> Option<&[K]> {
        let offset = |row: usize| self.offsets.get(row).and_then(|k| k.to_index());
        self.values.get(offset(first)?..offset(end)?)
    }
}

/// `n` default values, or [`BuffersError::Memory`] where `vec![..; n]` would abort.
fn zeroed<T: Default + Clone>(n: usize) -> Result<Vec<T>, BuffersError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| BuffersError::Memory)?;
    v.resize(n, T::default());
    Ok(v)
}
