//! Errors of TFLite string tensors: why a buffer is not a valid tensor (naming the byte or the
//! offset-table entry at fault), and why an encoder could not write one.

use core::fmt;

use crate::error::CapacityError;

/// Byte position of entry `index` of the offset table (the table starts after the 4-byte count).
///
/// Saturates instead of overflowing: it is only used to describe a position in a message.
fn table_byte(index: usize) -> usize {
    index.saturating_mul(4).saturating_add(4)
}

/// Why bytes are not a valid TFLite string tensor, or why strings cannot form one.
///
/// Returned by [`TfliteStrings::new`](super::TfliteStrings::new), which checks more than
/// TFLite's own verifier does (offsets must not decrease, the table must cover the buffer
/// exactly), and by [`tflite_encoded_len`](super::tflite_encoded_len) ([`TooLarge`] only).
/// Offset-table entries are named by their index `i` in `offset[0..=N]`; entry `i` sits at byte
/// `4 + 4 * i` of the buffer.
///
/// [`TooLarge`]: StringTensorError::TooLarge
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum StringTensorError {
    /// The buffer is shorter than the 4-byte string count that starts every tensor.
    Truncated {
        /// Bytes needed to read the count (4).
        needed: usize,
        /// Bytes in the buffer.
        len: usize,
    },
    /// The string count (bytes 0..4) is negative.
    NegativeCount {
        /// The count as read.
        count: i32,
    },
    /// The count and offset table, `4 * (N + 2)` bytes, do not fit in the buffer (or in `usize`).
    CountTooLarge {
        /// The count `N` as read.
        count: i32,
        /// Bytes in the buffer.
        len: usize,
    },
    /// `offset[0]` does not point just past the offset table, at byte `4 * (N + 2)`.
    FirstOffset {
        /// `4 * (N + 2)`, the only valid first offset.
        expected: usize,
        /// `offset[0]` as read.
        found: i32,
    },
    /// `offset[N]` is not the buffer length: the buffer has bytes after the last string.
    LastOffset {
        /// The buffer length, the only valid last offset.
        expected: usize,
        /// `offset[N]` as read.
        found: i32,
    },
    /// An offset is negative.
    NegativeOffset {
        /// Index `i` of the entry in `offset[0..=N]`.
        index: usize,
        /// The offset as read.
        value: i32,
    },
    /// `offset[index]` is smaller than `offset[index - 1]`: string `index - 1` would end before
    /// it starts. TFLite's verifier does not check this.
    Decreasing {
        /// Index `i` of the entry in `offset[0..=N]` that is smaller than the one before it.
        index: usize,
        /// `offset[index - 1]`.
        previous: i32,
        /// `offset[index]`.
        value: i32,
    },
    /// An offset points past the end of the buffer.
    OffsetOutOfBounds {
        /// Index `i` of the entry in `offset[0..=N]`.
        index: usize,
        /// The offset as read.
        value: i32,
        /// Bytes in the buffer.
        len: usize,
    },
    /// Only from encoding: with string `index` the tensor would be longer than `i32::MAX` bytes
    /// (or `usize::MAX`), so its offsets could not be stored.
    TooLarge {
        /// Index of the first string that no longer fits.
        index: usize,
    },
}

impl fmt::Display for StringTensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated { needed, len } => write!(
                f,
                "string tensor truncated: {needed} bytes needed for the count, buffer has {len}"
            ),
            Self::NegativeCount { count } => {
                write!(f, "string tensor count is negative: {count}")
            }
            Self::CountTooLarge { count, len } => {
                // Widen before computing so the message itself cannot overflow.
                let table = (i64::from(count) + 2) * 4;
                write!(
                    f,
                    "string tensor count {count} needs a {table}-byte offset table, buffer has {len} bytes"
                )
            }
            Self::FirstOffset { expected, found } => write!(
                f,
                "string tensor offset[0] (byte 4) is {found}, expected {expected} (end of the offset table)"
            ),
            Self::LastOffset { expected, found } => write!(
                f,
                "string tensor last offset is {found}, expected the buffer length {expected}"
            ),
            Self::NegativeOffset { index, value } => write!(
                f,
                "string tensor offset[{index}] (byte {}) is negative: {value}",
                table_byte(index)
            ),
            Self::Decreasing {
                index,
                previous,
                value,
            } => write!(
                f,
                "string tensor offset[{index}] (byte {}) is {value}, less than offset[{}] = {previous}",
                table_byte(index),
                index.saturating_sub(1)
            ),
            Self::OffsetOutOfBounds { index, value, len } => write!(
                f,
                "string tensor offset[{index}] (byte {}) is {value}, past the end of the {len}-byte buffer",
                table_byte(index)
            ),
            Self::TooLarge { index } => write!(
                f,
                "string tensor too large: string {index} would take it past i32::MAX bytes"
            ),
        }
    }
}

impl core::error::Error for StringTensorError {}

/// Why [`encode_tflite`](super::encode_tflite) wrote no tensor. The output buffer may then
/// hold part of one, which is not a valid tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TfliteEncodeError {
    /// The output buffer is smaller than the encoded tensor; `needed` is the exact size
    /// ([`tflite_encoded_len`](super::tflite_encoded_len)).
    Capacity(CapacityError),
    /// With string `index` the tensor would be longer than `i32::MAX` bytes, the largest offset
    /// a TFLite string tensor can hold (this bounds both the count and the total length).
    TooLarge {
        /// Index of the first string that no longer fits.
        index: usize,
    },
}

impl From<CapacityError> for TfliteEncodeError {
    fn from(e: CapacityError) -> Self {
        Self::Capacity(e)
    }
}

impl fmt::Display for TfliteEncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Capacity(e) => write!(f, "cannot encode string tensor: {e}"),
            Self::TooLarge { index } => write!(
                f,
                "cannot encode string tensor: string {index} would take it past i32::MAX bytes"
            ),
        }
    }
}

impl core::error::Error for TfliteEncodeError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Capacity(e) => Some(e),
            Self::TooLarge { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests;
