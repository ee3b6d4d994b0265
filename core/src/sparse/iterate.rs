//! Visiting entries: every explicit entry of one vector, the entries explicit in both of two
//! vectors (intersection) or in either (union), for every dense / sparse combination.

use super::error::SparseError;
use super::storage::Storage;
use super::value::SparseValue;
use super::vbuffer::{Side, VBuffer};

impl<S: Storage> VBuffer<S> {
    /// Calls `f(index, value)` for every explicit entry, in increasing index order (every
    /// entry when dense).
    #[inline]
    pub fn for_each_defined(&self, mut f: impl FnMut(usize, S::Elem)) {
        for (i, v) in self.iter() {
            f(i, v);
        }
    }

    /// Calls `f(index, a, b)` for every index explicit in both `self` (`a`) and `other`
    /// (`b`), in increasing order: all indices when both are dense, the sparse one's when one
    /// is, the intersection when both are sparse.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch).
    pub fn for_each_both_defined<S2: Storage>(
        &self,
        other: &VBuffer<S2>,
        f: impl FnMut(usize, S::Elem, S2::Elem),
    ) -> Result<(), SparseError> {
        same_len(self.len(), other.len())?;
        intersection(self.side(), other.side(), f);
        Ok(())
    }

    /// Calls `f(index, a, b)` for every index explicit in `self` or `other` (the union), in
    /// increasing order, with `T::default()` for the side where it is implicit: all indices
    /// when either is dense.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch).
    pub fn for_each_either_defined<S2: Storage>(
        &self,
        other: &VBuffer<S2>,
        mut f: impl FnMut(usize, S::Elem, S2::Elem),
    ) -> Result<(), SparseError> {
        same_len(self.len(), other.len())?;
        union_while(self.side(), other.side(), |i, a, b| {
            f(i, a, b);
            true
        });
        Ok(())
    }
}

/// `Ok` if the lengths match.
#[inline]
pub(crate) fn same_len(left: usize, right: usize) -> Result<(), SparseError> {
    if left == right {
        Ok(())
    } else {
        Err(SparseError::LengthMismatch { left, right })
    }
}

/// The union merge: `f(index, a, b)` in increasing index order while it returns `true`;
/// returns whether it ran to the end. Both sides must have the same logical length.
#[inline]
pub(crate) fn union_while<A: SparseValue, B: SparseValue>(
    a: Side<'_, A>,
    b: Side<'_, B>,
    mut f: impl FnMut(usize, A, B) -> bool,
) -> bool {
    let (na, nb) = (a.values.len(), b.values.len());
    let (mut i, mut j) = (0, 0);
    while i < na && j < nb {
        let (x, y) = (a.index(i), b.index(j));
        let go = if x < y {
            i += 1;
            f(x, a.values[i - 1], B::default())
        } else if y < x {
            j += 1;
            f(y, A::default(), b.values[j - 1])
        } else {
            i += 1;
            j += 1;
            f(x, a.values[i - 1], b.values[j - 1])
        };
        if !go {
            return false;
        }
    }
    while i < na {
        if !f(a.index(i), a.values[i], B::default()) {
            return false;
        }
        i += 1;
    }
    while j < nb {
        if !f(b.index(j), A::default(), b.values[j]) {
            return false;
        }
        j += 1;
    }
    true
}

/// The intersection merge: `f(index, a, b)` for indices explicit in both, in order.
#[inline]
pub(crate) fn intersection<A: SparseValue, B: SparseValue>(
    a: Side<'_, A>,
    b: Side<'_, B>,
    mut f: impl FnMut(usize, A, B),
) {
    match (a.indices, b.indices) {
        (None, None) => {
            for (k, (&x, &y)) in a.values.iter().zip(b.values).enumerate() {
                f(k, x, y);
            }
        }
        (Some(ia), None) => {
            for (&i, &x) in ia.iter().zip(a.values) {
                f(i as usize, x, b.values[i as usize]);
            }
        }
        (None, Some(ib)) => {
            for (&i, &y) in ib.iter().zip(b.values) {
                f(i as usize, a.values[i as usize], y);
            }
        }
        (Some(ia), Some(ib)) => {
            let (mut i, mut j) = (0, 0);
            while i < ia.len() && j < ib.len() {
                let (x, y) = (ia[i], ib[j]);
                if x == y {
                    f(x as usize, a.values[i], b.values[j]);
                }
                i += (x <= y) as usize;
                j += (y <= x) as usize;
            }
        }
    }
}

/// The number of indices in the union of two sorted index lists.
#[inline]
pub(crate) fn union_count(ia: &[u32], ib: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < ia.len() && j < ib.len() {
        let (x, y) = (ia[i], ib[j]);
        i += (x <= y) as usize;
        j += (y <= x) as usize;
        n += 1;
    }
    n + (ia.len() - i) + (ib.len() - j)
}
