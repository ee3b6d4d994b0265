//! The memory budget: every buffer whose size comes from a file or an argument is checked
//! against it and reserved fallibly, so an absurd size is an error naming the bytes asked
//! for, never an allocation that aborts the process.

use std::fmt;

/// The most bytes the readers, the converter and the pipeline may allocate for one buffer
/// whose size comes from outside (a header, metadata, an argument).
///
/// The budget is a ceiling, not a pool: each request is checked on its own, then reserved
/// with `try_reserve_exact`, so the allocator may still refuse a request inside the budget
/// (that is [`MemoryError::Refused`]). Sizes are computed with checked arithmetic; one that
/// overflows is refused as over the budget with [`MemoryError::OverBudget`]'s `bytes` at
/// `u128` precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget {
    bytes: u64,
}

impl MemoryBudget {
    /// 1 GiB: far above what HugeCTR-sized batches need (a batch of 1 024 Criteo samples is
    /// under 1 MiB, a record of 26 slots at the most keys HugeCTR allows a few MiB), far
    /// below what makes an allocator abort or a phone's process killer step in.
    pub const DEFAULT: Self = Self::new(1 << 30);

    /// A budget of `bytes` per buffer.
    pub const fn new(bytes: u64) -> Self {
        Self { bytes }
    }

    /// The bytes one buffer may take.
    pub const fn bytes(self) -> u64 {
        self.bytes
    }

    /// Checks `len` elements of `T` against the budget: `Ok(bytes)` when they fit.
    pub fn check<T>(self, what: &'static str, len: u128) -> Result<u64, MemoryError> {
        let bytes = len.saturating_mul(size_of::<T>() as u128);
        match u64::try_from(bytes) {
            Ok(b) if b <= self.bytes && usize::try_from(b).is_ok() => Ok(b),
            _ => Err(MemoryError::OverBudget {
                what,
                bytes,
                budget: self.bytes,
            }),
        }
    }

    /// `len` copies of `value`, or an error if they are over the budget or the allocator
    /// refuses them.
    pub fn vec<T: Clone>(
        self,
        what: &'static str,
        len: usize,
        value: T,
    ) -> Result<Vec<T>, MemoryError> {
        let bytes = self.check::<T>(what, len as u128)?;
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| MemoryError::Refused { what, bytes })?;
        v.resize(len, value);
        Ok(v)
    }
}

impl Default for MemoryBudget {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A buffer that was not allocated, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryError {
    /// The size is over the [`MemoryBudget`] (or overflows `usize`).
    OverBudget {
        /// What the buffer is for (`"batch keys"`, `"embedding table"`, …).
        what: &'static str,
        /// The bytes asked for (saturating at `u128::MAX`).
        bytes: u128,
        /// The budget, in bytes.
        budget: u64,
    },
    /// Within the budget, but the allocator refused it.
    Refused {
        /// What the buffer is for.
        what: &'static str,
        /// The bytes asked for.
        bytes: u64,
    },
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::OverBudget {
                what,
                bytes,
                budget,
            } => write!(
                f,
                "{what} would take {bytes} bytes, over the {budget}-byte memory budget"
            ),
            Self::Refused { what, bytes } => {
                write!(f, "{what}: the allocator refused {bytes} bytes")
            }
        }
    }
}

impl std::error::Error for MemoryError {}

#[cfg(test)]
mod tests;
