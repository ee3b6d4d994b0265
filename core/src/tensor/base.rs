//! [`TensorBase`]: one dense tensor type over any storage that derefs to a slice — borrowed
//! (`&[T]`, `&mut [T]`), fixed arrays, or (in `tessera-alloc`) a `Vec` — the ndarray pattern.

use core::marker::PhantomData;

use super::iter::Iter;
use super::{DType, Element, InvalidTensor, Layout, TensorError};

/// A dense tensor of `T` in storage `S` (anything that is `AsRef<[T]>`; `AsMut<[T]>` to
/// write), with a [`Layout`] checked once, at construction, to fit the storage.
///
/// Use the aliases [`TensorView`] and [`TensorViewMut`] for borrowed tensors; every tensor
/// turns into one for free with [`as_view`](Self::as_view) / [`as_view_mut`](Self::as_view_mut),
/// and into a view of part of itself with [`view`](Self::view) / [`view_mut`](Self::view_mut).
#[derive(Clone, Copy, Debug)]
pub struct TensorBase<S, T> {
    data: S,
    layout: Layout,
    elem: PhantomData<T>,
}

/// A read-only tensor borrowing its elements.
pub type TensorView<'a, T> = TensorBase<&'a [T], T>;

/// A writable tensor borrowing its elements: in-place operations through it change the
/// buffer it was made from.
pub type TensorViewMut<'a, T> = TensorBase<&'a mut [T], T>;

impl<S: AsRef<[T]>, T: Element> TensorBase<S, T> {
    /// A row-major tensor of `shape` over `data`, which must hold exactly its elements.
    ///
    /// Errors: [`LengthMismatch`](TensorError::LengthMismatch), and those of
    /// [`Layout::contiguous`].
    ///
    /// ```
    /// use tessera_core::tensor::TensorView;
    ///
    /// let data = [1, 2, 3, 4, 5, 6];
    /// let t = TensorView::new(&data[..], &[2, 3]).unwrap();
    /// assert_eq!(t.get(&[1, 0]), Some(&4));
    /// ```
    pub fn new(data: S, shape: &[usize]) -> Result<Self, TensorError> {
        let layout = Layout::contiguous(shape)?;
        let len = data.as_ref().len();
        if len != layout.len() {
            return Err(TensorError::LengthMismatch {
                needed: layout.len(),
                len,
            });
        }
        Ok(Self::from_trusted(data, layout))
    }

    /// [`new`](Self::new), giving the storage back with the reason on failure.
    ///
    /// Errors: as [`new`](Self::new).
    pub fn try_new(data: S, shape: &[usize]) -> Result<Self, InvalidTensor<S>> {
        let layout = match Layout::contiguous(shape) {
            Ok(l) => l,
            Err(error) => return Err(InvalidTensor { error, data }),
        };
        let len = data.as_ref().len();
        if len != layout.len() {
            let error = TensorError::LengthMismatch {
                needed: layout.len(),
                len,
            };
            return Err(InvalidTensor { error, data });
        }
        Ok(Self::from_trusted(data, layout))
    }

    /// A rank-1 tensor over all of `data` (never fails).
    pub fn flat(data: S) -> Self {
        let layout = Layout::flat(data.as_ref().len());
        Self::from_trusted(data, layout)
    }

    /// A tensor of any layout over `data`, which must hold every element the layout names.
    ///
    /// Errors: [`OutOfBounds`](TensorError::OutOfBounds).
    pub fn with_layout(data: S, layout: Layout) -> Result<Self, TensorError> {
        layout.check_fits(data.as_ref().len())?;
        Ok(Self::from_trusted(data, layout))
    }

    /// Wraps a layout already known to fit `data`.
    pub(crate) fn from_trusted(data: S, layout: Layout) -> Self {
        Self {
            data,
            layout,
            elem: PhantomData,
        }
    }

    /// The storage and the layout.
    pub fn into_parts(self) -> (S, Layout) {
        (self.data, self.layout)
    }

    /// The whole storage, including elements outside the layout.
    pub fn storage(&self) -> &S {
        &self.data
    }

    /// The layout: shape, strides and offset in elements.
    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Length along each dimension.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// Strides in elements.
    #[inline]
    pub fn strides(&self) -> &[usize] {
        self.layout.strides()
    }

    /// Number of dimensions.
    #[inline]
    pub fn rank(&self) -> usize {
        self.layout.rank()
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.layout.len()
    }

    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.layout.is_empty()
    }

    /// The element type's tag.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Whether the elements are adjacent in row-major order.
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// The element at `index`, or `None` if `index` is out of range or of the wrong length.
    pub fn get(&self, index: &[usize]) -> Option<&T> {
        self.data.as_ref().get(self.layout.position(index)?)
    }

    /// The elements as one slice in logical order, if the tensor is contiguous.
    pub fn as_slice(&self) -> Option<&[T]> {
        if !self.layout.is_contiguous() {
            return None;
        }
        let start = if self.is_empty() {
            0
        } else {
            self.layout.offset()
        };
        self.data.as_ref().get(start..start + self.len())
    }

    /// A read-only view of the whole tensor (no copy).
    pub fn as_view(&self) -> TensorView<'_, T> {
        TensorBase::from_trusted(self.data.as_ref(), self.layout)
    }

    /// The elements in logical (row-major) order; contiguous tensors iterate a plain slice.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter::new(self.data.as_ref(), &self.layout)
    }

    /// Copies the elements in logical order into `out`, which must hold exactly
    /// [`len`](Self::len) elements.
    ///
    /// Errors: [`LengthMismatch`](TensorError::LengthMismatch).
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<(), TensorError> {
        if out.len() != self.len() {
            return Err(TensorError::LengthMismatch {
                needed: self.len(),
                len: out.len(),
            });
        }
        for (o, x) in out.iter_mut().zip(self.iter()) {
            *o = *x;
        }
        Ok(())
    }

    /// The same elements under a new row-major shape, if the tensor is contiguous.
    ///
    /// Errors: those of [`Layout::reshape`].
    pub fn reshape(&self, shape: &[usize]) -> Result<TensorView<'_, T>, TensorError> {
        let layout = self.layout.reshape(shape)?;
        Ok(TensorBase::from_trusted(self.data.as_ref(), layout))
    }
}

impl<S: AsRef<[T]> + AsMut<[T]>, T: Element> TensorBase<S, T> {
    /// A writable view of the whole tensor (no copy).
    pub fn as_view_mut(&mut self) -> TensorViewMut<'_, T> {
        TensorBase::from_trusted(self.data.as_mut(), self.layout)
    }

    /// The element at `index`, writable.
    pub fn get_mut(&mut self, index: &[usize]) -> Option<&mut T> {
        let pos = self.layout.position(index)?;
        self.data.as_mut().get_mut(pos)
    }

    /// The elements as one writable slice in logical order, if the tensor is contiguous.
    pub fn as_slice_mut(&mut self) -> Option<&mut [T]> {
        if !self.layout.is_contiguous() {
            return None;
        }
        let start = if self.is_empty() {
            0
        } else {
            self.layout.offset()
        };
        let len = self.len();
        self.data.as_mut().get_mut(start..start + len)
    }

    /// The whole storage, writable, including elements outside the layout.
    pub fn storage_mut(&mut self) -> &mut S {
        &mut self.data
    }

    /// The same elements under a new row-major shape, writable, if the tensor is contiguous.
    ///
    /// Errors: those of [`Layout::reshape`].
    pub fn reshape_mut(&mut self, shape: &[usize]) -> Result<TensorViewMut<'_, T>, TensorError> {
        let layout = self.layout.reshape(shape)?;
        Ok(TensorBase::from_trusted(self.data.as_mut(), layout))
    }
}

impl<'a, T: Element> TensorView<'a, T> {
    /// The elements in logical order, for the whole borrow `'a`.
    pub fn into_iter_view(self) -> Iter<'a, T> {
        Iter::new(self.data, &self.layout)
    }
}

impl<'a, T: Element> TensorViewMut<'a, T> {
    /// A view of no elements, as a placeholder.
    pub(crate) fn empty() -> Self {
        TensorBase::from_trusted(&mut [], Layout::empty())
    }

    /// Gives up writing: a read-only view of the same elements for the whole borrow `'a`.
    pub fn into_view_ref(self) -> TensorView<'a, T> {
        TensorBase::from_trusted(self.data, self.layout)
    }
}

impl<'a, T: Element> IntoIterator for &'a TensorView<'_, T> {
    type Item = &'a T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}
