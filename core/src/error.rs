//! Errors shared across tessera-core. Each module has its own error enum for what can go wrong
//! in its format; running out of caller-provided room is common to all of them.

use core::fmt;

/// A caller-provided buffer is too small. Carries the bytes needed so the caller can size it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CapacityError {
    /// Bytes (or elements, where the function says so) the operation needs in total.
    pub needed: usize,
    /// Bytes (or elements) the caller provided.
    pub available: usize,
}

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "buffer too small: {} needed, {} available",
            self.needed, self.available
        )
    }
}

impl core::error::Error for CapacityError {}
