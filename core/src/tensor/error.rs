//! What can go wrong making or using a tensor: a shape that does not fit its buffer, a dtype or
//! alignment that does not match, two tensors of different shapes.

use core::fmt;

use super::DType;

/// Why a tensor, bag or layout could not be made, or an operation on two tensors refused.
/// Every variant says what and where; each function documents which it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TensorError {
    /// More dimensions than [`MAX_RANK`](super::MAX_RANK).
    RankTooLarge {
        /// Dimensions asked for.
        rank: usize,
        /// The most supported.
        max: usize,
    },
    /// A layout's shape and strides have different lengths.
    StridesMismatch {
        /// Dimensions in the shape.
        shape: usize,
        /// Entries in the strides.
        strides: usize,
    },
    /// The element count, or the furthest element a layout reaches, overflows `usize`.
    TooLarge {
        /// The axis at which the computation overflowed.
        axis: usize,
    },
    /// A contiguous tensor's buffer does not hold exactly as many elements as its shape.
    LengthMismatch {
        /// Elements the shape has.
        needed: usize,
        /// Elements in the buffer.
        len: usize,
    },
    /// A layout reaches past the end of its buffer.
    OutOfBounds {
        /// Elements the buffer must hold (offset of the furthest element + 1).
        needed: usize,
        /// Elements in the buffer.
        len: usize,
    },
    /// A bag holds a different dtype than the one asked for.
    DTypeMismatch {
        /// The dtype asked for.
        expected: DType,
        /// The dtype of the bag.
        found: DType,
    },
    /// A byte buffer does not start on the alignment its dtype needs.
    Misaligned {
        /// The dtype's alignment in bytes.
        align: usize,
        /// The buffer's address modulo `align`.
        misalignment: usize,
    },
    /// A byte buffer's length is not a multiple of its dtype's size.
    ByteLength {
        /// Bytes in the buffer.
        len: usize,
        /// Bytes per element.
        size: usize,
    },
    /// A byte is not a valid element (a `bool` other than 0 or 1).
    InvalidValue {
        /// Position of the first invalid element in the buffer.
        element: usize,
    },
    /// Two tensors have different ranks.
    RankMismatch {
        /// Rank of the tensor written.
        this: usize,
        /// Rank of the other tensor.
        other: usize,
    },
    /// Two tensors differ in length along an axis.
    ShapeMismatch {
        /// The first axis where they differ.
        axis: usize,
        /// Length of the tensor written along `axis`.
        this: usize,
        /// Length of the other tensor along `axis`.
        other: usize,
    },
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::RankTooLarge { rank, max } => {
                write!(f, "tensor rank {rank} is above the maximum {max}")
            }
            Self::StridesMismatch { shape, strides } => write!(
                f,
                "tensor layout has {shape} dimensions but {strides} strides"
            ),
            Self::TooLarge { axis } => {
                write!(f, "tensor size overflows usize at axis {axis}")
            }
            Self::LengthMismatch { needed, len } => write!(
                f,
                "tensor shape has {needed} elements but the buffer holds {len}"
            ),
            Self::OutOfBounds { needed, len } => write!(
                f,
                "tensor layout needs {needed} elements but the buffer holds {len}"
            ),
            Self::DTypeMismatch { expected, found } => {
                write!(f, "tensor dtype is {found}, expected {expected}")
            }
            Self::Misaligned {
                align,
                misalignment,
            } => write!(
                f,
                "tensor bytes start {misalignment} bytes past a {align}-byte boundary"
            ),
            Self::ByteLength { len, size } => write!(
                f,
                "tensor buffer of {len} bytes is not a whole number of {size}-byte elements"
            ),
            Self::InvalidValue { element } => {
                write!(
                    f,
                    "tensor element {element} is not a valid value of its dtype"
                )
            }
            Self::RankMismatch { this, other } => {
                write!(f, "tensor ranks differ: {this} and {other}")
            }
            Self::ShapeMismatch { axis, this, other } => {
                write!(f, "tensor shapes differ at axis {axis}: {this} and {other}")
            }
        }
    }
}

impl core::error::Error for TensorError {}

/// A tensor that could not be made over some storage: the reason and the storage, returned
/// untouched (the shape every error that hands its input back has: `error`, then the input).
///
/// `Debug` shows the reason only, so it is an error for any storage; `?` into a function
/// returning [`TensorError`] (or `.map_err(TensorError::from)`) drops the storage.
#[derive(Clone, PartialEq)]
pub struct InvalidTensor<S> {
    /// Why the storage does not fit the shape.
    pub error: TensorError,
    /// The storage that was passed in.
    pub data: S,
}

impl<S> InvalidTensor<S> {
    /// The storage back.
    pub fn into_data(self) -> S {
        self.data
    }
}

impl<S> fmt::Debug for InvalidTensor<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InvalidTensor")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<S> fmt::Display for InvalidTensor<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid tensor: {}", self.error)
    }
}

impl<S> core::error::Error for InvalidTensor<S> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl<S> From<InvalidTensor<S>> for TensorError {
    /// The reason, without the storage.
    fn from(e: InvalidTensor<S>) -> Self {
        e.error
    }
}
