//! The vector itself: [`VBuffer`], its invariant, checked and unchecked construction, and the
//! read accessors every operation builds on.

use core::fmt;

use super::error::{InvalidVBuffer, SparseError};
use super::inline::Inline;
use super::storage::{Slices, SlicesMut, Storage, StorageMut};
use super::value::SparseValue;

/// The largest logical length: indices are `u32`, so a vector has at most `u32::MAX` entries
/// (indices `0..u32::MAX`). Dense vectors obey the same limit, so that any vector can be
/// made sparse.
pub const MAX_LEN: usize = u32::MAX as usize;

// Indices are stored as `u32` and used as `usize`: the conversion must not truncate.
const _: () = assert!(
    usize::BITS >= 32,
    "tessera's sparse vectors need usize >= 32 bits"
);

/// A vector of logical length `len` holding `count` explicit values: dense when
/// `count == len` (values only, no indices), sparse otherwise (values with strictly
/// increasing `u32` indices below `len`). Every implicit entry is `T::default()`.
///
/// The type is generic over its [`Storage`]; the same operations serve every storage:
/// [`VBufferView`] (borrowed, read-only: what [`view`](Self::view) returns),
/// [`VBufferMut`] (caller arrays), [`InlineVBuffer`] (fixed capacity, inline) and the owned,
/// reusing `OwnedVBuffer` of `tessera-alloc`.
///
/// The invariant is checked once, at construction ([`try_new`](Self::try_new) is O(count))
/// or at [`Editor::commit`](super::Editor::commit); afterwards it holds for as long as the
/// vector lives, because nothing else can reach the storage: `VBuffer` owns it (or holds the
/// only `&mut` to it), mutation goes through `&mut self`, and only values (never indices)
/// can be changed outside an editor.
///
/// ```
/// use tessera_core::sparse::{Slices, VBufferView};
///
/// let dense = VBufferView::try_dense(Slices::dense(&[0.0f32, 1.0, 0.0, 0.0, 2.0])).unwrap();
/// let sparse = VBufferView::try_sparse(5, Slices::new(&[1.0f32, 2.0], &[1, 4])).unwrap();
/// assert!(dense.is_dense() && !sparse.is_dense());
/// assert_eq!(dense, sparse); // the same vector
/// assert_eq!(sparse.get(3), Some(0.0));
/// assert_eq!(dense.dot(&sparse), Ok(5.0));
/// ```
#[derive(Clone, Copy)]
pub struct VBuffer<S> {
    len: usize,
    count: usize,
    storage: S,
}

/// A borrowed, read-only vector: what [`VBuffer::view`] returns. `Copy`.
pub type VBufferView<'a, T> = VBuffer<Slices<'a, T>>;

/// A vector in caller-provided arrays.
pub type VBufferMut<'a, T> = VBuffer<SlicesMut<'a, T>>;

/// A vector of at most `N` explicit values, stored inline (firmware).
pub type InlineVBuffer<T, const N: usize> = VBuffer<Inline<T, N>>;

/// Checks the invariant over a vector's parts: O(count).
pub(crate) fn check_parts<T>(
    len: usize,
    count: usize,
    values: &[T],
    indices: &[u32],
) -> Result<(), SparseError> {
    if len > MAX_LEN {
        return Err(SparseError::LengthTooLarge { len });
    }
    if count > len {
        return Err(SparseError::CountTooLarge { count, len });
    }
    if values.len() < count {
        return Err(SparseError::MissingValues {
            count,
            values: values.len(),
        });
    }
    if count == len {
        return Ok(());
    }
    let Some(indices) = indices.get(..count) else {
        return Err(SparseError::MissingIndices {
            count,
            indices: indices.len(),
        });
    };
    check_indices(len, indices)
}

/// Strictly increasing and below `len`.
pub(crate) fn check_indices(len: usize, indices: &[u32]) -> Result<(), SparseError> {
    let mut previous: Option<u32> = None;
    for (position, &index) in indices.iter().enumerate() {
        if let Some(previous) = previous {
            if index <= previous {
                return Err(SparseError::NotIncreasing {
                    position,
                    previous,
                    index,
                });
            }
        }
        previous = Some(index);
    }
    if let Some(&last) = indices.last() {
        if last as usize >= len {
            // Increasing, so only the last can be out of range; report the first that is.
            let position = indices.partition_point(|&i| (i as usize) < len);
            return Err(SparseError::IndexOutOfRange {
                position,
                index: indices[position] as usize,
                len,
            });
        }
    }
    Ok(())
}

/// `Ok` if `len` fits the `u32` index limit.
#[inline]
pub(crate) fn check_len(len: usize) -> Result<(), SparseError> {
    if len > MAX_LEN {
        Err(SparseError::LengthTooLarge { len })
    } else {
        Ok(())
    }
}

impl<S> VBuffer<S> {
    /// A vector of length 0 over `storage` (whatever its arrays hold): the way to hand a
    /// destination's memory to an operation, which sizes the vector.
    #[inline]
    pub const fn with_storage(storage: S) -> Self {
        VBuffer {
            len: 0,
            count: 0,
            storage,
        }
    }

    /// The logical length.
    #[inline]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the logical length is 0.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of explicit values (`len` when dense).
    #[inline]
    pub const fn count(&self) -> usize {
        self.count
    }

    /// Whether every entry is explicit (`count == len`); then there are no indices.
    #[inline]
    pub const fn is_dense(&self) -> bool {
        self.count == self.len
    }

    /// The storage (its arrays may be longer than the vector uses).
    #[inline]
    pub const fn storage(&self) -> &S {
        &self.storage
    }

    /// The storage back, for reuse elsewhere.
    #[inline]
    pub fn into_storage(self) -> S {
        self.storage
    }

    /// Sets the shape; the caller guarantees the invariant for the storage as it is.
    #[inline]
    pub(crate) fn set_shape(&mut self, len: usize, count: usize) {
        self.len = len;
        self.count = count;
    }

    /// The storage, mutably. Crate-internal: changing indices outside an editor could break
    /// the invariant.
    #[inline]
    pub(crate) fn storage_mut(&mut self) -> &mut S {
        &mut self.storage
    }
}

impl<S: Storage> VBuffer<S> {
    /// A vector of length `len` whose first `count` values (and, if `count < len`, indices)
    /// are taken from `storage`; the arrays may be longer. Validates the invariant in
    /// O(count); on failure returns the reason and the storage untouched.
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge),
    /// [`CountTooLarge`](SparseError::CountTooLarge),
    /// [`MissingValues`](SparseError::MissingValues),
    /// [`MissingIndices`](SparseError::MissingIndices),
    /// [`NotIncreasing`](SparseError::NotIncreasing),
    /// [`IndexOutOfRange`](SparseError::IndexOutOfRange).
    ///
    /// ```
    /// use tessera_core::sparse::{Slices, SparseError, VBufferView};
    ///
    /// let bad = VBufferView::try_new(5, 2, Slices::new(&[1.0f32, 2.0], &[4, 1])).unwrap_err();
    /// assert_eq!(bad.error, SparseError::NotIncreasing { position: 1, previous: 4, index: 1 });
    /// let (values, indices) = bad.into_storage().into_parts(); // nothing lost
    /// assert_eq!((values, indices), (&[1.0f32, 2.0][..], &[4u32, 1][..]));
    /// ```
    pub fn try_new(len: usize, count: usize, storage: S) -> Result<Self, InvalidVBuffer<S>> {
        match check_parts(len, count, storage.values(), storage.indices()) {
            Ok(()) => Ok(VBuffer {
                len,
                count,
                storage,
            }),
            Err(error) => Err(InvalidVBuffer { error, storage }),
        }
    }

    /// [`try_new`](Self::try_new) without the O(count) validation, for hot paths whose
    /// indices are correct by construction. The invariant is still checked in debug builds.
    ///
    /// The caller promises `len <= MAX_LEN`, `count <= len`, `storage.values().len() >=
    /// count`, and if `count < len`: `storage.indices().len() >= count` and
    /// `storage.indices()[..count]` strictly increasing with every index below `len`. A
    /// broken promise is a logic error, not undefined behaviour (see the
    /// [module documentation](super#validation)).
    #[inline]
    pub fn new_unchecked(len: usize, count: usize, storage: S) -> Self {
        debug_assert_eq!(
            check_parts(len, count, storage.values(), storage.indices()),
            Ok(())
        );
        VBuffer {
            len,
            count,
            storage,
        }
    }

    /// A dense vector holding every value of `storage` (`len = count = values().len()`).
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge).
    pub fn try_dense(storage: S) -> Result<Self, InvalidVBuffer<S>> {
        let n = storage.values().len();
        Self::try_new(n, n, storage)
    }

    /// A sparse vector of length `len` holding every value and index of `storage`
    /// (`count = values().len()`, which must equal `indices().len()` unless `count == len`:
    /// then the vector is dense and the indices are not consulted).
    ///
    /// Errors: [`CountMismatch`](SparseError::CountMismatch) and those of
    /// [`try_new`](Self::try_new).
    pub fn try_sparse(len: usize, storage: S) -> Result<Self, InvalidVBuffer<S>> {
        let (values, indices) = (storage.values().len(), storage.indices().len());
        if values != indices && values != len {
            return Err(InvalidVBuffer {
                error: SparseError::CountMismatch { values, indices },
                storage,
            });
        }
        Self::try_new(len, values, storage)
    }

    /// The all-zero vector of length `len` (no explicit values) over `storage`.
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge).
    pub fn zeros(len: usize, storage: S) -> Result<Self, InvalidVBuffer<S>> {
        match check_len(len) {
            Ok(()) => Ok(VBuffer {
                len,
                count: 0,
                storage,
            }),
            Err(error) => Err(InvalidVBuffer { error, storage }),
        }
    }

    /// The explicit values: `len` of them when dense, `count` parallel to
    /// [`indices`](Self::indices) when sparse.
    #[inline]
    pub fn values(&self) -> &[S::Elem] {
        &self.storage.values()[..self.count]
    }

    /// The indices of the explicit values: empty when dense.
    #[inline]
    pub fn indices(&self) -> &[u32] {
        if self.is_dense() {
            &[]
        } else {
            &self.storage.indices()[..self.count]
        }
    }

    /// The borrowed form of this vector: the same values and indices, no copy.
    #[inline]
    pub fn view(&self) -> VBufferView<'_, S::Elem> {
        VBuffer {
            len: self.len,
            count: self.count,
            storage: Slices::new(self.values(), self.indices()),
        }
    }

    /// The entry at `index` (`T::default()` if implicit), or `None` if `index >= len`.
    /// O(log count) for sparse vectors (binary search).
    #[inline]
    pub fn get(&self, index: usize) -> Option<S::Elem> {
        if index >= self.len {
            return None;
        }
        Some(self.get_or_default(index))
    }

    /// The entry at `index`, `T::default()` when it is implicit or `index >= len`.
    #[inline]
    pub fn get_or_default(&self, index: usize) -> S::Elem {
        if self.is_dense() {
            return self.values().get(index).copied().unwrap_or_default();
        }
        if index >= self.len {
            return S::Elem::default();
        }
        // `index < len <= u32::MAX`, so the cast is exact.
        match self.indices().binary_search(&(index as u32)) {
            Ok(k) => self.values()[k],
            Err(_) => S::Elem::default(),
        }
    }

    /// The explicit entries as `(index, value)`, in increasing index order (every entry when
    /// dense).
    #[inline]
    pub fn iter(&self) -> Entries<'_, S::Elem> {
        Entries {
            values: self.values(),
            indices: self.indices(),
            pos: 0,
        }
    }

    /// Every entry, implicit ones as `T::default()`, in order: `len` items.
    #[inline]
    pub fn iter_all(&self) -> AllEntries<'_, S::Elem> {
        AllEntries {
            defined: self.iter(),
            next_defined: None,
            index: 0,
            len: self.len,
        }
    }

    /// Internal: the parts, dense indices as `None`.
    #[inline]
    pub(crate) fn side(&self) -> Side<'_, S::Elem> {
        Side {
            values: self.values(),
            indices: if self.is_dense() {
                None
            } else {
                Some(self.indices())
            },
        }
    }
}

impl<S: StorageMut> VBuffer<S> {
    /// The explicit values, mutably. The structure (length, count, indices) stays as it is;
    /// to change it, use an [`Editor`](super::Editor).
    #[inline]
    pub fn values_mut(&mut self) -> &mut [S::Elem] {
        let count = self.count;
        &mut self.storage.values_mut()[..count]
    }
}

impl<S: Default> Default for VBuffer<S> {
    /// The empty vector (length 0) over a default storage.
    fn default() -> Self {
        Self::with_storage(S::default())
    }
}

impl<S: Storage> fmt::Debug for VBuffer<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("VBuffer");
        d.field("len", &self.len);
        if self.is_dense() {
            d.field("dense", &self.values());
        } else {
            d.field("indices", &self.indices())
                .field("values", &self.values());
        }
        d.finish()
    }
}

/// Logical equality: the same length and the same entry at every index, whether stored
/// sparse or dense (as the seed requires: the two representations are the same vector).
/// Uses `T`'s `==`, so `-0.0 == 0.0` and NaN equals nothing.
impl<S, S2> PartialEq<VBuffer<S2>> for VBuffer<S>
where
    S: Storage,
    S2: Storage<Elem = S::Elem>,
{
    fn eq(&self, other: &VBuffer<S2>) -> bool {
        self.len == other.len
            && super::iterate::union_while(self.side(), other.side(), |_, a, b| a == b)
    }
}

/// The parts of a vector for the merge loops: values, and indices unless dense.
#[derive(Clone, Copy)]
pub(crate) struct Side<'a, T> {
    pub(crate) values: &'a [T],
    pub(crate) indices: Option<&'a [u32]>,
}

impl<T> Side<'_, T> {
    /// Index of the `k`-th explicit value.
    #[inline(always)]
    pub(crate) fn index(&self, k: usize) -> usize {
        match self.indices {
            None => k,
            Some(ix) => ix[k] as usize,
        }
    }
}

/// Iterator over the explicit entries of a [`VBuffer`], from [`VBuffer::iter`].
#[derive(Debug, Clone)]
pub struct Entries<'a, T> {
    values: &'a [T],
    indices: &'a [u32],
    pos: usize,
}

impl<T: Copy> Iterator for Entries<'_, T> {
    type Item = (usize, T);

    #[inline]
    fn next(&mut self) -> Option<(usize, T)> {
        let v = *self.values.get(self.pos)?;
        let i = if self.indices.is_empty() {
            self.pos
        } else {
            self.indices[self.pos] as usize
        };
        self.pos += 1;
        Some((i, v))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.values.len() - self.pos;
        (n, Some(n))
    }
}

impl<T: Copy> ExactSizeIterator for Entries<'_, T> {}

/// Iterator over every entry of a [`VBuffer`] (implicit ones as `T::default()`), from
/// [`VBuffer::iter_all`].
#[derive(Debug, Clone)]
pub struct AllEntries<'a, T> {
    defined: Entries<'a, T>,
    next_defined: Option<(usize, T)>,
    index: usize,
    len: usize,
}

impl<T: SparseValue> Iterator for AllEntries<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.index >= self.len {
            return None;
        }
        if self.next_defined.is_none() {
            self.next_defined = self.defined.next();
        }
        let value = match self.next_defined {
            Some((i, v)) if i == self.index => {
                self.next_defined = None;
                v
            }
            _ => T::default(),
        };
        self.index += 1;
        Some(value)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.index;
        (n, Some(n))
    }
}

impl<T: SparseValue> ExactSizeIterator for AllEntries<'_, T> {}
