//! Where a tensor's elements are in its buffer: shape, strides in elements and offset, with up
//! to [`MAX_RANK`] dimensions stored inline, validated once so that every element it names is
//! inside a buffer of [`Layout::span`] elements.

use core::fmt;

use super::TensorError;

/// The most dimensions a tensor may have (TFLite and ONNX models rarely pass 6).
pub const MAX_RANK: usize = 8;

/// Shape, strides (in elements) and offset (in elements) of a dense tensor.
///
/// A `Layout` always satisfies: the element count fits in `usize`, and, if the tensor is not
/// empty, so does the position of its furthest element
/// (`offset + Σ (shape[i] - 1) · strides[i]`). Whether it fits a buffer is checked by the
/// tensor that uses it ([`span`](Self::span) elements are needed).
#[derive(Clone, Copy)]
pub struct Layout {
    shape: [usize; MAX_RANK],
    strides: [usize; MAX_RANK],
    offset: usize,
    /// Number of elements: the product of the shape.
    len: usize,
    /// Elements a buffer needs: 0 when empty, else position of the furthest element + 1.
    span: usize,
    rank: u8,
}

impl Layout {
    /// A rank-0 layout: one element at position 0.
    #[inline]
    pub const fn scalar() -> Self {
        Self {
            shape: [0; MAX_RANK],
            strides: [0; MAX_RANK],
            offset: 0,
            len: 1,
            span: 1,
            rank: 0,
        }
    }

    /// A rank-1 layout of length 0.
    pub(crate) const fn empty() -> Self {
        Self::flat(0)
    }

    /// The rank-1 contiguous layout of `len` elements (never fails).
    #[inline]
    pub const fn flat(len: usize) -> Self {
        let mut shape = [0; MAX_RANK];
        let mut strides = [0; MAX_RANK];
        shape[0] = len;
        strides[0] = 1;
        Self {
            shape,
            strides,
            offset: 0,
            len,
            span: len,
            rank: 1,
        }
    }

    /// Row-major (C order) layout of `shape` at offset 0, as numpy lays out a new array.
    ///
    /// Errors: [`RankTooLarge`](TensorError::RankTooLarge),
    /// [`TooLarge`](TensorError::TooLarge).
    #[inline]
    pub fn contiguous(shape: &[usize]) -> Result<Self, TensorError> {
        let len = Self::count(shape)?;
        Ok(Self::row_major(shape, len))
    }

    /// [`contiguous`](Self::contiguous) for a shape already checked: `len` is
    /// [`count`](Self::count)`(shape)`. Never fails (extra axes are ignored).
    #[inline]
    pub(crate) fn row_major(shape: &[usize], len: usize) -> Self {
        let mut out = Self::scalar();
        out.set_row_major(shape, len);
        out
    }

    /// [`row_major`](Self::row_major), written in place (no 160-byte moves).
    #[inline]
    pub(crate) fn set_row_major(&mut self, shape: &[usize], len: usize) {
        let rank = shape.len().min(MAX_RANK);
        self.rank = rank as u8;
        self.offset = 0;
        self.shape = [0; MAX_RANK];
        self.strides = [0; MAX_RANK];
        self.shape[..rank].copy_from_slice(&shape[..rank]);
        // numpy's rule: strides as if zero-length axes had length 1. They only matter when
        // the tensor is not empty, and then the products fit (they are at most `len`).
        let mut stride = 1usize;
        for axis in (0..rank).rev() {
            self.strides[axis] = stride;
            stride = stride.saturating_mul(shape[axis].max(1));
        }
        self.len = len;
        self.span = len;
    }

    /// The element count of a row-major tensor of `shape`: what [`contiguous`](Self::contiguous)
    /// checks, without building the layout.
    ///
    /// Errors: as [`contiguous`](Self::contiguous).
    #[inline]
    pub fn count(shape: &[usize]) -> Result<usize, TensorError> {
        check_rank(shape.len())?;
        if shape.contains(&0) {
            return Ok(0);
        }
        let mut len = 1usize;
        for (axis, &dim) in shape.iter().enumerate().rev() {
            len = len.checked_mul(dim).ok_or(TensorError::TooLarge { axis })?;
        }
        Ok(len)
    }

    /// A layout with explicit strides and offset (in elements).
    ///
    /// Errors: [`RankTooLarge`](TensorError::RankTooLarge),
    /// [`StridesMismatch`](TensorError::StridesMismatch), [`TooLarge`](TensorError::TooLarge).
    #[inline]
    pub fn new(shape: &[usize], strides: &[usize], offset: usize) -> Result<Self, TensorError> {
        check_rank(shape.len())?;
        if strides.len() != shape.len() {
            return Err(TensorError::StridesMismatch {
                shape: shape.len(),
                strides: strides.len(),
            });
        }
        let mut out = Self::scalar();
        out.offset = offset;
        for (&dim, &stride) in shape.iter().zip(strides) {
            out.push_unchecked(dim, stride);
        }
        out.finish()?;
        Ok(out)
    }

    /// Appends a dimension without recomputing `len` / `span`; [`finish`](Self::finish) must
    /// follow. The caller keeps `rank < MAX_RANK`.
    pub(crate) fn push_unchecked(&mut self, dim: usize, stride: usize) {
        let axis = usize::from(self.rank);
        if axis < MAX_RANK {
            self.shape[axis] = dim;
            self.strides[axis] = stride;
            self.rank += 1;
        }
    }

    /// An empty rank-0 builder at `offset` for [`push_unchecked`](Self::push_unchecked).
    pub(crate) fn builder(offset: usize) -> Self {
        Self {
            offset,
            ..Self::scalar()
        }
    }

    /// Moves the first element; [`finish`](Self::finish) must follow.
    pub(crate) fn set_offset(&mut self, offset: usize) {
        self.offset = offset;
    }

    /// Recomputes `len` and `span`, checking both fit in `usize`.
    #[inline]
    pub(crate) fn finish(&mut self) -> Result<(), TensorError> {
        let rank = self.rank();
        let shape = &self.shape[..rank];
        if shape.contains(&0) {
            self.len = 0;
            self.span = 0;
            return Ok(());
        }
        let mut len = 1usize;
        let mut last = self.offset;
        for axis in 0..rank {
            let (dim, stride) = (self.shape[axis], self.strides[axis]);
            len = len.checked_mul(dim).ok_or(TensorError::TooLarge { axis })?;
            last = (dim - 1)
                .checked_mul(stride)
                .and_then(|reach| last.checked_add(reach))
                .ok_or(TensorError::TooLarge { axis })?;
        }
        self.len = len;
        self.span = last
            .checked_add(1)
            .ok_or(TensorError::TooLarge { axis: rank })?;
        Ok(())
    }

    /// Number of dimensions.
    #[inline]
    pub fn rank(&self) -> usize {
        usize::from(self.rank)
    }

    /// Length along each dimension.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape[..self.rank()]
    }

    /// Elements between neighbours along each dimension.
    #[inline]
    pub fn strides(&self) -> &[usize] {
        &self.strides[..self.rank()]
    }

    /// Position of the first element in the buffer (meaningless when empty).
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of elements (product of the shape; 1 for rank 0).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tensor has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Elements a buffer must hold for this layout: 0 when empty, else the position of the
    /// furthest element plus one.
    #[inline]
    pub fn span(&self) -> usize {
        self.span
    }

    /// Whether the elements are adjacent in row-major order (strides of length-1 axes are
    /// ignored, as numpy does). Empty layouts are contiguous.
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        if self.len == 0 {
            return true;
        }
        let mut expected = 1usize;
        for axis in (0..self.rank()).rev() {
            let dim = self.shape[axis];
            if dim != 1 {
                if self.strides[axis] != expected {
                    return false;
                }
                // Cannot overflow: the product of the shape fits (`len`).
                expected *= dim;
            }
        }
        true
    }

    /// Position in the buffer of the element at `index` (one entry per dimension), or `None`
    /// if `index` has the wrong length or is out of range.
    #[inline]
    pub fn position(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.rank() {
            return None;
        }
        let mut pos = self.offset;
        for ((&i, &dim), &stride) in index.iter().zip(self.shape()).zip(self.strides()) {
            if i >= dim {
                return None;
            }
            // Cannot overflow: i < dim, so the sum is at most the furthest element.
            pos += i * stride;
        }
        Some(pos)
    }

    /// The same elements as a row-major layout of `shape`, if this layout is contiguous and
    /// `shape` has as many elements.
    ///
    /// Errors: those of [`contiguous`](Self::contiguous), and
    /// [`LengthMismatch`](TensorError::LengthMismatch) if the element counts differ or this
    /// layout is not contiguous (`needed` is then this layout's element count).
    pub fn reshape(&self, shape: &[usize]) -> Result<Self, TensorError> {
        let mut out = Self::contiguous(shape)?;
        if out.len != self.len || !self.is_contiguous() {
            return Err(TensorError::LengthMismatch {
                needed: out.len,
                len: self.len,
            });
        }
        if out.len != 0 {
            out.offset = self.offset;
            out.span = self.offset + out.len;
        }
        Ok(out)
    }

    /// Checks that the buffer of `len` elements holds every element.
    #[inline]
    pub(crate) fn check_fits(&self, len: usize) -> Result<(), TensorError> {
        if self.span > len {
            return Err(TensorError::OutOfBounds {
                needed: self.span,
                len,
            });
        }
        Ok(())
    }

    /// Checks that `other` has the same shape.
    pub(crate) fn check_same_shape(&self, other: &Layout) -> Result<(), TensorError> {
        if self.rank != other.rank {
            return Err(TensorError::RankMismatch {
                this: self.rank(),
                other: other.rank(),
            });
        }
        for (axis, (&a, &b)) in self.shape().iter().zip(other.shape()).enumerate() {
            if a != b {
                return Err(TensorError::ShapeMismatch {
                    axis,
                    this: a,
                    other: b,
                });
            }
        }
        Ok(())
    }
}

#[inline]
fn check_rank(rank: usize) -> Result<(), TensorError> {
    if rank > MAX_RANK {
        return Err(TensorError::RankTooLarge {
            rank,
            max: MAX_RANK,
        });
    }
    Ok(())
}

impl PartialEq for Layout {
    fn eq(&self, other: &Self) -> bool {
        self.shape() == other.shape()
            && self.strides() == other.strides()
            && self.offset == other.offset
    }
}

impl Eq for Layout {}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Layout")
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("offset", &self.offset)
            .finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Layout {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Layout {{ shape: {}, strides: {}, offset: {} }}",
            self.shape(),
            self.strides(),
            self.offset
        )
    }
}
