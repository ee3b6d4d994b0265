//! [`BuffersError`]: why batch buffers could not be made.

use std::fmt;

use tessera_core::data::BatchError;

use super::MemoryError;

/// Why [`BatchBuffers::new`](super::BatchBuffers::new) or
/// [`with_budget`](super::BatchBuffers::with_budget) failed. Its messages are the ones these
/// failures had when the buffers belonged to the cursor sets (hence "cursor set" in them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuffersError {
    /// The batch shape holds no sample (all dims zero, no samples), or its key capacity
    /// does not fit the key type.
    Batch(BatchError),
    /// The buffer sizes overflow `usize`, or the allocator refused them.
    Memory,
    /// The buffers would take more than the memory budget allows
    /// ([`BatchBuffers::with_budget`](super::BatchBuffers::with_budget)).
    Budget(MemoryError),
}

impl fmt::Display for BuffersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Batch(e) => write!(f, "cursor set batch: {e}"),
            Self::Memory => f.write_str("cursor set batch buffers: out of memory"),
            Self::Budget(e) => write!(f, "cursor set batch buffers: {e}"),
        }
    }
}

impl std::error::Error for BuffersError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Batch(e) => Some(e),
            Self::Memory => None,
            Self::Budget(e) => Some(e),
        }
    }
}

impl From<BatchError> for BuffersError {
    fn from(e: BatchError) -> Self {
        Self::Batch(e)
    }
}
