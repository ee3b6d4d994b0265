//! The owned sparse vector: `Vec` storage for `tessera-core`'s [`VBuffer`] that grows by
//! doubling from 4 and is reused thereafter, and a [`BufferBuilder`] with growable scratch.

use alloc::vec;
use alloc::vec::Vec;

use tessera_core::CapacityError;
use tessera_core::sparse::{
    BufferBuilder, Reserved, SparseError, SparseValue, Storage, StorageMut, VBuffer,
};

/// A vector that owns its arrays: `VBuffer` over [`VecStorage`].
///
/// Every `tessera-core` operation works on it; those writing it grow its arrays when needed
/// (doubling from 4) and otherwise reuse them, so a vector refilled by a getter stops
/// allocating once it has seen its largest row. `Clone` copies the arrays: two vectors never
/// share them.
///
/// ```
/// use tessera_alloc::{OwnedVBuffer, VecStorage};
/// use tessera_core::sparse::{Slices, VBufferView};
///
/// let a = VBufferView::try_sparse(1000, Slices::new(&[1.0f32, 2.0], &[3, 999])).unwrap();
/// let b = OwnedVBuffer::try_dense(VecStorage::dense(vec![0.5f32; 1000])).unwrap();
/// let mut sum = OwnedVBuffer::default();
/// a.add_into(&b, &mut sum).unwrap(); // dense, since b is
/// assert_eq!(sum.get(999), Some(2.5));
/// assert_eq!(a.dot(&b), Ok(1.5));
/// ```
pub type OwnedVBuffer<T> = VBuffer<VecStorage<T>>;

/// Values and indices in `Vec`s. The whole length of each `Vec` is available to the vector;
/// growing replaces a `Vec` by one of the next doubled size (from 4), copying the old
/// contents only when the editor asks to keep them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VecStorage<T> {
    values: Vec<T>,
    indices: Vec<u32>,
}

impl<T> VecStorage<T> {
    /// Empty arrays (no allocation).
    pub const fn new() -> Self {
        VecStorage {
            values: Vec::new(),
            indices: Vec::new(),
        }
    }

    /// Storage over `values` and `indices` (empty for a dense vector); give it to
    /// [`VBuffer::try_sparse`] or [`VBuffer::try_new`], which validate it and give it back on
    /// failure.
    pub fn from_parts(values: Vec<T>, indices: Vec<u32>) -> Self {
        VecStorage { values, indices }
    }

    /// Storage over the values of a dense vector.
    pub fn dense(values: Vec<T>) -> Self {
        Self::from_parts(values, Vec::new())
    }

    /// The `Vec`s back.
    pub fn into_parts(self) -> (Vec<T>, Vec<u32>) {
        (self.values, self.indices)
    }

    /// Lengths of the values and indices arrays (what the vector can use without growing).
    pub fn lens(&self) -> (usize, usize) {
        (self.values.len(), self.indices.len())
    }
}

/// The next array length for `needed` elements: doubling from 4 (ML.NET's rule).
fn grown(old: usize, needed: usize) -> usize {
    let mut n = if old == 0 { 4 } else { old.saturating_mul(2) };
    while n < needed {
        n = n.saturating_mul(2);
    }
    n
}

/// Makes `v` at least `needed` long; whether it allocated anew.
fn ensure<E: Copy + Default>(v: &mut Vec<E>, needed: usize, keep: bool) -> bool {
    if v.len() >= needed {
        return false;
    }
    if v.capacity() >= needed {
        // Room already allocated (a `Vec` handed in with spare capacity): no new array.
        v.resize(needed, E::default());
        return false;
    }
    let n = grown(v.len(), needed);
    if keep {
        v.reserve_exact(n - v.len());
        v.resize(n, E::default());
    } else {
        // A fresh array: the old contents are not copied (`vec!` of zeros may come from
        // `alloc_zeroed`).
        *v = vec![E::default(); n];
    }
    true
}

impl<T: SparseValue> Storage for VecStorage<T> {
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

// `reserve` only lengthens the `Vec`s: with `keep` by `reserve_exact` + `resize`, which keep
// the contents; it never fails (allocation failure aborts).
impl<T: SparseValue> StorageMut for VecStorage<T> {
    #[inline]
    fn parts_mut(&mut self) -> (&mut [T], &mut [u32]) {
        (&mut self.values, &mut self.indices)
    }

    #[inline]
    fn reserve(
        &mut self,
        values: usize,
        indices: usize,
        keep: bool,
    ) -> Result<Reserved, CapacityError> {
        Ok(Reserved {
            new_values: ensure(&mut self.values, values, keep),
            new_indices: ensure(&mut self.indices, indices, keep),
        })
    }
}

/// [`BufferBuilder`] with owned, growable scratch: features in any order, duplicates summed
/// (an error for flags), zeros and cancelled sums dropped, sparse or dense by fill. Its
/// scratch is kept across vectors, so a builder reused row after row stops allocating.
///
/// ```
/// use tessera_alloc::{OwnedVBuffer, VecBufferBuilder};
///
/// let mut b = VecBufferBuilder::new(1_000_000).unwrap();
/// b.add(999_999, 2.0f32).unwrap();
/// b.add(5, 1.0).unwrap();
/// b.add(999_999, 1.0).unwrap();
/// let mut v = OwnedVBuffer::default();
/// b.build_into(&mut v).unwrap();
/// assert_eq!((v.indices(), v.values()), (&[5u32, 999_999][..], &[1.0f32, 3.0][..]));
/// ```
#[derive(Debug, Clone, Default)]
pub struct VecBufferBuilder<T> {
    len: usize,
    entries: Vec<(u32, T)>,
}

impl<T: SparseValue> VecBufferBuilder<T> {
    /// An empty builder for a vector of length `len`.
    ///
    /// Errors: [`SparseError::LengthTooLarge`].
    pub fn new(len: usize) -> Result<Self, SparseError> {
        let mut b = VecBufferBuilder {
            len: 0,
            entries: Vec::new(),
        };
        b.reset(len)?;
        Ok(b)
    }

    /// The length of the vector being built.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the vector being built has length 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Features held (before combining duplicates).
    pub fn count(&self) -> usize {
        self.entries.len()
    }

    /// Forgets every feature and starts a vector of length `len`, keeping the scratch.
    ///
    /// Errors: [`SparseError::LengthTooLarge`].
    pub fn reset(&mut self, len: usize) -> Result<(), SparseError> {
        let mut none: [(u32, T); 0] = [];
        BufferBuilder::new(len, &mut none)?;
        self.len = len;
        self.entries.clear();
        Ok(())
    }

    /// Adds `value` at `index` (combined with any value there; a zero is dropped). When the
    /// scratch is full it is first compacted in place, and grows (doubling) only if that
    /// frees less than half.
    ///
    /// Errors: [`SparseError::IndexOutOfRange`], [`SparseError::Duplicate`] (flags, found
    /// while compacting).
    pub fn add(&mut self, index: usize, value: T) -> Result<(), SparseError> {
        if index >= self.len {
            return Err(SparseError::IndexOutOfRange {
                position: 0,
                index,
                len: self.len,
            });
        }
        if value.is_default() {
            return Ok(());
        }
        if self.entries.len() == self.entries.capacity() && !self.entries.is_empty() {
            self.compact()?;
            if self.entries.len() * 2 > self.entries.capacity() {
                self.entries.reserve(self.entries.capacity());
            }
        }
        // `index < len <= u32::MAX`.
        self.entries.push((index as u32, value));
        Ok(())
    }

    /// Adds every explicit entry of `v` at `offset + index`.
    ///
    /// Errors: [`SparseError::RangeOutOfBounds`] if it does not fit (nothing is added), and
    /// those of [`add`](Self::add).
    pub fn add_vector<S: Storage<Elem = T>>(
        &mut self,
        offset: usize,
        v: &VBuffer<S>,
    ) -> Result<(), SparseError> {
        if offset.checked_add(v.len()).is_none_or(|end| end > self.len) {
            return Err(SparseError::RangeOutOfBounds {
                start: offset,
                length: v.len(),
                len: self.len,
            });
        }
        self.entries.reserve(v.count());
        for (i, x) in v.iter() {
            self.add(offset + i, x)?;
        }
        Ok(())
    }

    /// Sorts, combines duplicates and drops zeros in place.
    fn compact(&mut self) -> Result<(), SparseError> {
        let n = self.entries.len();
        let mut b = BufferBuilder::with_entries(self.len, &mut self.entries, n)?;
        let r = b.compact();
        let kept = b.count();
        self.entries.truncate(kept);
        r
    }

    /// Writes the vector into `dst` (dense when at least half its entries are non-zero) and
    /// empties the builder for the next vector of the same length, keeping its scratch.
    ///
    /// Errors: [`SparseError::Duplicate`] and, for a fixed or borrowed `dst`,
    /// [`SparseError::Capacity`] (the features are then kept, compacted).
    pub fn build_into<D: StorageMut<Elem = T>>(
        &mut self,
        dst: &mut VBuffer<D>,
    ) -> Result<(), SparseError> {
        let n = self.entries.len();
        let mut b = BufferBuilder::with_entries(self.len, &mut self.entries, n)?;
        let r = b.build_into(dst);
        let kept = b.count();
        self.entries.truncate(kept);
        r
    }
}
