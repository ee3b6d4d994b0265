//! Fixed-capacity storage that lives inline (on the stack, in a `static`), for firmware:
//! `N` values and `N` indices on `heapless::Vec`, so the capacity is part of the type.

use crate::error::CapacityError;

use super::storage::{Reserved, Storage, StorageMut, fixed_capacity};
use super::value::SparseValue;

/// Up to `N` values and `N` indices, inline. Never allocates; an operation needing more than
/// `N` returns a capacity error giving the number needed.
///
/// ```
/// use tessera_core::sparse::{Inline, InlineVBuffer, VBuffer, VBufferView, Slices};
///
/// let src = VBufferView::try_sparse(1000, Slices::new(&[1.0f32, 2.0], &[10, 900])).unwrap();
/// let mut dst: InlineVBuffer<f32, 8> = VBuffer::default();
/// src.copy_to(&mut dst).unwrap();
/// assert_eq!(dst.get(900), Some(2.0));
///
/// let mut dense: InlineVBuffer<f32, 8> = VBuffer::default();
/// let err = src.copy_to_dense(&mut dense).unwrap_err();
/// assert_eq!(err.to_string(), "sparse vector storage: buffer too small: 1000 needed, 8 available");
/// ```
#[derive(Debug, Clone)]
pub struct Inline<T, const N: usize> {
    values: heapless::Vec<T, N>,
    indices: heapless::Vec<u32, N>,
}

impl<T, const N: usize> Default for Inline<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize> Inline<T, N> {
    /// Empty arrays.
    pub const fn new() -> Self {
        Inline {
            values: heapless::Vec::new(),
            indices: heapless::Vec::new(),
        }
    }

    /// The capacity, `N`.
    pub const fn capacity(&self) -> usize {
        N
    }
}

impl<T: SparseValue, const N: usize> Inline<T, N> {
    /// A copy of `values` and `indices` (pass `&[]` for a dense vector); too many of either
    /// is a capacity error.
    pub fn from_slices(values: &[T], indices: &[u32]) -> Result<Self, CapacityError> {
        fixed_capacity(N, values.len())?;
        fixed_capacity(N, indices.len())?;
        let mut s = Self::new();
        // Both fit: checked above.
        let _ = s.values.extend_from_slice(values);
        let _ = s.indices.extend_from_slice(indices);
        Ok(s)
    }

    /// The `heapless` vectors back.
    pub fn into_parts(self) -> (heapless::Vec<T, N>, heapless::Vec<u32, N>) {
        (self.values, self.indices)
    }
}

impl<T: SparseValue, const N: usize> Storage for Inline<T, N> {
    type Elem = T;
    #[inline]
    fn values(&self) -> &[T] {
        &self.values
    }
    #[inline]
    fn indices(&self) -> &[u32] {
        &self.indices
    }
}

// `reserve` checks both sizes before touching anything (so `Err` changes nothing) and only
// lengthens the vectors with `resize_default`, which keeps existing contents.
impl<T: SparseValue, const N: usize> StorageMut for Inline<T, N> {
    #[inline]
    fn parts_mut(&mut self) -> (&mut [T], &mut [u32]) {
        (&mut self.values, &mut self.indices)
    }

    fn reserve(
        &mut self,
        values: usize,
        indices: usize,
        _keep: bool,
    ) -> Result<Reserved, CapacityError> {
        fixed_capacity(N, values)?;
        fixed_capacity(N, indices)?;
        if self.values.len() < values {
            // Cannot fail: `values <= N`.
            let _ = self.values.resize_default(values);
        }
        if self.indices.len() < indices {
            let _ = self.indices.resize_default(indices);
        }
        Ok(Reserved::default())
    }
}
