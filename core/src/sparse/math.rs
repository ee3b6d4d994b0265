//! Vector math over any mix of sparse and dense: dot products, sums and norms, scaling,
//! add and add-mult (axpy), distances, element-wise products, extrema and NaN checks.

use super::error::SparseError;
use super::iterate::{same_len, union_while};
use super::kernels;
use super::storage::{Storage, StorageMut};
use super::value::{Float, Numeric, SparseValue};
use super::vbuffer::VBuffer;

impl<S: Storage> VBuffer<S>
where
    S::Elem: Numeric,
{
    /// The dot product. Dense·dense runs a 16-accumulator loop, sparse·dense gathers the
    /// dense side at the sparse indices, sparse·sparse merges the index lists in windows,
    /// galloping across large gaps. O(len), O(count) and O(count_a + count_b) at most.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch).
    #[inline]
    pub fn dot<S2: Storage<Elem = S::Elem>>(
        &self,
        other: &VBuffer<S2>,
    ) -> Result<S::Elem, SparseError> {
        same_len(self.len(), other.len())?;
        Ok(match (self.is_dense(), other.is_dense()) {
            (true, true) => kernels::fold2(self.values(), other.values(), |x, y| x.mul(y)),
            (false, true) => kernels::dot_gather(self.values(), self.indices(), other.values()),
            (true, false) => kernels::dot_gather(other.values(), other.indices(), self.values()),
            (false, false) => kernels::dot_merge(
                self.indices(),
                self.values(),
                other.indices(),
                other.values(),
                self.len(),
            ),
        })
    }

    /// The sum of all entries.
    #[inline]
    pub fn sum(&self) -> S::Elem {
        kernels::fold1(self.values(), |x| x)
    }

    /// The L1 norm, `Σ |x|` (for signed integers `|x|` wraps: see [`Numeric::abs`]).
    #[inline]
    pub fn norm_l1(&self) -> S::Elem {
        kernels::fold1(self.values(), |x| x.abs())
    }

    /// The squared L2 norm, `Σ x²`.
    #[inline]
    pub fn norm_l2_squared(&self) -> S::Elem {
        kernels::fold1(self.values(), |x| x.mul(x))
    }

    /// The L1 distance `Σ |a − b|` over the union of both vectors' entries.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch).
    pub fn dist_l1<S2: Storage<Elem = S::Elem>>(
        &self,
        other: &VBuffer<S2>,
    ) -> Result<S::Elem, SparseError> {
        self.fold_union(other, |a, b| a.sub(b).abs())
    }

    /// The squared L2 distance `Σ (a − b)²`, each difference taken exactly as written, over
    /// the union of both vectors' entries. It never uses `|a|² + |b|² − 2a·b`, which cancels
    /// catastrophically when the vectors are close.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch).
    pub fn dist_l2_squared<S2: Storage<Elem = S::Elem>>(
        &self,
        other: &VBuffer<S2>,
    ) -> Result<S::Elem, SparseError> {
        self.fold_union(other, |a, b| {
            let d = a.sub(b);
            d.mul(d)
        })
    }

    /// `Σ g(a, b)` over the union: the dense fold when both are dense, else in index order.
    fn fold_union<S2: Storage<Elem = S::Elem>>(
        &self,
        other: &VBuffer<S2>,
        g: impl Fn(S::Elem, S::Elem) -> S::Elem,
    ) -> Result<S::Elem, SparseError> {
        same_len(self.len(), other.len())?;
        if self.is_dense() && other.is_dense() {
            return Ok(kernels::fold2(self.values(), other.values(), g));
        }
        let mut acc = S::Elem::ZERO;
        union_while(self.side(), other.side(), |_, a, b| {
            acc = acc.add(g(a, b));
            true
        });
        Ok(acc)
    }

    /// Writes `self + other` into `dst` (union structure, dense if either is dense).
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch),
    /// [`Capacity`](SparseError::Capacity).
    #[inline]
    pub fn add_into<S2: Storage<Elem = S::Elem>, D: StorageMut<Elem = S::Elem>>(
        &self,
        other: &VBuffer<S2>,
        dst: &mut VBuffer<D>,
    ) -> Result<(), SparseError> {
        self.apply_into(other, dst, |_, a, b| a.add(b))
    }
}

impl<S: Storage> VBuffer<S>
where
    S::Elem: Float,
{
    /// The L2 norm, `√Σ x²`.
    #[inline]
    pub fn norm_l2(&self) -> S::Elem {
        self.norm_l2_squared().sqrt()
    }

    /// The largest `|x|` (NaNs are ignored; 0 for an all-zero vector).
    pub fn max_abs(&self) -> S::Elem {
        self.values()
            .iter()
            .fold(S::Elem::ZERO, |m, &x| m.max_ignoring_nan(x.abs()))
    }

    /// The L2 distance, `√Σ (a − b)²` (see [`dist_l2_squared`](Self::dist_l2_squared)).
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch).
    pub fn dist_l2<S2: Storage<Elem = S::Elem>>(
        &self,
        other: &VBuffer<S2>,
    ) -> Result<S::Elem, SparseError> {
        Ok(self.dist_l2_squared(other)?.sqrt())
    }

    /// Whether any entry is NaN.
    pub fn has_nan(&self) -> bool {
        self.values().iter().any(SparseValue::is_nan)
    }

    /// Whether any entry is NaN or infinite.
    pub fn has_non_finite(&self) -> bool {
        self.values().iter().any(|&x| !x.is_finite())
    }
}

impl<S: Storage> VBuffer<S> {
    /// The index and value of the largest entry, counting implicit zeros (the first implicit
    /// index stands for them); the lowest index wins ties; NaNs are skipped (if every entry is
    /// NaN, entry 0). `None` for length 0.
    pub fn arg_max(&self) -> Option<(usize, S::Elem)> {
        self.arg_best(|a, b| a > b)
    }

    /// The index and value of the smallest entry, as [`arg_max`](Self::arg_max).
    pub fn arg_min(&self) -> Option<(usize, S::Elem)> {
        self.arg_best(|a, b| a < b)
    }

    fn arg_best(&self, better: impl Fn(S::Elem, S::Elem) -> bool) -> Option<(usize, S::Elem)> {
        if self.is_empty() {
            return None;
        }
        let mut best: Option<(usize, S::Elem)> = None;
        for (i, v) in self.iter() {
            if v.is_nan() {
                continue;
            }
            match best {
                Some((_, b)) if !better(v, b) => {}
                _ => best = Some((i, v)),
            }
        }
        if !self.is_dense() {
            // The first implicit index: indices[k] >= k, equal on a prefix.
            let ix = self.indices();
            let (mut lo, mut hi) = (0, ix.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if ix[mid] as usize == mid {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            let (gap, zero) = (lo, S::Elem::default());
            best = match best {
                Some((i, b)) if !(better(zero, b) || (zero == b && gap < i)) => Some((i, b)),
                _ => Some((gap, zero)),
            };
        }
        best.or_else(|| Some((0, self.values()[0])))
    }
}

impl<S: StorageMut> VBuffer<S>
where
    S::Elem: Numeric,
{
    /// Multiplies every entry by `c`. `c == 0` sets the explicit values to zero and keeps the
    /// structure (so NaNs and infinities become 0, as in ML.NET).
    pub fn scale_by(&mut self, c: S::Elem) {
        let values = self.values_mut();
        if c.is_default() {
            values.fill(S::Elem::default());
        } else {
            for v in values {
                *v = v.mul(c);
            }
        }
    }

    /// `self += src`. The structure becomes the union (dense if either is dense).
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch),
    /// [`Capacity`](SparseError::Capacity) (the vector is then unchanged).
    pub fn add<S2: Storage<Elem = S::Elem>>(
        &mut self,
        src: &VBuffer<S2>,
    ) -> Result<(), SparseError> {
        self.same_len_as(src)?;
        if self.is_dense() {
            let dense = self.values_mut();
            if src.is_dense() {
                for (d, &s) in dense.iter_mut().zip(src.values()) {
                    *d = d.add(s);
                }
            } else {
                kernels::add_scatter(src.values(), src.indices(), dense);
            }
            return Ok(());
        }
        self.apply_with(src, |_, s, d| *d = d.add(s))
    }

    /// `self += c · src` (axpy). The structure becomes the union (dense if either is dense).
    /// `c == 0` changes nothing, structure included, once the lengths are checked: ML.NET's
    /// `AddMult` returns early there, so an infinite or NaN entry of `src` never reaches
    /// `self` (`0 · ∞` would be NaN).
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch),
    /// [`Capacity`](SparseError::Capacity) (the vector is then unchanged).
    pub fn add_mult<S2: Storage<Elem = S::Elem>>(
        &mut self,
        src: &VBuffer<S2>,
        c: S::Elem,
    ) -> Result<(), SparseError> {
        self.same_len_as(src)?;
        if c.is_default() {
            return Ok(());
        }
        if self.is_dense() {
            let dense = self.values_mut();
            if src.is_dense() {
                for (d, &s) in dense.iter_mut().zip(src.values()) {
                    *d = d.add(c.mul(s));
                }
            } else {
                kernels::axpy_scatter(c, src.values(), src.indices(), dense);
            }
            return Ok(());
        }
        self.apply_with(src, |_, s, d| *d = d.add(c.mul(s)))
    }

    /// `self[i] *= a[i]` for every entry. The structure stays this vector's: its implicit
    /// entries stay zero (a structural zero times anything is zero), its explicit entries are
    /// multiplied by `a`'s entry or by zero.
    ///
    /// Errors: [`LengthMismatch`](SparseError::LengthMismatch).
    pub fn mul_elementwise<S2: Storage<Elem = S::Elem>>(
        &mut self,
        a: &VBuffer<S2>,
    ) -> Result<(), SparseError> {
        self.same_len_as(a)?;
        let a = a.side();
        let dense = self.is_dense();
        let count = self.count();
        let (values, indices) = self.storage_mut().parts_mut();
        let values = &mut values[..count];
        let (na, mut j) = (a.values.len(), 0);
        for (k, d) in values.iter_mut().enumerate() {
            let i = if dense { k } else { indices[k] as usize };
            while j < na && a.index(j) < i {
                j += 1;
            }
            let s = if j < na && a.index(j) == i {
                a.values[j]
            } else {
                S::Elem::ZERO
            };
            *d = d.mul(s);
        }
        Ok(())
    }
}
