//! [`CursorSetError`]: why a cursor set or its buffers could not be set up.

use std::fmt;

use tessera_core::data::BatchError;

use crate::buffers::{BuffersError, MemoryError};

/// Why [`CursorSet::spawn`](super::CursorSet::spawn) or its buffers failed (the variants of
/// a [`BuffersError`] and a thread the system refused). Errors while reading come later,
/// through the set's [`BatchSource`](tessera_core::data::BatchSource) side, as `DataError`s.
#[derive(Debug)]
#[non_exhaustive]
pub enum CursorSetError {
    /// The batch shape holds no sample (all dims zero, no samples), or its key capacity
    /// does not fit the key type.
    Batch(BatchError),
    /// The buffer sizes overflow `usize`, or the allocator refused them.
    Memory,
    /// The buffers would take more than the memory budget allows
    /// ([`BatchBuffers::with_budget`](crate::buffers::BatchBuffers::with_budget)).
    Budget(MemoryError),
    /// The operating system refused a worker thread.
    Thread(std::io::Error),
}

impl fmt::Display for CursorSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Batch(e) => write!(f, "cursor set batch: {e}"),
            Self::Memory => f.write_str("cursor set batch buffers: out of memory"),
            Self::Budget(e) => write!(f, "cursor set batch buffers: {e}"),
            Self::Thread(e) => write!(f, "cursor set worker thread: {e}"),
        }
    }
}

impl std::error::Error for CursorSetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Batch(e) => Some(e),
            Self::Memory => None,
            Self::Budget(e) => Some(e),
            Self::Thread(e) => Some(e),
        }
    }
}

impl From<BuffersError> for CursorSetError {
    fn from(e: BuffersError) -> Self {
        match e {
            BuffersError::Batch(e) => Self::Batch(e),
            BuffersError::Memory => Self::Memory,
            BuffersError::Budget(e) => Self::Budget(e),
        }
    }
}

impl From<BatchError> for CursorSetError {
    fn from(e: BatchError) -> Self {
        Self::Batch(e)
    }
}
