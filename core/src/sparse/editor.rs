//! Rewriting a vector in place: the [`Editor`] takes a vector's storage (reusing its arrays or
//! growing them), exposes the values and indices mutably, and commits the new structure.

use core::fmt;

use super::error::SparseError;
use super::storage::{Reserved, StorageMut};
use super::vbuffer::{VBuffer, check_len, check_parts};

impl<S: StorageMut> VBuffer<S> {
    /// Starts rewriting this vector as one of length `len` with room for `count` explicit
    /// values: dense if `count == len`, else sparse with `count` indices. Reuses the arrays
    /// when they are long enough; otherwise growable storage grows (the owned storage of
    /// `tessera-alloc` doubles from 4, into new arrays without copying the old contents), and
    /// fixed or borrowed storage returns [`SparseError::Capacity`] with the size needed,
    /// leaving the vector unchanged. The editor reports whether arrays were newly created.
    ///
    /// While the editor lives, the vector is borrowed and cannot be read; if the editor is
    /// dropped without a commit, the vector is left all-zero (length `len`, no explicit
    /// values), its arrays kept for reuse.
    ///
    /// Errors: [`LengthTooLarge`](SparseError::LengthTooLarge),
    /// [`CountTooLarge`](SparseError::CountTooLarge), [`Capacity`](SparseError::Capacity).
    ///
    /// ```
    /// use tessera_core::sparse::{InlineVBuffer, VBuffer};
    ///
    /// let mut v: InlineVBuffer<f32, 4> = VBuffer::default();
    /// let mut ed = v.edit(100, 2).unwrap();
    /// let (values, indices) = ed.parts();
    /// values.copy_from_slice(&[1.5, -2.0]);
    /// indices.copy_from_slice(&[7, 42]);
    /// ed.commit().unwrap();
    /// assert_eq!((v.len(), v.count(), v.get(42)), (100, 2, Some(-2.0)));
    /// ```
    pub fn edit(&mut self, len: usize, count: usize) -> Result<Editor<'_, S>, SparseError> {
        self.edit_with(len, count, false)
    }

    /// [`edit`](Self::edit), but growing keeps the old contents of both arrays (their prefix
    /// up to the old lengths), for callers that rewrite in place.
    pub fn edit_keep(&mut self, len: usize, count: usize) -> Result<Editor<'_, S>, SparseError> {
        self.edit_with(len, count, true)
    }

    fn edit_with(
        &mut self,
        len: usize,
        count: usize,
        keep: bool,
    ) -> Result<Editor<'_, S>, SparseError> {
        check_len(len)?;
        if count > len {
            return Err(SparseError::CountTooLarge { count, len });
        }
        let indices = if count < len { count } else { 0 };
        // `Err` leaves the storage unchanged (the `StorageMut` contract), so the vector is
        // still valid; `Ok` may have replaced the arrays, so the vector becomes all-zero
        // (valid for any storage) until the commit.
        let reserved = self.storage_mut().reserve(count, indices, keep)?;
        self.set_shape(len, 0);
        Ok(Editor {
            vector: self,
            len,
            count,
            reserved,
        })
    }
}

/// Mutable access to a vector's arrays, from [`VBuffer::edit`]: fill
/// [`values`](Self::values) (and [`indices`](Self::indices) when sparse), then
/// [`commit`](Self::commit).
///
/// The editor holds the only `&mut` to the vector, so nothing can read a half-written vector,
/// and the commit validates the indices (O(count)) unless the caller vouches for them with
/// [`commit_unchecked`](Self::commit_unchecked).
pub struct Editor<'a, S: StorageMut> {
    vector: &'a mut VBuffer<S>,
    len: usize,
    count: usize,
    reserved: Reserved,
}

impl<'a, S: StorageMut> Editor<'a, S> {
    /// The logical length being written.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the logical length is 0.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of explicit values being written.
    #[inline]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether the vector being written is dense (`count == len`: no indices).
    #[inline]
    pub fn is_dense(&self) -> bool {
        self.count == self.len
    }

    /// Whether the arrays were newly created (then they hold `T::default()` and zeros, beyond
    /// any kept prefix), so callers can skip clearing them.
    #[inline]
    pub fn reserved(&self) -> Reserved {
        self.reserved
    }

    /// The `count` values to fill.
    #[inline]
    pub fn values(&mut self) -> &mut [S::Elem] {
        self.parts().0
    }

    /// The `count` indices to fill (empty when dense): strictly increasing, below `len`.
    #[inline]
    pub fn indices(&mut self) -> &mut [u32] {
        self.parts().1
    }

    /// Values and indices together.
    #[inline]
    pub fn parts(&mut self) -> (&mut [S::Elem], &mut [u32]) {
        let (count, dense) = (self.count, self.is_dense());
        let (values, indices) = self.vector.storage_mut().parts_mut();
        let indices = if dense {
            &mut [][..]
        } else {
            &mut indices[..count]
        };
        (&mut values[..count], indices)
    }

    /// The whole arrays (longer than `count` if the storage is), as kept by
    /// [`VBuffer::edit_keep`]: for in-place rewrites that read old entries.
    #[inline]
    pub(crate) fn whole_parts(&mut self) -> (&mut [S::Elem], &mut [u32]) {
        self.vector.storage_mut().parts_mut()
    }

    /// Validates the indices (O(count)) and makes them the vector's. On failure the editor
    /// comes back with the reason, to be fixed and committed again (or dropped).
    ///
    /// Errors: [`NotIncreasing`](SparseError::NotIncreasing),
    /// [`IndexOutOfRange`](SparseError::IndexOutOfRange).
    #[inline]
    pub fn commit(self) -> Result<(), CommitError<'a, S>> {
        let count = self.count;
        self.commit_truncated(count)
    }

    /// Like [`commit`](Self::commit), but keeps only the first `n` values and indices (for
    /// writers that reserved an upper bound). If `n == len` the vector is dense. A dense
    /// editor truncated below `len` has no indices, which the commit reports.
    ///
    /// Errors: [`MissingValues`](SparseError::MissingValues) if `n > count`,
    /// [`MissingIndices`](SparseError::MissingIndices) and those of [`commit`](Self::commit).
    pub fn commit_truncated(self, n: usize) -> Result<(), CommitError<'a, S>> {
        let checked = if n > self.count {
            Err(SparseError::MissingValues {
                count: n,
                values: self.count,
            })
        } else {
            let storage = self.vector.storage();
            check_parts(self.len, n, storage.values(), storage.indices())
        };
        match checked {
            Ok(()) => {
                self.vector.set_shape(self.len, n);
                Ok(())
            }
            Err(error) => Err(CommitError {
                error,
                editor: self,
            }),
        }
    }

    /// [`commit`](Self::commit) without the validation (checked in debug builds only).
    ///
    /// The caller promises that, if the editor is sparse, its `count` indices are strictly
    /// increasing and below `len`. A broken promise is a logic error, not undefined behaviour
    /// (see the [module documentation](super#validation)).
    #[inline]
    pub fn commit_unchecked(self) {
        let count = self.count;
        self.commit_truncated_unchecked(count)
    }

    /// [`commit_truncated`](Self::commit_truncated) without the validation (checked in debug
    /// builds only).
    ///
    /// The caller promises `n <= count`, and if `n < len`: the storage holds at least `n`
    /// indices (true unless the editor is dense) and the first `n` are strictly increasing and
    /// below `len`. A broken promise is a logic error, not undefined behaviour.
    #[inline]
    pub fn commit_truncated_unchecked(self, n: usize) {
        debug_assert!(n <= self.count);
        #[cfg(debug_assertions)]
        {
            let storage = self.vector.storage();
            debug_assert_eq!(
                check_parts(self.len, n, storage.values(), storage.indices()),
                Ok(())
            );
        }
        self.vector.set_shape(self.len, n);
    }
}

impl<S: StorageMut> fmt::Debug for Editor<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Editor")
            .field("len", &self.len)
            .field("count", &self.count)
            .field("reserved", &self.reserved)
            .finish_non_exhaustive()
    }
}

/// A failed [`Editor::commit`]: the reason and the editor, so nothing written is lost.
///
/// The editor borrows the vector, so this error is not `'static` and `?` cannot box it; `?`
/// into a function returning [`SparseError`] (or `.map_err(SparseError::from)`) drops the
/// editor and keeps the reason.
pub struct CommitError<'a, S: StorageMut> {
    /// Why the written structure is invalid.
    pub error: SparseError,
    /// The editor, unchanged.
    pub editor: Editor<'a, S>,
}

impl<'a, S: StorageMut> CommitError<'a, S> {
    /// The editor back.
    pub fn into_editor(self) -> Editor<'a, S> {
        self.editor
    }
}

impl<S: StorageMut> fmt::Debug for CommitError<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommitError")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<S: StorageMut> fmt::Display for CommitError<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid edit: {}", self.error)
    }
}

impl<S: StorageMut> core::error::Error for CommitError<'_, S> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl<S: StorageMut> From<CommitError<'_, S>> for SparseError {
    /// The reason, without the editor.
    fn from(e: CommitError<'_, S>) -> Self {
        e.error
    }
}
