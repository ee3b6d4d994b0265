//! What can go wrong with a sparse vector: an invalid structure from untrusted data, vectors
//! of different lengths, a destination too small, a builder index out of range.

use core::fmt;

use crate::error::CapacityError;

/// Why a [`VBuffer`](super::VBuffer) operation or construction failed. Every variant says
/// where; each function documents which variants it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SparseError {
    /// A logical length above [`MAX_LEN`](super::MAX_LEN) (`u32::MAX`): indices are `u32`.
    LengthTooLarge {
        /// The length asked for.
        len: usize,
    },
    /// More explicit values than the logical length.
    CountTooLarge {
        /// The number of explicit values.
        count: usize,
        /// The logical length.
        len: usize,
    },
    /// The storage holds fewer values than the count.
    MissingValues {
        /// Values needed (the count).
        count: usize,
        /// Values the storage holds.
        values: usize,
    },
    /// A sparse vector's storage holds fewer indices than the count.
    MissingIndices {
        /// Indices needed (the count).
        count: usize,
        /// Indices the storage holds.
        indices: usize,
    },
    /// A sparse vector's values and indices differ in number (for constructors that take
    /// the count from them).
    CountMismatch {
        /// Number of values.
        values: usize,
        /// Number of indices.
        indices: usize,
    },
    /// An index is not below the logical length.
    IndexOutOfRange {
        /// Position of the index in the indices (or, for single-index calls, 0).
        position: usize,
        /// The index.
        index: usize,
        /// The logical length.
        len: usize,
    },
    /// An index is not greater than the one before it.
    NotIncreasing {
        /// Position of the offending index in the indices.
        position: usize,
        /// The index before it.
        previous: u32,
        /// The offending index.
        index: u32,
    },
    /// Two vectors that must have the same logical length do not.
    LengthMismatch {
        /// Length of the first (or source) vector.
        left: usize,
        /// Length of the second (or destination) vector.
        right: usize,
    },
    /// A range reaching past the end of the vector.
    RangeOutOfBounds {
        /// First index of the range.
        start: usize,
        /// Number of entries in the range.
        length: usize,
        /// The logical length.
        len: usize,
    },
    /// A value given twice for one index where duplicates cannot be combined (flags).
    Duplicate {
        /// The index.
        index: u32,
    },
    /// A fixed or borrowed storage (or builder scratch) is too small; `needed` is the number
    /// of elements (values or indices) the operation needs.
    Capacity(CapacityError),
}

impl From<CapacityError> for SparseError {
    fn from(e: CapacityError) -> Self {
        SparseError::Capacity(e)
    }
}

impl fmt::Display for SparseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SparseError::LengthTooLarge { len } => {
                write!(f, "length {len} exceeds the u32 index limit")
            }
            SparseError::CountTooLarge { count, len } => {
                write!(f, "{count} explicit values exceed the length {len}")
            }
            SparseError::MissingValues { count, values } => {
                write!(f, "count {count} but the storage holds {values} values")
            }
            SparseError::MissingIndices { count, indices } => {
                write!(f, "count {count} but the storage holds {indices} indices")
            }
            SparseError::CountMismatch { values, indices } => {
                write!(f, "{values} values but {indices} indices")
            }
            SparseError::IndexOutOfRange {
                position,
                index,
                len,
            } => write!(
                f,
                "index {index} at position {position} out of range for length {len}"
            ),
            SparseError::NotIncreasing {
                position,
                previous,
                index,
            } => write!(
                f,
                "index {index} at position {position} does not exceed the previous index {previous}"
            ),
            SparseError::LengthMismatch { left, right } => {
                write!(f, "vector lengths differ: {left} and {right}")
            }
            SparseError::RangeOutOfBounds { start, length, len } => write!(
                f,
                "range of {length} from {start} out of bounds for length {len}"
            ),
            SparseError::Duplicate { index } => {
                write!(
                    f,
                    "index {index} given twice and its values cannot be combined"
                )
            }
            SparseError::Capacity(e) => write!(f, "sparse vector storage: {e}"),
        }
    }
}

impl core::error::Error for SparseError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            SparseError::Capacity(e) => Some(e),
            _ => None,
        }
    }
}

/// A failed construction: the reason and the storage, returned untouched so that nothing the
/// caller handed in is lost (the `try_new` of sprs would have panicked).
///
/// It is an error for any storage (`Debug` shows the reason only), so `?` takes it into a
/// `Box<dyn Error>` whenever `S` is `'static` (inline or owned storage); for borrowed
/// storage, `?` into a function returning [`SparseError`] (or `.map_err(SparseError::from)`)
/// drops the storage and keeps the reason.
pub struct InvalidVBuffer<S> {
    /// Why the parts do not form a valid vector.
    pub error: SparseError,
    /// The storage that was passed in.
    pub storage: S,
}

impl<S> InvalidVBuffer<S> {
    /// The storage back.
    pub fn into_storage(self) -> S {
        self.storage
    }
}

impl<S> fmt::Debug for InvalidVBuffer<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InvalidVBuffer")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<S> fmt::Display for InvalidVBuffer<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid sparse vector: {}", self.error)
    }
}

impl<S> core::error::Error for InvalidVBuffer<S> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl<S> From<InvalidVBuffer<S>> for SparseError {
    /// The reason, without the storage.
    fn from(e: InvalidVBuffer<S>) -> Self {
        e.error
    }
}
