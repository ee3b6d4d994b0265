//! Building a vector from `(index, value)` features given in any order (ML.NET's
//! `BufferBuilder`), in caller scratch memory: duplicates combined, zeros dropped, the result
//! sparse or dense by fill.

use super::error::SparseError;
use super::storage::{Storage, StorageMut};
use super::value::SparseValue;
use super::vbuffer::{VBuffer, check_len};
use crate::error::CapacityError;

/// Collects features for a vector of length `len` in a caller's scratch array of
/// `(index, value)` pairs, then writes the vector into any destination.
///
/// - Features may come in any order; values for the same index are combined with
///   [`SparseValue::combine`] (summed for numbers; for flags a duplicate is
///   [`SparseError::Duplicate`]).
/// - Zeros are dropped, including sums that come out zero (ML.NET's builder loops forever
///   there; this one makes one linear pass after a sort).
/// - An index at or past `len` is [`SparseError::IndexOutOfRange`] in every build profile.
/// - The result is dense when at least half its entries are non-zero, sparse otherwise.
/// - When the scratch is full, the features so far are sorted and combined in place to make
///   room; if that frees nothing, a feature for an index already held is combined into it,
///   and any other is refused with a capacity error (`needed` is one more than the distinct
///   non-zero features held), leaving the builder as it was.
///
/// ```
/// use tessera_core::sparse::{BufferBuilder, InlineVBuffer, VBuffer};
///
/// let mut scratch = [(0u32, 0.0f32); 8];
/// let mut b = BufferBuilder::new(10, &mut scratch).unwrap();
/// b.add(7, 1.0).unwrap();
/// b.add(2, 4.0).unwrap();
/// b.add(7, 2.0).unwrap(); // combined: 3.0
/// b.add(5, 1.0).unwrap();
/// b.add(5, -1.0).unwrap(); // combines to zero: dropped
/// assert!(b.add(10, 1.0).is_err());
/// let mut v: InlineVBuffer<f32, 8> = VBuffer::default();
/// b.build_into(&mut v).unwrap();
/// assert_eq!((v.indices(), v.values()), (&[2u32, 7][..], &[4.0f32, 3.0][..]));
/// ```
#[derive(Debug)]
pub struct BufferBuilder<'s, T> {
    len: usize,
    entries: &'s mut [(u32, T)],
    count: usize,
}

impl<'s, T: SparseValue> BufferBuilder<'s, T> {
    /// An empty builder for a vector of length `len`, collecting into `scratch` (its
    /// contents are ignored).
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge).
    pub fn new(len: usize, scratch: &'s mut [(u32, T)]) -> Result<Self, SparseError> {
        check_len(len)?;
        Ok(BufferBuilder {
            len,
            entries: scratch,
            count: 0,
        })
    }

    /// A builder whose first `count` scratch entries are already features (in any order,
    /// duplicates and zeros allowed): for owners of growable scratch. Checks every index.
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge),
    /// [`Capacity`](SparseError::Capacity) if `count > scratch.len()`,
    /// [`IndexOutOfRange`](SparseError::IndexOutOfRange).
    pub fn with_entries(
        len: usize,
        scratch: &'s mut [(u32, T)],
        count: usize,
    ) -> Result<Self, SparseError> {
        check_len(len)?;
        let available = scratch.len();
        let held = scratch.get(..count).ok_or(CapacityError {
            needed: count,
            available,
        })?;
        if let Some(position) = held.iter().position(|&(i, _)| i as usize >= len) {
            return Err(SparseError::IndexOutOfRange {
                position,
                index: held[position].0 as usize,
                len,
            });
        }
        Ok(BufferBuilder {
            len,
            entries: scratch,
            count,
        })
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
        self.count
    }

    /// The features held, `(index, value)`: in the order given, or sorted and combined after
    /// [`compact`](Self::compact).
    pub fn entries(&self) -> &[(u32, T)] {
        &self.entries[..self.count]
    }

    /// Forgets every feature and starts a vector of length `len`, keeping the scratch.
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge).
    pub fn reset(&mut self, len: usize) -> Result<(), SparseError> {
        check_len(len)?;
        self.len = len;
        self.count = 0;
        Ok(())
    }

    /// Adds `value` at `index` (combined with any value already there; a zero is dropped).
    ///
    /// Errors: [`IndexOutOfRange`](SparseError::IndexOutOfRange),
    /// [`Capacity`](SparseError::Capacity), [`Duplicate`](SparseError::Duplicate) (from the
    /// compaction of a full scratch). On error the feature is not added.
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
        // `index < len <= u32::MAX`.
        let index = index as u32;
        if self.count == self.entries.len() {
            self.compact()?;
            if self.count == self.entries.len() {
                // Still full, but sorted: a feature for an index already held combines there.
                let held = &mut self.entries[..self.count];
                let Ok(k) = held.binary_search_by_key(&index, |e| e.0) else {
                    return Err(SparseError::Capacity(CapacityError {
                        needed: self.count + 1,
                        available: self.entries.len(),
                    }));
                };
                let combined = held[k]
                    .1
                    .combine(value)
                    .ok_or(SparseError::Duplicate { index })?;
                if combined.is_default() {
                    held.copy_within(k + 1.., k);
                    self.count -= 1;
                } else {
                    held[k].1 = combined;
                }
                return Ok(());
            }
        }
        self.entries[self.count] = (index, value);
        self.count += 1;
        Ok(())
    }

    /// Adds every explicit entry of `v` at `offset + index`.
    ///
    /// Errors: as [`add`](Self::add) (the range is checked first: `offset + v.len()` past the
    /// length is [`RangeOutOfBounds`](SparseError::RangeOutOfBounds) and nothing is added; a
    /// capacity error may come after some entries were added).
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
        for (i, x) in v.iter() {
            self.add(offset + i, x)?;
        }
        Ok(())
    }

    /// Sorts the features by index, combines duplicates and drops zeros, in place.
    ///
    /// Errors: [`Duplicate`](SparseError::Duplicate); the features are then sorted, those
    /// before the duplicate combined, none lost.
    pub fn compact(&mut self) -> Result<(), SparseError> {
        let entries = &mut self.entries[..self.count];
        entries.sort_unstable_by_key(|e| e.0);
        let n = entries.len();
        let (mut w, mut r) = (0, 0);
        while r < n {
            let start = r;
            let (index, mut v) = entries[r];
            r += 1;
            while r < n && entries[r].0 == index {
                match v.combine(entries[r].1) {
                    Some(c) => v = c,
                    None => {
                        // Keep everything from this group on, after what is done.
                        entries.copy_within(start..n, w);
                        self.count = w + (n - start);
                        return Err(SparseError::Duplicate { index });
                    }
                }
                r += 1;
            }
            if !v.is_default() {
                entries[w] = (index, v);
                w += 1;
            }
        }
        self.count = w;
        Ok(())
    }

    /// Writes the vector into `dst` (dense when at least half its entries are non-zero) and
    /// empties the builder for the next vector of the same length.
    ///
    /// Errors: [`Duplicate`](SparseError::Duplicate), [`Capacity`](SparseError::Capacity)
    /// (the builder then keeps its features, compacted).
    pub fn build_into<D: StorageMut<Elem = T>>(
        &mut self,
        dst: &mut VBuffer<D>,
    ) -> Result<(), SparseError> {
        self.compact()?;
        let (len, n) = (self.len, self.count);
        let entries = &self.entries[..n];
        if n as u64 * 2 >= len as u64 {
            let mut ed = dst.edit(len, len)?;
            let fresh = ed.reserved().new_values;
            let values = ed.values();
            if !fresh {
                values.fill(T::default());
            }
            for &(i, v) in entries {
                values[i as usize] = v;
            }
            // Dense: no indices.
            ed.commit_unchecked();
        } else {
            let mut ed = dst.edit(len, n)?;
            let (values, indices) = ed.parts();
            for ((v, i), &(index, value)) in values.iter_mut().zip(indices).zip(entries) {
                *v = value;
                *i = index;
            }
            // After `compact` the indices are sorted, distinct (strictly increasing)
            // and below `len` (checked on entry); `n < len / 2`, so the editor is sparse.
            ed.commit_unchecked();
        }
        self.count = 0;
        Ok(())
    }
}
