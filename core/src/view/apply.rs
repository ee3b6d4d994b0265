//! Making views: indices applied to a [`Layout`] in O(rank) with no allocation, and the
//! `view` / `view_mut` methods that wrap the same buffer in the new layout.

use super::dl4j::Indices;
use super::index::{resolve_interval, resolve_point};
use super::{ViewError, ViewIndex};
use crate::tensor::{Element, Layout, MAX_RANK, TensorBase, TensorView, TensorViewMut};

impl Layout {
    /// The layout of the view chosen by `indices` (one per axis, [`NewAxis`](ViewIndex::NewAxis)
    /// taking none, missing trailing ones meaning [`All`](ViewIndex::All)), with numpy's
    /// basic-slicing semantics. The view's elements are a subset of this layout's.
    ///
    /// Errors: [`TooManyIndices`](ViewError::TooManyIndices),
    /// [`PointOutOfRange`](ViewError::PointOutOfRange), [`BadStride`](ViewError::BadStride),
    /// [`RankTooLarge`](ViewError::RankTooLarge).
    ///
    /// ```
    /// use tessera_core::tensor::Layout;
    /// use tessera_core::view::ViewIndex;
    ///
    /// let l = Layout::contiguous(&[4, 5]).unwrap();
    /// // numpy: a[1:, ::2]
    /// let v = l.view(&[ViewIndex::from(1..), ViewIndex::from_by(0, 2)]).unwrap();
    /// assert_eq!((v.shape(), v.strides(), v.offset()), (&[3, 3][..], &[5, 2][..], 5));
    /// ```
    pub fn view(&self, indices: &[ViewIndex]) -> Result<Layout, ViewError> {
        self.view_iter(indices.iter().map(|&i| Ok(i)))
    }

    /// [`view`](Self::view) with the indices in DL4J's INT64 encoding
    /// ([`dl4j`](super::dl4j)).
    ///
    /// Errors: those of [`view`](Self::view), and [`Encoding`](ViewError::Encoding).
    pub fn view_encoded(&self, words: &[i64]) -> Result<Layout, ViewError> {
        self.view_iter(Indices::new(words).map(|r| r.map_err(ViewError::from)))
    }

    fn view_iter(
        &self,
        indices: impl Iterator<Item = Result<ViewIndex, ViewError>>,
    ) -> Result<Layout, ViewError> {
        let (shape, strides) = (self.shape(), self.strides());
        let rank = shape.len();
        // Offsets saturate: they can only overflow for empty views, which are never read.
        let mut offset = self.offset();
        let mut out = Layout::builder(0);
        let mut axis = 0;
        let mut position = 0;
        for index in indices {
            let index = index?;
            if index == ViewIndex::NewAxis {
                push(&mut out, position, 1, 0)?;
                position += 1;
                continue;
            }
            let (Some(&dim), Some(&stride)) = (shape.get(axis), strides.get(axis)) else {
                return Err(ViewError::TooManyIndices { position, rank });
            };
            match index {
                ViewIndex::Point(i) => {
                    let p = resolve_point(i, dim).ok_or(ViewError::PointOutOfRange {
                        position,
                        axis,
                        index: i,
                        len: dim,
                    })?;
                    offset = offset.saturating_add(p.saturating_mul(stride));
                }
                ViewIndex::Interval {
                    start,
                    end,
                    stride: step,
                    inclusive,
                } => {
                    if step < 1 {
                        return Err(ViewError::BadStride {
                            position,
                            stride: step,
                        });
                    }
                    let (first, n) = resolve_interval(start, end, step, inclusive, dim);
                    offset = offset.saturating_add(first.saturating_mul(stride));
                    // numpy: an empty interval keeps the axis's stride (step 1). Otherwise the
                    // product is exact when n > 1 (the step is then shorter than the axis),
                    // and is never multiplied by more than 0 when n == 1.
                    let step = if n == 0 {
                        1
                    } else {
                        usize::try_from(step).unwrap_or(usize::MAX)
                    };
                    push(&mut out, position, n, stride.saturating_mul(step))?;
                }
                ViewIndex::All => push(&mut out, position, dim, stride)?,
                ViewIndex::NewAxis => {}
            }
            axis += 1;
            position += 1;
        }
        for a in axis..rank {
            push(&mut out, position, shape[a], strides[a])?;
        }
        out.set_offset(offset);
        // A subset of this layout's elements, so this cannot fail when the view is not empty;
        // for an empty view nothing is checked.
        out.finish().map_err(|_| ViewError::RankTooLarge {
            position,
            max: MAX_RANK,
        })?;
        Ok(out)
    }
}

/// Appends a dimension to a view under construction, refusing to pass [`MAX_RANK`].
fn push(out: &mut Layout, position: usize, dim: usize, stride: usize) -> Result<(), ViewError> {
    if out.rank() == MAX_RANK {
        return Err(ViewError::RankTooLarge {
            position,
            max: MAX_RANK,
        });
    }
    out.push_unchecked(dim, stride);
    Ok(())
}

impl<S: AsRef<[T]>, T: Element> TensorBase<S, T> {
    /// A read-only view of part of this tensor, sharing its buffer (no copy). `indices` as in
    /// [`Layout::view`].
    ///
    /// Errors: as [`Layout::view`].
    pub fn view(&self, indices: &[ViewIndex]) -> Result<TensorView<'_, T>, ViewError> {
        let layout = self.layout().view(indices)?;
        Ok(TensorBase::from_trusted(self.storage().as_ref(), layout))
    }

    /// DL4J's `CreateView`: [`view`](Self::view) with the indices in INT64 encoding.
    ///
    /// Errors: as [`Layout::view_encoded`].
    pub fn view_encoded(&self, words: &[i64]) -> Result<TensorView<'_, T>, ViewError> {
        let layout = self.layout().view_encoded(words)?;
        Ok(TensorBase::from_trusted(self.storage().as_ref(), layout))
    }
}

impl<S: AsRef<[T]> + AsMut<[T]>, T: Element> TensorBase<S, T> {
    /// A writable view of part of this tensor, sharing its buffer: writes through it change
    /// this tensor. `indices` as in [`Layout::view`].
    ///
    /// Errors: as [`Layout::view`].
    pub fn view_mut(&mut self, indices: &[ViewIndex]) -> Result<TensorViewMut<'_, T>, ViewError> {
        let layout = self.layout().view(indices)?;
        Ok(TensorBase::from_trusted(
            self.storage_mut().as_mut(),
            layout,
        ))
    }

    /// DL4J's `CreateView`, writable: [`view_mut`](Self::view_mut) with the indices in INT64
    /// encoding.
    ///
    /// Errors: as [`Layout::view_encoded`].
    pub fn view_encoded_mut(&mut self, words: &[i64]) -> Result<TensorViewMut<'_, T>, ViewError> {
        let layout = self.layout().view_encoded(words)?;
        Ok(TensorBase::from_trusted(
            self.storage_mut().as_mut(),
            layout,
        ))
    }
}

impl<'a, T: Element> TensorView<'a, T> {
    /// [`view`](TensorBase::view), consuming this view and keeping its borrow `'a`.
    ///
    /// Errors: as [`Layout::view`].
    pub fn into_view(self, indices: &[ViewIndex]) -> Result<TensorView<'a, T>, ViewError> {
        let (data, layout) = self.into_parts();
        Ok(TensorBase::from_trusted(data, layout.view(indices)?))
    }
}

impl<'a, T: Element> TensorViewMut<'a, T> {
    /// [`view_mut`](TensorBase::view_mut), consuming this view and keeping its borrow `'a`.
    ///
    /// Errors: as [`Layout::view`].
    pub fn into_view_mut(self, indices: &[ViewIndex]) -> Result<TensorViewMut<'a, T>, ViewError> {
        let (data, layout) = self.into_parts();
        Ok(TensorBase::from_trusted(data, layout.view(indices)?))
    }
}
