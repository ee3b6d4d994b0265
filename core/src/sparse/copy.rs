//! Copies and reshaping: copy keeping density, to dense, of a range, the maybe-sparse copy;
//! densify (all or the first k entries), clear and resize in place.

use super::error::SparseError;
use super::iterate::same_len;
use super::storage::{Storage, StorageMut};
use super::value::SparseValue;
use super::vbuffer::{VBuffer, check_len};

impl<S: Storage> VBuffer<S> {
    /// Copies this vector into `dst`, keeping its density (sparse stays sparse). `dst`'s
    /// arrays are reused when large enough; two vectors never share arrays.
    ///
    /// Errors: [`Capacity`](SparseError::Capacity) if `dst` cannot hold `count` values (and
    /// indices).
    pub fn copy_to<D: StorageMut<Elem = S::Elem>>(
        &self,
        dst: &mut VBuffer<D>,
    ) -> Result<(), SparseError> {
        let mut ed = dst.edit(self.len(), self.count())?;
        let (values, indices) = ed.parts();
        values.copy_from_slice(self.values());
        indices.copy_from_slice(self.indices());
        // A copy of this vector's indices, valid for the same length.
        ed.commit_unchecked();
        Ok(())
    }

    /// Copies this vector into `dst` as a dense vector (`len` values).
    ///
    /// Errors: [`Capacity`](SparseError::Capacity) if `dst` cannot hold `len` values.
    pub fn copy_to_dense<D: StorageMut<Elem = S::Elem>>(
        &self,
        dst: &mut VBuffer<D>,
    ) -> Result<(), SparseError> {
        let mut ed = dst.edit(self.len(), self.len())?;
        let fresh = ed.reserved().new_values;
        self.scatter(ed.values(), fresh);
        // Dense: there are no indices to check.
        ed.commit_unchecked();
        Ok(())
    }

    /// Writes all `len` entries into `dst[..len]`.
    ///
    /// Errors: [`Capacity`](SparseError::Capacity) if `dst` is shorter than `len`.
    pub fn copy_to_slice(&self, dst: &mut [S::Elem]) -> Result<(), SparseError> {
        let available = dst.len();
        let dst = dst.get_mut(..self.len()).ok_or(crate::CapacityError {
            needed: self.len(),
            available,
        })?;
        self.scatter(dst, false);
        Ok(())
    }

    /// Writes every entry into `out` (exactly `len` long); `zeroed` says it already holds
    /// `T::default()` everywhere.
    #[inline]
    pub(crate) fn scatter(&self, out: &mut [S::Elem], zeroed: bool) {
        if self.is_dense() {
            out.copy_from_slice(self.values());
            return;
        }
        if !zeroed {
            out.fill(S::Elem::default());
        }
        for (&i, &v) in self.indices().iter().zip(self.values()) {
            out[i as usize] = v;
        }
    }

    /// Copies entries `start..start + length` into `dst` as a vector of length `length`
    /// (entry `start` becomes entry 0), keeping density: a dense source gives a dense copy,
    /// a sparse one a sparse copy (dense if the range happens to be fully explicit).
    ///
    /// Errors: [`RangeOutOfBounds`](SparseError::RangeOutOfBounds),
    /// [`Capacity`](SparseError::Capacity).
    pub fn copy_range_to<D: StorageMut<Elem = S::Elem>>(
        &self,
        start: usize,
        length: usize,
        dst: &mut VBuffer<D>,
    ) -> Result<(), SparseError> {
        let end = start
            .checked_add(length)
            .filter(|&e| e <= self.len())
            .ok_or(SparseError::RangeOutOfBounds {
                start,
                length,
                len: self.len(),
            })?;
        if self.is_dense() {
            let mut ed = dst.edit(length, length)?;
            ed.values().copy_from_slice(&self.values()[start..end]);
            // Dense: no indices.
            ed.commit_unchecked();
            return Ok(());
        }
        let ix = self.indices();
        let lo = ix.partition_point(|&i| (i as usize) < start);
        let hi = ix.partition_point(|&i| (i as usize) < end);
        let mut ed = dst.edit(length, hi - lo)?;
        let (values, indices) = ed.parts();
        values.copy_from_slice(&self.values()[lo..hi]);
        // Empty when the range is fully explicit (the copy is then dense).
        for (o, &i) in indices.iter_mut().zip(&ix[lo..hi]) {
            // `start <= i < end <= u32::MAX`.
            *o = i - start as u32;
        }
        // A run of increasing indices in `start..end`, shifted down by `start`: still
        // increasing and below `length`.
        ed.commit_unchecked();
        Ok(())
    }

    /// Copies this vector into `dst`, dense if more than 25 % of its entries are non-zero,
    /// otherwise sparse with exactly its non-zero entries (explicit zeros are dropped).
    ///
    /// Errors: [`Capacity`](SparseError::Capacity).
    pub fn copy_maybe_sparse<D: StorageMut<Elem = S::Elem>>(
        &self,
        dst: &mut VBuffer<D>,
    ) -> Result<(), SparseError> {
        let non_zero = self.values().iter().filter(|v| !v.is_default()).count();
        if non_zero as u64 * 4 > self.len() as u64 {
            return self.copy_to_dense(dst);
        }
        let mut ed = dst.edit(self.len(), non_zero)?;
        let (values, indices) = ed.parts();
        let mut k = 0;
        for (i, v) in self.iter() {
            if !v.is_default() {
                values[k] = v;
                // `i < len <= u32::MAX`.
                indices[k] = i as u32;
                k += 1;
            }
        }
        // A subsequence of this vector's indices, in order, all written: here
        // `4 · non_zero <= len`, so either `non_zero < len` (a sparse editor) or
        // `non_zero == len == 0` (dense and empty, no indices).
        ed.commit_unchecked();
        Ok(())
    }
}

impl<S: StorageMut> VBuffer<S> {
    /// Makes this vector dense in place (`len` explicit values), growing the values array if
    /// needed.
    ///
    /// Errors: [`Capacity`](SparseError::Capacity) if the storage cannot hold `len` values;
    /// the vector is then unchanged.
    pub fn densify(&mut self) -> Result<(), SparseError> {
        if self.is_dense() {
            return Ok(());
        }
        let (len, count) = (self.len(), self.count());
        let mut ed = self.edit_keep(len, len)?;
        let (values, indices) = ed.whole_parts();
        // Back to front: entry k moves to indices[k] >= k, so no unread entry is overwritten.
        let mut next = len;
        for k in (0..count).rev() {
            let i = indices[k] as usize;
            let v = values[k];
            values[i + 1..next].fill(S::Elem::default());
            values[i] = v;
            next = i;
        }
        values[..next].fill(S::Elem::default());
        // Dense: no indices.
        ed.commit_unchecked();
        Ok(())
    }

    /// Makes entries `0..k` explicit (the rest keeps its representation); dense if that
    /// covers every entry. `k` is clamped to `len`.
    ///
    /// Errors: [`Capacity`](SparseError::Capacity); the vector is then unchanged.
    pub fn densify_first(&mut self, k: usize) -> Result<(), SparseError> {
        let k = k.min(self.len());
        if self.is_dense() || k == 0 {
            return Ok(());
        }
        let (len, count) = (self.len(), self.count());
        let m = self.indices().partition_point(|&i| (i as usize) < k);
        if m == k {
            return Ok(()); // already explicit
        }
        let new_count = count - m + k;
        if new_count == len {
            return self.densify();
        }
        let mut ed = self.edit_keep(len, new_count)?;
        let (values, indices) = ed.whole_parts();
        // The entries at or after `k` move right by `k - m`.
        values.copy_within(m..count, k);
        indices.copy_within(m..count, k);
        // Then slots k-1 down to 0, pulling the m explicit entries below k from the back:
        // entry e - 1 sits at or below its index, so it is read before its slot is written.
        let mut e = m;
        for p in (0..k).rev() {
            if e > 0 && indices[e - 1] as usize == p {
                values[p] = values[e - 1];
                e -= 1;
            } else {
                values[p] = S::Elem::default();
            }
            // `p < k <= len <= u32::MAX`.
            indices[p] = p as u32;
        }
        // Indices are 0..k, then the old indices >= k in their order: strictly
        // increasing and below `len`.
        ed.commit_unchecked();
        Ok(())
    }

    /// Sets every entry to zero, keeping the length: a dense vector's values are cleared, a
    /// sparse vector drops its explicit entries (its arrays are kept for reuse).
    pub fn clear(&mut self) {
        if self.is_dense() {
            self.values_mut().fill(S::Elem::default());
        } else {
            let len = self.len();
            // Zero explicit values is valid for any storage.
            self.set_shape(len, 0);
        }
    }

    /// Changes the logical length, keeping the entries below the new length and making new
    /// entries zero. A dense vector stays dense (growing needs room for `new_len` values); a
    /// sparse one keeps its indices below `new_len` and never needs room.
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge),
    /// [`Capacity`](SparseError::Capacity) (the vector is then unchanged).
    pub fn resize(&mut self, new_len: usize) -> Result<(), SparseError> {
        check_len(new_len)?;
        let (len, count) = (self.len(), self.count());
        if self.is_dense() {
            if new_len <= len {
                // The first `new_len` of `len` values: still dense.
                self.set_shape(new_len, new_len);
                return Ok(());
            }
            let mut ed = self.edit_keep(new_len, new_len)?;
            ed.whole_parts().0[len..new_len].fill(S::Elem::default());
            // Dense: no indices.
            ed.commit_unchecked();
            return Ok(());
        }
        let keep = if new_len >= len {
            count
        } else {
            self.indices().partition_point(|&i| (i as usize) < new_len)
        };
        // The first `keep` indices are increasing and below `new_len` (if `keep == new_len`
        // they are exactly 0..new_len, and the values read as dense).
        self.set_shape(new_len, keep);
        Ok(())
    }

    /// Checks that `other` has this vector's length.
    #[inline]
    pub(crate) fn same_len_as<S2: Storage>(&self, other: &VBuffer<S2>) -> Result<(), SparseError> {
        same_len(other.len(), self.len())
    }
}
