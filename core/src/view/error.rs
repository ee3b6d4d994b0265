//! Why a view could not be made: an index that does not fit the tensor (naming the index), or
//! a malformed DL4J encoding (naming the position in the `i64` array).

use core::fmt;

/// Why indices do not make a view of a tensor. `position` is the index's place in the list of
/// indices (for DL4J encodings, the number of the encoded index, not of the `i64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ViewError {
    /// More indices that consume an axis (all but `NewAxis`) than the tensor has axes.
    TooManyIndices {
        /// The first index with no axis left.
        position: usize,
        /// The tensor's rank.
        rank: usize,
    },
    /// A point is out of range for its axis, even after counting negatives from the end.
    PointOutOfRange {
        /// The index.
        position: usize,
        /// The axis it applies to.
        axis: usize,
        /// The point as given.
        index: i64,
        /// The axis length.
        len: usize,
    },
    /// An interval's stride is below 1.
    BadStride {
        /// The index.
        position: usize,
        /// The stride as given.
        stride: i64,
    },
    /// The view would have more than [`MAX_RANK`](crate::tensor::MAX_RANK) dimensions.
    RankTooLarge {
        /// The index that adds the dimension too many.
        position: usize,
        /// The most supported.
        max: usize,
    },
    /// The DL4J encoding of the indices is malformed.
    Encoding(IndexDecodeError),
}

/// Why an `i64` array is not a valid DL4J index encoding. `position` is always the place in
/// the array of the `i64` at fault (for truncation, of the start of the cut-off index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum IndexDecodeError {
    /// The type word is not 0 (point), 1 (interval), 2 (all) or 3 (new axis).
    UnknownType {
        /// Position of the type word.
        position: usize,
        /// The word.
        found: i64,
    },
    /// The array ends inside an index.
    Truncated {
        /// Position of the index's type word.
        position: usize,
        /// Words this kind of index needs.
        needed: usize,
        /// Words left in the array from `position`.
        available: usize,
    },
    /// A word with a fixed value (the count of offsets, the stride placeholder, a new axis's
    /// offset) has another.
    BadField {
        /// Position of the word.
        position: usize,
        /// The value the encoding requires.
        expected: i64,
        /// The value found.
        found: i64,
    },
    /// An inclusive flag is neither 0 nor 1.
    BadFlag {
        /// Position of the flag.
        position: usize,
        /// The value found.
        found: i64,
    },
    /// An interval's stride is below 1.
    BadStride {
        /// Position of the stride.
        position: usize,
        /// The stride found.
        found: i64,
    },
    /// More indices than the output slice has room for.
    TooMany {
        /// Position of the first index with no room.
        position: usize,
        /// Room in the output.
        max: usize,
    },
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::TooManyIndices { position, rank } => write!(
                f,
                "view index {position} has no axis left: the tensor has rank {rank}"
            ),
            Self::PointOutOfRange {
                position,
                axis,
                index,
                len,
            } => write!(
                f,
                "view index {position}: point {index} is out of range for axis {axis} of length {len}"
            ),
            Self::BadStride { position, stride } => write!(
                f,
                "view index {position}: interval stride {stride} is below 1"
            ),
            Self::RankTooLarge { position, max } => write!(
                f,
                "view index {position}: the view would have more than {max} dimensions"
            ),
            Self::Encoding(e) => write!(f, "view indices: {e}"),
        }
    }
}

impl fmt::Display for IndexDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownType { position, found } => write!(
                f,
                "DL4J index type {found} at position {position} is not 0, 1, 2 or 3"
            ),
            Self::Truncated {
                position,
                needed,
                available,
            } => write!(
                f,
                "DL4J index at position {position} needs {needed} words, {available} left"
            ),
            Self::BadField {
                position,
                expected,
                found,
            } => write!(
                f,
                "DL4J index word at position {position} is {found}, expected {expected}"
            ),
            Self::BadFlag { position, found } => write!(
                f,
                "DL4J inclusive flag at position {position} is {found}, expected 0 or 1"
            ),
            Self::BadStride { position, found } => write!(
                f,
                "DL4J interval stride at position {position} is {found}, expected at least 1"
            ),
            Self::TooMany { position, max } => write!(
                f,
                "DL4J index at position {position} does not fit: room for {max} indices"
            ),
        }
    }
}

impl From<IndexDecodeError> for ViewError {
    fn from(e: IndexDecodeError) -> Self {
        Self::Encoding(e)
    }
}

impl core::error::Error for ViewError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            ViewError::Encoding(e) => Some(e),
            _ => None,
        }
    }
}
impl core::error::Error for IndexDecodeError {}
