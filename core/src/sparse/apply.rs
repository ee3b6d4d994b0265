//! Applying functions entry by entry: at one slot, with a second vector into this one (over
//! the second's entries or the union), and from one or two vectors into a destination.

use super::error::SparseError;
use super::iterate::{same_len, union_count, union_while};
use super::storage::{Storage, StorageMut};
use super::value::SparseValue;
use super::vbuffer::{Side, VBuffer};

impl<S: StorageMut> VBuffer<S> {
    /// Applies `f(slot, &mut value)` to the entry at `slot`. An implicit entry is passed as
    /// `T::default()` and inserted only if `f` makes it non-zero (growing the arrays by one;
    /// the vector becomes dense if that fills it). An explicit entry stays explicit even if
    /// `f` zeroes it.
    ///
    /// Errors: [`IndexOutOfRange`](SparseError::IndexOutOfRange),
    /// [`Capacity`](SparseError::Capacity) (the vector is then unchanged).
    pub fn apply_at(
        &mut self,
        slot: usize,
        f: impl FnOnce(usize, &mut S::Elem),
    ) -> Result<(), SparseError> {
        let (len, count) = (self.len(), self.count());
        if slot >= len {
            return Err(SparseError::IndexOutOfRange {
                position: 0,
                index: slot,
                len,
            });
        }
        if self.is_dense() {
            f(slot, &mut self.values_mut()[slot]);
            return Ok(());
        }
        // `slot < len <= u32::MAX`.
        let k = match self.indices().binary_search(&(slot as u32)) {
            Ok(k) => {
                f(slot, &mut self.values_mut()[k]);
                return Ok(());
            }
            Err(k) => k,
        };
        let mut v = S::Elem::default();
        f(slot, &mut v);
        if v.is_default() {
            return Ok(());
        }
        let mut ed = self.edit_keep(len, count + 1)?;
        let dense = ed.is_dense();
        let (values, indices) = ed.whole_parts();
        values.copy_within(k..count, k + 1);
        values[k] = v;
        if !dense {
            indices.copy_within(k..count, k + 1);
            indices[k] = slot as u32;
        }
        // `slot` was absent and sorts between positions k - 1 and k, so the indices
        // stay strictly increasing and below `len`; if the vector is now full it is dense and
        // the values are in index order.
        ed.commit_unchecked();
        Ok(())
    }

    /// For every entry explicit in `src`, calls `f(index, src_value, &mut self_value)`, in
    /// increasing index order. This vector's structure becomes the union of both (entries it
    /// lacked start at zero); it becomes dense if `src` is dense. Entries explicit only here
    /// are untouched. As in ML.NET, `f` sees only explicit entries, so the result depends on
    /// the representation unless `f(i, 0, d) == d`.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch),
    /// [`Capacity`](SparseError::Capacity) (the vector is then unchanged).
    pub fn apply_with<S2: Storage>(
        &mut self,
        src: &VBuffer<S2>,
        mut f: impl FnMut(usize, S2::Elem, &mut S::Elem),
    ) -> Result<(), SparseError> {
        self.same_len_as(src)?;
        self.widen_to(src.side())?;
        let dense = self.is_dense();
        let count = self.count();
        let (values, indices) = self.storage_mut().parts_mut();
        if dense {
            for (i, s) in src.iter() {
                f(i, s, &mut values[i]);
            }
            return Ok(());
        }
        // Sparse, and a superset of `src`'s indices: walk both forward.
        let indices = &indices[..count];
        let mut k = 0;
        for (i, s) in src.iter() {
            while indices[k] as usize != i {
                k += 1;
            }
            f(i, s, &mut values[k]);
        }
        Ok(())
    }

    /// Calls `f(index, src_value, &mut self_value)` for every entry explicit in `src` or in
    /// this vector (zero for the side where it is implicit), in increasing index order. The
    /// structure becomes the union; dense if either is dense. The result depends on the
    /// representation unless `f(i, 0, 0) == 0`.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch),
    /// [`Capacity`](SparseError::Capacity) (the vector is then unchanged).
    pub fn apply_with_either_defined<S2: Storage>(
        &mut self,
        src: &VBuffer<S2>,
        mut f: impl FnMut(usize, S2::Elem, &mut S::Elem),
    ) -> Result<(), SparseError> {
        self.same_len_as(src)?;
        self.widen_to(src.side())?;
        let dense = self.is_dense();
        let count = self.count();
        let (values, indices) = self.storage_mut().parts_mut();
        let values = &mut values[..count];
        let src = src.side();
        let mut j = 0;
        let nj = src.values.len();
        for (k, d) in values.iter_mut().enumerate() {
            let i = if dense { k } else { indices[k] as usize };
            // This vector's indices are a superset of `src`'s.
            let s = if j < nj && src.index(j) == i {
                j += 1;
                src.values[j - 1]
            } else {
                S2::Elem::default()
            };
            f(i, s, d);
        }
        Ok(())
    }

    /// Makes this vector's explicit entries the union of its own and `src`'s (new entries
    /// zero), in place; dense if either is dense. Lengths must match.
    pub(crate) fn widen_to<T2: SparseValue>(
        &mut self,
        src: Side<'_, T2>,
    ) -> Result<(), SparseError> {
        if self.is_dense() {
            return Ok(());
        }
        let Some(src_ix) = src.indices else {
            return self.densify();
        };
        let (len, count) = (self.len(), self.count());
        let n = union_count(self.indices(), src_ix);
        if n == count {
            return Ok(()); // `src`'s indices are already here
        }
        if n == len {
            self.densify()?;
            return Ok(());
        }
        let mut ed = self.edit_keep(len, n)?;
        let (values, indices) = ed.whole_parts();
        // Back to front: output slot k >= i (the entries still to place from here), so no
        // unread entry is overwritten. When `src` runs out, the rest is in place.
        let (mut i, mut j, mut k) = (count, src_ix.len(), n);
        while j > 0 {
            let y = src_ix[j - 1];
            k -= 1;
            if i > 0 && indices[i - 1] >= y {
                if indices[i - 1] == y {
                    j -= 1;
                }
                i -= 1;
                values[k] = values[i];
                indices[k] = indices[i];
            } else {
                values[k] = S::Elem::default();
                indices[k] = y;
                j -= 1;
            }
        }
        debug_assert_eq!(i, k);
        // The sorted union of two valid index lists of the same length, n < len.
        ed.commit_unchecked();
        Ok(())
    }
}

impl<S: Storage> VBuffer<S> {
    /// Writes `f(index, value)` into `dst` for every explicit entry, giving `dst` this
    /// vector's structure (ML.NET's `ApplyIntoEitherDefined`). `dst` may hold another type.
    /// The result depends on the representation unless `f(i, 0) == 0`.
    ///
    /// Errors: [`Capacity`](SparseError::Capacity).
    pub fn map_into<D: StorageMut>(
        &self,
        dst: &mut VBuffer<D>,
        mut f: impl FnMut(usize, S::Elem) -> D::Elem,
    ) -> Result<(), SparseError> {
        let mut ed = dst.edit(self.len(), self.count())?;
        let (values, indices) = ed.parts();
        indices.copy_from_slice(self.indices());
        for (o, (i, v)) in values.iter_mut().zip(self.iter()) {
            *o = f(i, v);
        }
        // A copy of this vector's indices.
        ed.commit_unchecked();
        Ok(())
    }

    /// Writes `f(index, a, b)` into `dst` for every index explicit in `self` (`a`) or
    /// `other` (`b`), zero for the side where it is implicit: `dst` gets the union structure,
    /// dense if either input is dense (ML.NET's `ApplyInto`). Results are stored even if zero.
    /// The result depends on the representation unless `f(i, 0, 0) == 0`.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch),
    /// [`Capacity`](SparseError::Capacity).
    #[inline]
    pub fn apply_into<S2: Storage, D: StorageMut>(
        &self,
        other: &VBuffer<S2>,
        dst: &mut VBuffer<D>,
        mut f: impl FnMut(usize, S::Elem, S2::Elem) -> D::Elem,
    ) -> Result<(), SparseError> {
        let len = self.len();
        same_len(len, other.len())?;
        let (a, b) = (self.side(), other.side());
        let (Some(ia), Some(ib)) = (a.indices, b.indices) else {
            // Either is dense, so the union is every index.
            let mut ed = dst.edit(len, len)?;
            let values = ed.values();
            union_while(a, b, |i, x, y| {
                values[i] = f(i, x, y);
                true
            });
            // Dense: no indices.
            ed.commit_unchecked();
            return Ok(());
        };
        // One pass into an upper bound when the storage has room; else count exactly first.
        let upper = ia.len() + ib.len();
        let exact = if upper < len {
            match dst.edit(len, upper) {
                Ok(mut ed) => {
                    let (values, indices) = ed.parts();
                    let n = union_merge(ia, a.values, ib, b.values, indices, values, &mut f);
                    // `union_merge` wrote the sorted union of two valid index lists
                    // (n <= upper < len).
                    ed.commit_truncated_unchecked(n);
                    return Ok(());
                }
                Err(SparseError::Capacity(_)) => union_count(ia, ib),
                Err(e) => return Err(e),
            }
        } else {
            union_count(ia, ib)
        };
        let mut ed = dst.edit(len, exact)?;
        if ed.is_dense() {
            let values = ed.values();
            let mut k = 0;
            union_while(a, b, |i, x, y| {
                values[k] = f(i, x, y);
                k += 1;
                true
            });
        } else {
            let (values, indices) = ed.parts();
            union_merge(ia, a.values, ib, b.values, indices, values, &mut f);
        }
        // The sorted union of two valid index lists; if it has `len` entries, they are
        // 0..len and the values are in index order (dense).
        ed.commit_unchecked();
        Ok(())
    }
}

/// Merges two sorted sparse vectors into `out_i` / `out_v` (long enough for the union):
/// `out_v[k] = f(index, a or 0, b or 0)`. Returns the number written. (A branch-free step
/// with selects measured slower than these three-way branches.)
#[inline]
pub(crate) fn union_merge<A: SparseValue, B: SparseValue, C>(
    ia: &[u32],
    va: &[A],
    ib: &[u32],
    vb: &[B],
    out_i: &mut [u32],
    out_v: &mut [C],
    f: &mut impl FnMut(usize, A, B) -> C,
) -> usize {
    let (na, nb) = (ia.len(), ib.len());
    let (va, vb) = (&va[..na], &vb[..nb]);
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < na && j < nb {
        let (x, y) = (ia[i], ib[j]);
        let (m, a, b) = if x < y {
            i += 1;
            (x, va[i - 1], B::default())
        } else if y < x {
            j += 1;
            (y, A::default(), vb[j - 1])
        } else {
            i += 1;
            j += 1;
            (x, va[i - 1], vb[j - 1])
        };
        out_v[k] = f(m as usize, a, b);
        out_i[k] = m;
        k += 1;
    }
    for (&x, &a) in ia[i..].iter().zip(&va[i..]) {
        out_v[k] = f(x as usize, a, B::default());
        out_i[k] = x;
        k += 1;
    }
    for (&y, &b) in ib[j..].iter().zip(&vb[j..]) {
        out_v[k] = f(y as usize, A::default(), b);
        out_i[k] = y;
        k += 1;
    }
    k
}
