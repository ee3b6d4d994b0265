//! In-place work through writable tensors and views — fill, copy, map, and `+=` / `-=` / `*=`
//! with a scalar or a same-shape tensor — running lane by lane in logical order.

use super::lanes::{Lanes, for_each_lane_mut, lane, lane_mut, zip_lane};
use super::{Arithmetic, Element, TensorBase, TensorError};

impl<S: AsRef<[T]> + AsMut<[T]>, T: Element> TensorBase<S, T> {
    /// Calls `f` on every element, writable, in logical order.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut T)) {
        let Some(lanes) = Lanes::new([self.layout()]) else {
            return;
        };
        let (len, stride) = (lanes.lane_len(), lanes.lane_stride(0));
        let data = self.storage_mut().as_mut();
        lanes.for_each_lane(|[start]| for_each_lane_mut(data, start, len, stride, &mut f));
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) {
        let Some(lanes) = Lanes::new([self.layout()]) else {
            return;
        };
        let (len, stride) = (lanes.lane_len(), lanes.lane_stride(0));
        let data = self.storage_mut().as_mut();
        lanes.for_each_lane(|[start]| {
            if stride == 1 {
                lane_mut(data, start, len, 1).fill(value);
            } else {
                for_each_lane_mut(data, start, len, stride, |x| *x = value);
            }
        });
    }

    /// Replaces every element `x` with `f(x)`.
    pub fn map_inplace(&mut self, mut f: impl FnMut(T) -> T) {
        self.for_each_mut(|x| *x = f(*x));
    }

    /// Calls `f(&mut self[i], other[i])` for every index `i` of two same-shape tensors, in
    /// logical order.
    ///
    /// Errors: [`RankMismatch`](TensorError::RankMismatch),
    /// [`ShapeMismatch`](TensorError::ShapeMismatch); nothing is written then.
    pub fn zip_mut_with<S2: AsRef<[U]>, U: Element>(
        &mut self,
        other: &TensorBase<S2, U>,
        mut f: impl FnMut(&mut T, U),
    ) -> Result<(), TensorError> {
        self.layout().check_same_shape(other.layout())?;
        let Some(lanes) = Lanes::new([self.layout(), other.layout()]) else {
            return Ok(());
        };
        let len = lanes.lane_len();
        let (sa, sb) = (lanes.lane_stride(0), lanes.lane_stride(1));
        let src = other.storage().as_ref();
        let dst = self.storage_mut().as_mut();
        lanes.for_each_lane(|[a, b]| zip_lane(dst, a, sa, src, b, sb, len, &mut f));
        Ok(())
    }

    /// Copies a same-shape tensor (or view, of any layout) into this one.
    ///
    /// Errors: [`RankMismatch`](TensorError::RankMismatch),
    /// [`ShapeMismatch`](TensorError::ShapeMismatch); nothing is written then.
    pub fn copy_from<S2: AsRef<[T]>>(
        &mut self,
        src: &TensorBase<S2, T>,
    ) -> Result<(), TensorError> {
        self.layout().check_same_shape(src.layout())?;
        let Some(lanes) = Lanes::new([self.layout(), src.layout()]) else {
            return Ok(());
        };
        let len = lanes.lane_len();
        if (lanes.lane_stride(0), lanes.lane_stride(1)) != (1, 1) {
            return self.zip_mut_with(src, |x, y| *x = y);
        }
        let from = src.storage().as_ref();
        let to = self.storage_mut().as_mut();
        lanes.for_each_lane(|[a, b]| {
            let out = lane_mut(to, a, len, 1);
            let inp = lane(from, b, len, 1);
            if out.len() == inp.len() {
                out.copy_from_slice(inp);
            }
        });
        Ok(())
    }

    /// Copies `src`, read as the elements in logical order, into this tensor.
    ///
    /// Errors: [`LengthMismatch`](TensorError::LengthMismatch) if `src` does not hold exactly
    /// [`len`](Self::len) elements (`len` is then `src.len()`).
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<(), TensorError> {
        if src.len() != self.len() {
            return Err(TensorError::LengthMismatch {
                needed: self.len(),
                len: src.len(),
            });
        }
        if let Some(out) = self.as_slice_mut() {
            out.copy_from_slice(src);
            return Ok(());
        }
        let mut it = src.iter();
        self.for_each_mut(|x| {
            if let Some(y) = it.next() {
                *x = *y;
            }
        });
        Ok(())
    }
}

impl<S: AsRef<[T]> + AsMut<[T]>, T: Arithmetic> TensorBase<S, T> {
    /// Adds `value` to every element (integers wrap).
    pub fn add_assign_scalar(&mut self, value: T) {
        self.for_each_mut(|x| *x = x.add(value));
    }

    /// Subtracts `value` from every element (integers wrap).
    pub fn sub_assign_scalar(&mut self, value: T) {
        self.for_each_mut(|x| *x = x.sub(value));
    }

    /// Multiplies every element by `value` (integers wrap).
    pub fn mul_assign_scalar(&mut self, value: T) {
        self.for_each_mut(|x| *x = x.mul(value));
    }

    /// `self[i] += other[i]` for every index of two same-shape tensors (integers wrap).
    ///
    /// Errors: those of [`zip_mut_with`](Self::zip_mut_with).
    pub fn add_assign<S2: AsRef<[T]>>(
        &mut self,
        other: &TensorBase<S2, T>,
    ) -> Result<(), TensorError> {
        self.zip_mut_with(other, |x, y| *x = x.add(y))
    }

    /// `self[i] -= other[i]` for every index of two same-shape tensors (integers wrap).
    ///
    /// Errors: those of [`zip_mut_with`](Self::zip_mut_with).
    pub fn sub_assign<S2: AsRef<[T]>>(
        &mut self,
        other: &TensorBase<S2, T>,
    ) -> Result<(), TensorError> {
        self.zip_mut_with(other, |x, y| *x = x.sub(y))
    }

    /// `self[i] *= other[i]` for every index of two same-shape tensors (integers wrap).
    ///
    /// Errors: those of [`zip_mut_with`](Self::zip_mut_with).
    pub fn mul_assign<S2: AsRef<[T]>>(
        &mut self,
        other: &TensorBase<S2, T>,
    ) -> Result<(), TensorError> {
        self.zip_mut_with(other, |x, y| *x = x.mul(y))
    }
}
