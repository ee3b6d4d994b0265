//! What can go wrong with an arena: reserving at the wrong time, a table or region too small,
//! a handle it did not make, two writable tensors over the same bytes.

use core::fmt;

use crate::error::CapacityError;
use crate::memory::MemoryKind;
use crate::plan::PlanError;
use crate::tensor::TensorError;

/// Why an arena operation failed. Each method documents which variants it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ArenaError {
    /// Reserving or allocating after allocation (HugeCTR: "General buffer is finalized").
    AlreadyAllocated,
    /// Asking for a tensor before allocation.
    NotAllocated,
    /// The memory given to `allocate` is too small: `needed` includes the padding its start
    /// needs to reach the arena's alignment.
    Memory(CapacityError),
    /// The slot table is full (counts in slots).
    Slots(CapacityError),
    /// A shape is invalid, or the memory's bytes cannot be cast to the tensor's type.
    Tensor(TensorError),
    /// The buffers cannot be planned.
    Plan(PlanError),
    /// The alignment is not a power of two.
    BadAlignment {
        /// The alignment asked for.
        alignment: usize,
    },
    /// A handle this arena did not make (or made before its last reset).
    UnknownHandle {
        /// The handle's slot index.
        slot: usize,
    },
    /// Two handles asked for as writable tensors at once share bytes (they are never alive
    /// at the same time, so the planner overlapped them).
    Aliased {
        /// Position in the request of the first.
        first: usize,
        /// Position in the request of the second.
        second: usize,
    },
    /// The memory is not CPU-addressable, so it has addresses but no tensors.
    NotHostAccessible {
        /// Its kind.
        kind: MemoryKind,
    },
    /// The memory's byte slice is not as long as its `len()` said at allocation.
    MemoryChanged {
        /// Bytes it said it had.
        expected: usize,
        /// Bytes its slice has.
        found: usize,
    },
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AlreadyAllocated => f.write_str("arena is already allocated"),
            Self::NotAllocated => f.write_str("arena is not allocated yet"),
            Self::Memory(e) => write!(f, "arena memory too small: {e}"),
            Self::Slots(e) => write!(f, "arena slot table full: {e}"),
            Self::Tensor(e) => write!(f, "arena tensor: {e}"),
            Self::Plan(e) => write!(f, "arena plan: {e}"),
            Self::BadAlignment { alignment } => {
                write!(f, "arena alignment {alignment} is not a power of two")
            }
            Self::UnknownHandle { slot } => {
                write!(f, "arena has no such buffer: slot {slot}")
            }
            Self::Aliased { first, second } => write!(
                f,
                "arena buffers {first} and {second} of the request overlap in memory"
            ),
            Self::NotHostAccessible { kind } => {
                write!(f, "arena memory of kind {kind:?} is not CPU-addressable")
            }
            Self::MemoryChanged { expected, found } => write!(
                f,
                "arena memory has {found} bytes, {expected} at allocation"
            ),
        }
    }
}

impl core::error::Error for ArenaError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            ArenaError::Memory(e) | ArenaError::Slots(e) => Some(e),
            ArenaError::Tensor(e) => Some(e),
            ArenaError::Plan(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TensorError> for ArenaError {
    fn from(e: TensorError) -> Self {
        Self::Tensor(e)
    }
}

impl From<PlanError> for ArenaError {
    fn from(e: PlanError) -> Self {
        Self::Plan(e)
    }
}

/// [`Arena::allocate`](super::Arena::allocate) failed: the memory comes back with the reason.
///
/// It is an error for any memory type (`Debug` shows the reason only), so `?` takes it into
/// a `Box<dyn Error>` whenever `M` is `'static`; for borrowed memory, `?` into a function
/// returning [`ArenaError`] (or `.map_err(ArenaError::from)`) drops the memory and keeps the
/// reason.
pub struct AllocateError<M> {
    /// Why it was refused.
    pub error: ArenaError,
    /// The memory that was given.
    pub memory: M,
}

impl<M> AllocateError<M> {
    /// The memory back.
    pub fn into_memory(self) -> M {
        self.memory
    }
}

impl<M> fmt::Display for AllocateError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl<M> fmt::Debug for AllocateError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AllocateError")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<M> core::error::Error for AllocateError<M> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl<M> From<AllocateError<M>> for ArenaError {
    /// The reason, without the memory.
    fn from(e: AllocateError<M>) -> Self {
        e.error
    }
}
