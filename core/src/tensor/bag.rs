//! Type-erased tensors: HugeCTR's `TensorBag2` — a dtype tag, a layout and raw bytes — and the
//! checked way back to a typed tensor (`stretch`), so tensors of different types can travel
//! together (an arena's buffers, a model's inputs) and be typed again where they are used.

use zerocopy::{FromBytes, IntoBytes, TryFromBytes};

use super::{DType, Element, Layout, TensorBase, TensorError, TensorView, TensorViewMut};

/// A read-only tensor whose element type is a run-time [`DType`]: bytes in the host's byte
/// order, and a layout in elements.
///
/// ```
/// use tessera_core::tensor::{DType, TensorBag, TensorView};
///
/// let data = [1.0f32, 2.0, 3.0, 4.0];
/// let tensor = TensorView::new(&data[..], &[2, 2]).unwrap();
/// let bag = tensor.shrink();
/// assert_eq!(bag.dtype(), DType::F32);
/// assert!(bag.stretch::<i32>().is_err()); // wrong dtype: an error, not a reinterpretation
/// let back = bag.stretch::<f32>().unwrap();
/// assert_eq!(back.get(&[1, 1]), Some(&4.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TensorBag<'a> {
    dtype: DType,
    layout: Layout,
    bytes: &'a [u8],
}

/// A writable [`TensorBag`].
#[derive(Debug)]
pub struct TensorBagMut<'a> {
    dtype: DType,
    layout: Layout,
    bytes: &'a mut [u8],
}

/// Checks a layout against `bytes` holding elements of `dtype`.
fn check_bytes(dtype: DType, layout: &Layout, len: usize) -> Result<(), TensorError> {
    let size = dtype.size();
    if len % size != 0 {
        return Err(TensorError::ByteLength { len, size });
    }
    layout.check_fits(len / size)
}

/// Layout for `shape` over exactly `len` bytes of `dtype`.
fn contiguous_over(dtype: DType, shape: &[usize], len: usize) -> Result<Layout, TensorError> {
    let size = dtype.size();
    if len % size != 0 {
        return Err(TensorError::ByteLength { len, size });
    }
    let layout = Layout::contiguous(shape)?;
    let needed = layout
        .len()
        .checked_mul(size)
        .ok_or(TensorError::TooLarge { axis: 0 })?;
    if needed != len {
        return Err(TensorError::LengthMismatch {
            needed: layout.len(),
            len: len / size,
        });
    }
    Ok(layout)
}

/// Checks that `bytes` may be read as `[T]`: dtype, length, alignment.
fn check_cast<T: Element>(dtype: DType, bytes: &[u8]) -> Result<(), TensorError> {
    if dtype != T::DTYPE {
        return Err(TensorError::DTypeMismatch {
            expected: T::DTYPE,
            found: dtype,
        });
    }
    let (size, align) = (dtype.size(), dtype.align());
    if bytes.len() % size != 0 {
        return Err(TensorError::ByteLength {
            len: bytes.len(),
            size,
        });
    }
    let misalignment = bytes.as_ptr() as usize % align;
    if misalignment != 0 && !bytes.is_empty() {
        return Err(TensorError::Misaligned {
            align,
            misalignment,
        });
    }
    Ok(())
}

/// The first element of `bytes` that is not a valid `T` (only ever for `bool`).
fn first_invalid<T: Element>(bytes: &[u8]) -> usize {
    bytes
        .chunks(T::DTYPE.size())
        .position(|c| T::try_read_from_bytes(c).is_err())
        .unwrap_or(0)
}

/// `bytes` as elements of `T`: a checked cast, never a copy.
///
/// Errors: [`DTypeMismatch`](TensorError::DTypeMismatch) if `dtype` is not `T`'s,
/// [`ByteLength`](TensorError::ByteLength), [`Misaligned`](TensorError::Misaligned),
/// [`InvalidValue`](TensorError::InvalidValue).
pub(crate) fn cast_slice<T: Element>(dtype: DType, bytes: &[u8]) -> Result<&[T], TensorError> {
    check_cast::<T>(dtype, bytes)?;
    if bytes.is_empty() {
        return Ok(&[]); // no element, so no address to align
    }
    <[T]>::try_ref_from_bytes(bytes).map_err(|_| TensorError::InvalidValue {
        element: first_invalid::<T>(bytes),
    })
}

/// [`cast_slice`], writable.
pub(crate) fn cast_slice_mut<T: Element>(
    dtype: DType,
    bytes: &mut [u8],
) -> Result<&mut [T], TensorError> {
    check_cast::<T>(dtype, bytes)?;
    if bytes.is_empty() {
        return Ok(&mut []); // no element, so no address to align
    }
    if <[T]>::try_ref_from_bytes(bytes).is_err() {
        return Err(TensorError::InvalidValue {
            element: first_invalid::<T>(bytes),
        });
    }
    // Cannot fail now: the checks above are exactly zerocopy's.
    <[T]>::try_mut_from_bytes(bytes).map_err(|_| TensorError::InvalidValue { element: 0 })
}

impl<'a> TensorBag<'a> {
    /// A row-major bag of `shape` over `bytes`, which must hold exactly its elements.
    ///
    /// Errors: [`LengthMismatch`](TensorError::LengthMismatch) (in elements), and those of
    /// [`Layout::contiguous`].
    pub fn new(dtype: DType, shape: &[usize], bytes: &'a [u8]) -> Result<Self, TensorError> {
        let layout = contiguous_over(dtype, shape, bytes.len())?;
        Ok(Self {
            dtype,
            layout,
            bytes,
        })
    }

    /// A bag of any layout (in elements) over `bytes`.
    ///
    /// Errors: [`ByteLength`](TensorError::ByteLength) if `bytes` is not a whole number of
    /// elements, [`OutOfBounds`](TensorError::OutOfBounds).
    pub fn with_layout(dtype: DType, layout: Layout, bytes: &'a [u8]) -> Result<Self, TensorError> {
        check_bytes(dtype, &layout, bytes.len())?;
        Ok(Self {
            dtype,
            layout,
            bytes,
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The layout, in elements.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Length along each dimension.
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The underlying bytes, in the host's byte order.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Back to a typed tensor (HugeCTR's `stretch_from`), without copying.
    ///
    /// Errors: [`DTypeMismatch`](TensorError::DTypeMismatch),
    /// [`Misaligned`](TensorError::Misaligned), [`InvalidValue`](TensorError::InvalidValue)
    /// (a `bool` byte other than 0 or 1).
    pub fn stretch<T: Element>(&self) -> Result<TensorView<'a, T>, TensorError> {
        let data = cast_slice::<T>(self.dtype, self.bytes)?;
        TensorBase::with_layout(data, self.layout)
    }
}

impl<'a> TensorBagMut<'a> {
    /// A bag of no bytes, as a placeholder.
    pub(crate) fn empty() -> Self {
        Self {
            dtype: DType::U8,
            layout: Layout::empty(),
            bytes: &mut [],
        }
    }

    /// A row-major writable bag of `shape` over `bytes`, which must hold exactly its elements.
    ///
    /// Errors: as [`TensorBag::new`].
    pub fn new(dtype: DType, shape: &[usize], bytes: &'a mut [u8]) -> Result<Self, TensorError> {
        let layout = contiguous_over(dtype, shape, bytes.len())?;
        Ok(Self {
            dtype,
            layout,
            bytes,
        })
    }

    /// A writable bag of any layout over `bytes`.
    ///
    /// Errors: as [`TensorBag::with_layout`].
    pub fn with_layout(
        dtype: DType,
        layout: Layout,
        bytes: &'a mut [u8],
    ) -> Result<Self, TensorError> {
        check_bytes(dtype, &layout, bytes.len())?;
        Ok(Self {
            dtype,
            layout,
            bytes,
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The layout, in elements.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Length along each dimension.
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The underlying bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    /// The underlying bytes, writable (for `bool` bags, writing a byte other than 0 or 1 makes
    /// later stretches fail with [`InvalidValue`](TensorError::InvalidValue)).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.bytes
    }

    /// A read-only bag of the same tensor.
    pub fn as_bag(&self) -> TensorBag<'_> {
        TensorBag {
            dtype: self.dtype,
            layout: self.layout,
            bytes: self.bytes,
        }
    }

    /// A typed read-only tensor, borrowing this bag.
    ///
    /// Errors: as [`TensorBag::stretch`].
    pub fn stretch<T: Element>(&self) -> Result<TensorView<'_, T>, TensorError> {
        self.as_bag().stretch()
    }

    /// Back to a typed writable tensor, for the whole borrow `'a`.
    ///
    /// Errors: as [`TensorBag::stretch`].
    pub fn stretch_mut<T: Element>(self) -> Result<TensorViewMut<'a, T>, TensorError> {
        let layout = self.layout;
        let data = cast_slice_mut::<T>(self.dtype, self.bytes)?;
        TensorBase::with_layout(data, layout)
    }
}

impl<S: AsRef<[T]>, T: Element> TensorBase<S, T> {
    /// This tensor as a type-erased bag over the same bytes (HugeCTR's `shrink`).
    pub fn shrink(&self) -> TensorBag<'_> {
        TensorBag {
            dtype: T::DTYPE,
            layout: *self.layout(),
            bytes: self.storage().as_ref().as_bytes(),
        }
    }
}

impl<S: AsRef<[T]> + AsMut<[T]>, T: Element + FromBytes> TensorBase<S, T> {
    /// This tensor as a writable type-erased bag over the same bytes. Not for `bool`, whose
    /// bytes could then be made invalid.
    pub fn shrink_mut(&mut self) -> TensorBagMut<'_> {
        let layout = *self.layout();
        TensorBagMut {
            dtype: T::DTYPE,
            layout,
            bytes: self.storage_mut().as_mut().as_mut_bytes(),
        }
    }
}
