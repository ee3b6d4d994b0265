//! An owned dense tensor: core's [`TensorBase`] over a `Vec<T>`, contiguous, reusable across
//! batches ([`OwnedTensor::resize`] keeps the capacity).

use alloc::vec::Vec;
use core::ops::Deref;

use tessera_core::tensor::{
    Element, InvalidTensor, Layout, TensorBase, TensorError, TensorView, TensorViewMut,
};
use tessera_core::view::{ViewError, ViewIndex};

/// A row-major tensor that owns its elements. Read-only methods (`shape`, `iter`, `view`,
/// `shrink`, …) are core's, through `Deref`; writable access is through
/// [`as_view_mut`](Self::as_view_mut) and [`view_mut`](Self::view_mut), so the `Vec` cannot be
/// resized behind the layout's back.
///
/// ```
/// use tessera_alloc::OwnedTensor;
/// use tessera_core::view::ViewIndex;
///
/// let mut t = OwnedTensor::<f32>::zeros(&[2, 3]).unwrap();
/// t.view_mut(&[ViewIndex::All, ViewIndex::Point(-1)]).unwrap().fill(1.0);
/// assert_eq!(t.as_slice(), Some(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0][..]));
/// let column = OwnedTensor::from_view(&t.view(&[ViewIndex::All, ViewIndex::Point(2)]).unwrap());
/// assert_eq!(column.shape(), &[2]);
/// ```
#[derive(Clone, Debug)]
pub struct OwnedTensor<T: Element> {
    inner: TensorBase<Vec<T>, T>,
}

/// [`OwnedTensor::from_vec`] failed: the elements (`data`) come back with the reason (`error`).
pub type FromVecError<T> = InvalidTensor<Vec<T>>;

impl<T: Element> OwnedTensor<T> {
    /// A tensor of `shape` filled with `T::default()` (zero, `false`).
    ///
    /// Errors: those of [`Layout::contiguous`].
    pub fn zeros(shape: &[usize]) -> Result<Self, TensorError> {
        let layout = Layout::contiguous(shape)?;
        let mut data = Vec::new();
        data.resize(layout.len(), T::default());
        Ok(Self {
            inner: TensorBase::with_layout(data, layout)?,
        })
    }

    /// A tensor of `shape` over `data`, which must hold exactly its elements (row-major).
    ///
    /// Errors: [`FromVecError`] with the elements and the reason (those of
    /// [`TensorBase::new`]).
    pub fn from_vec(data: Vec<T>, shape: &[usize]) -> Result<Self, FromVecError<T>> {
        TensorBase::try_new(data, shape).map(|inner| Self { inner })
    }

    /// A contiguous copy of any tensor or view.
    pub fn from_view<S: AsRef<[T]>>(src: &TensorBase<S, T>) -> Self {
        let data: Vec<T> = src.iter().copied().collect();
        // Cannot fail (same shape, as many elements); flat if it somehow did.
        let inner =
            TensorBase::try_new(data, src.shape()).unwrap_or_else(|e| TensorBase::flat(e.data));
        Self { inner }
    }

    /// Changes the shape, keeping the capacity: elements up to the new length keep their
    /// values (in row-major order), new ones are `T::default()`.
    ///
    /// Errors: those of [`Layout::contiguous`]; the tensor is unchanged then.
    pub fn resize(&mut self, shape: &[usize]) -> Result<(), TensorError> {
        let layout = Layout::contiguous(shape)?;
        let inner = core::mem::replace(&mut self.inner, TensorBase::flat(Vec::new()));
        let (mut data, _) = inner.into_parts();
        data.resize(layout.len(), T::default());
        // Cannot fail (just sized); flat if it somehow did.
        self.inner = TensorBase::try_new(data, shape).unwrap_or_else(|e| TensorBase::flat(e.data));
        Ok(())
    }

    /// Elements the tensor can hold without reallocating.
    pub fn capacity(&self) -> usize {
        self.inner.storage().capacity()
    }

    /// The whole tensor, writable.
    pub fn as_view_mut(&mut self) -> TensorViewMut<'_, T> {
        self.inner.as_view_mut()
    }

    /// A writable view of part of the tensor, sharing its elements.
    ///
    /// Errors: as [`Layout::view`].
    pub fn view_mut(&mut self, indices: &[ViewIndex]) -> Result<TensorViewMut<'_, T>, ViewError> {
        self.inner.view_mut(indices)
    }

    /// The elements, row-major.
    pub fn as_slice_mut(&mut self) -> &mut [T] {
        self.inner.storage_mut().as_mut_slice()
    }

    /// The elements, row-major.
    pub fn into_vec(self) -> Vec<T> {
        self.inner.into_parts().0
    }

    /// A read-only view of the whole tensor.
    pub fn view_all(&self) -> TensorView<'_, T> {
        self.inner.as_view()
    }
}

impl<T: Element> Deref for OwnedTensor<T> {
    type Target = TensorBase<Vec<T>, T>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}
