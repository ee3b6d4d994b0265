//! Where a vector's values and indices live: the [`Storage`] traits and the two borrowed
//! storages, [`Slices`] (read-only, the form every `view()` returns) and [`SlicesMut`].

use crate::error::CapacityError;

use super::value::SparseValue;

/// The arrays behind a [`VBuffer`](super::VBuffer): values and (for sparse vectors) indices.
///
/// The arrays may be longer than the vector's explicit count; the vector uses their prefixes.
/// Operations are written once against this trait and serve every storage: [`Slices`],
/// [`SlicesMut`], [`Inline`](super::Inline) and the owned `Vec` storage of `tessera-alloc`.
///
/// An implementation returns the same arrays, with the same lengths and contents, on every
/// call of [`values`](Self::values) and [`indices`](Self::indices) unless a `&mut self` method
/// was called in between (no interior mutability behind a shared reference). One that does
/// not breaks a validated [`VBuffer`](super::VBuffer)'s invariant; that is a logic error, not
/// a memory-safety one: the trait is safe because no code relies on the invariant for
/// soundness (every kernel indexes with bounds checks), so the results are unspecified and an
/// operation may fail or panic, but nothing reads out of bounds.
pub trait Storage {
    /// The value type.
    type Elem: SparseValue;

    /// The values array (at least the vector's count long).
    fn values(&self) -> &[Self::Elem];

    /// The indices array (at least the vector's count long when the vector is sparse).
    fn indices(&self) -> &[u32];
}

/// Whether [`StorageMut::reserve`] (and so an [`Editor`](super::Editor)) created new arrays.
///
/// A newly created array holds `Default::default()` everywhere except, when old contents were
/// kept, its prefix; callers filling a new values array sparsely may skip clearing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Reserved {
    /// The values array was newly created.
    pub new_values: bool,
    /// The indices array was newly created.
    pub new_indices: bool,
}

/// Storage whose arrays can be written and, where the storage allows, grown.
///
/// Besides the contract of [`Storage`] (whose breach, likewise, is a logic error only):
/// - [`parts_mut`](Self::parts_mut) and [`values_mut`](Self::values_mut) return the very
///   memory [`values`](Storage::values) and [`indices`](Storage::indices) return;
/// - [`reserve`](Self::reserve) returning `Ok` leaves `values().len() >= values` and
///   `indices().len() >= indices`; with `keep`, the contents of both arrays up to their old
///   lengths are unchanged; returning `Err`, it leaves the storage unchanged.
pub trait StorageMut: Storage {
    /// Both arrays, mutably.
    fn parts_mut(&mut self) -> (&mut [Self::Elem], &mut [u32]);

    /// The values array, mutably.
    #[inline]
    fn values_mut(&mut self) -> &mut [Self::Elem] {
        self.parts_mut().0
    }

    /// Makes the arrays at least `values` and `indices` long, reusing them when they are
    /// long enough. Growable storages grow (old contents are copied only with `keep`); fixed
    /// and borrowed ones return a [`CapacityError`] whose `needed` is the length required.
    fn reserve(
        &mut self,
        values: usize,
        indices: usize,
        keep: bool,
    ) -> Result<Reserved, CapacityError>;
}

/// Read-only borrowed arrays: what [`VBuffer::view`](super::VBuffer::view) returns, and the
/// way to read a vector that lives in someone else's memory (a tensor, a memory map).
#[derive(Debug)]
pub struct Slices<'a, T> {
    values: &'a [T],
    indices: &'a [u32],
}

impl<T> Clone for Slices<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Slices<'_, T> {}

impl<T> Default for Slices<'_, T> {
    fn default() -> Self {
        Slices {
            values: &[],
            indices: &[],
        }
    }
}

impl<'a, T> Slices<'a, T> {
    /// Values and indices (for a sparse vector; pass `&[]` for a dense one).
    #[inline]
    pub const fn new(values: &'a [T], indices: &'a [u32]) -> Self {
        Slices { values, indices }
    }

    /// Values of a dense vector (no indices).
    #[inline]
    pub const fn dense(values: &'a [T]) -> Self {
        Slices {
            values,
            indices: &[],
        }
    }

    /// The slices back.
    #[inline]
    pub const fn into_parts(self) -> (&'a [T], &'a [u32]) {
        (self.values, self.indices)
    }
}

impl<T: SparseValue> Storage for Slices<'_, T> {
    type Elem = T;
    #[inline]
    fn values(&self) -> &[T] {
        self.values
    }
    #[inline]
    fn indices(&self) -> &[u32] {
        self.indices
    }
}

/// Mutable borrowed arrays: a vector in caller memory (a stack array, a static region, a
/// tensor's buffer). Its capacity is the slices' lengths; it never grows, so an operation
/// needing more returns a capacity error giving the size needed.
///
/// The `&mut` borrows make it the only way to reach those arrays while it lives: two vectors
/// can never share them.
#[derive(Debug)]
pub struct SlicesMut<'a, T> {
    values: &'a mut [T],
    indices: &'a mut [u32],
}

impl<T> Default for SlicesMut<'_, T> {
    fn default() -> Self {
        SlicesMut {
            values: &mut [],
            indices: &mut [],
        }
    }
}

impl<'a, T> SlicesMut<'a, T> {
    /// Arrays for values and indices (pass `&mut []` for indices if the vector is only ever
    /// dense).
    #[inline]
    pub fn new(values: &'a mut [T], indices: &'a mut [u32]) -> Self {
        SlicesMut { values, indices }
    }

    /// The slices back.
    #[inline]
    pub fn into_parts(self) -> (&'a mut [T], &'a mut [u32]) {
        (self.values, self.indices)
    }
}

impl<T: SparseValue> Storage for SlicesMut<'_, T> {
    type Elem = T;
    #[inline]
    fn values(&self) -> &[T] {
        self.values
    }
    #[inline]
    fn indices(&self) -> &[u32] {
        self.indices
    }
}

// `reserve` never changes anything and succeeds only if both slices are already long enough.
impl<T: SparseValue> StorageMut for SlicesMut<'_, T> {
    #[inline]
    fn parts_mut(&mut self) -> (&mut [T], &mut [u32]) {
        (self.values, self.indices)
    }

    #[inline]
    fn reserve(
        &mut self,
        values: usize,
        indices: usize,
        _keep: bool,
    ) -> Result<Reserved, CapacityError> {
        fixed_capacity(self.values.len(), values)?;
        fixed_capacity(self.indices.len(), indices)?;
        Ok(Reserved::default())
    }
}

/// `Ok` if `available >= needed`, else the capacity error.
#[inline]
pub(crate) fn fixed_capacity(available: usize, needed: usize) -> Result<(), CapacityError> {
    if needed > available {
        Err(CapacityError { needed, available })
    } else {
        Ok(())
    }
}
