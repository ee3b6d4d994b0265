//! Placing buffers in one region: back to back, or overlapping buffers that are never alive at
//! the same time, as TFLite Micro's greedy memory planner does. The [arena](crate::arena)
//! plans with these; they also work alone on caller arrays, with no allocation.
//!
//! A [`PlanBuffer`] is a size, an alignment and a [`Lifetime`] (first and last step of the
//! graph that uses it, inclusive). [`plan_greedy`] sorts the buffers by size (largest first)
//! and gives each the lowest aligned offset that does not overlap any already placed buffer
//! alive at the same time ("greedy by size, first fit"); [`plan_sequential`] puts them back to
//! back in order (HugeCTR's `GeneralBuffer2`). Both write each buffer's offset and return the
//! bytes needed. [`live_peak`] is the lower bound no plan can beat.
//!
//! ```
//! use tessera_core::plan::{Lifetime, PlanBuffer, live_peak, plan_greedy};
//!
//! // A chain: input → conv → relu → output. Each activation lives for two steps.
//! let mut buffers = [
//!     PlanBuffer::new(1024, 32, Lifetime::new(0, 1)),
//!     PlanBuffer::new(2048, 32, Lifetime::new(1, 2)),
//!     PlanBuffer::new(1024, 32, Lifetime::new(2, 3)),
//! ];
//! let peak = plan_greedy(&mut buffers).unwrap();
//! assert_eq!(peak, 3072); // the first and last share memory
//! assert_eq!(peak, live_peak(&buffers));
//! assert_eq!(buffers[0].offset(), buffers[2].offset());
//! ```

mod greedy;

use core::fmt;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

pub use greedy::{live_peak, plan_greedy, plan_sequential};

/// The steps during which a buffer is alive: from `first` to `last`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C)]
pub struct Lifetime {
    /// First step that uses the buffer.
    pub first: u32,
    /// Last step that uses the buffer (at least `first`).
    pub last: u32,
}

impl Lifetime {
    /// Alive for the whole run: overlaps every other buffer.
    pub const ALWAYS: Self = Self {
        first: 0,
        last: u32::MAX,
    };

    /// Alive from `first` to `last`, both included.
    pub const fn new(first: u32, last: u32) -> Self {
        Self { first, last }
    }

    /// Whether two buffers are alive at some common step.
    pub const fn overlaps(self, other: Self) -> bool {
        self.first <= other.last && other.first <= self.last
    }
}

/// "No buffer" in the planner's scratch links.
const NONE: u32 = u32::MAX;

/// One buffer to place: size, alignment and lifetime in; offset out.
///
/// Plain bytes (zerocopy's `FromBytes` / `IntoBytes`), so a table of them can be laid over
/// part of a caller's byte region, as the model interpreter does while it plans: the planner
/// checks every field it reads, so any bytes are a valid (if unplannable) buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub struct PlanBuffer {
    size: usize,
    align: usize,
    lifetime: Lifetime,
    offset: usize,
    /// Scratch: entry `i` of the size order, kept in buffer `i`.
    order: u32,
    /// Scratch: next placed buffer by offset.
    next: u32,
}

impl PlanBuffer {
    /// A buffer of `size` bytes starting on a multiple of `align` (a power of two; checked when
    /// planning), alive during `lifetime`. Size 0 buffers are placed at offset 0.
    pub const fn new(size: usize, align: usize, lifetime: Lifetime) -> Self {
        Self {
            size,
            align,
            lifetime,
            offset: 0,
            order: NONE,
            next: NONE,
        }
    }

    /// Bytes.
    pub const fn size(&self) -> usize {
        self.size
    }

    /// Alignment of the offset.
    pub const fn align(&self) -> usize {
        self.align
    }

    /// When it is alive.
    pub const fn lifetime(&self) -> Lifetime {
        self.lifetime
    }

    /// Offset in bytes from the start of the region, as last planned.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// One past the last byte, as last planned.
    pub const fn end(&self) -> usize {
        self.offset.saturating_add(self.size)
    }

    pub(crate) fn set_size(&mut self, size: usize) {
        self.size = size;
    }
}

impl AsRef<PlanBuffer> for PlanBuffer {
    fn as_ref(&self) -> &PlanBuffer {
        self
    }
}

impl AsMut<PlanBuffer> for PlanBuffer {
    fn as_mut(&mut self) -> &mut PlanBuffer {
        self
    }
}

/// Why buffers could not be planned. `buffer` is the buffer's index in the slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum PlanError {
    /// A lifetime ends before it starts.
    BadLifetime {
        /// The buffer.
        buffer: usize,
        /// Its lifetime.
        lifetime: Lifetime,
    },
    /// An alignment that is not a power of two.
    BadAlignment {
        /// The buffer.
        buffer: usize,
        /// Its alignment.
        align: usize,
    },
    /// The plan would need more than `usize::MAX` bytes.
    TooLarge {
        /// The buffer that no longer fits.
        buffer: usize,
    },
    /// More buffers than the planner can index (`u32::MAX - 1`).
    TooMany {
        /// Buffers given.
        count: usize,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BadLifetime { buffer, lifetime } => write!(
                f,
                "plan buffer {buffer}: lifetime ends at step {} before it starts at {}",
                lifetime.last, lifetime.first
            ),
            Self::BadAlignment { buffer, align } => write!(
                f,
                "plan buffer {buffer}: alignment {align} is not a power of two"
            ),
            Self::TooLarge { buffer } => {
                write!(f, "plan buffer {buffer}: the plan overflows usize")
            }
            Self::TooMany { count } => write!(f, "plan of {count} buffers: too many to index"),
        }
    }
}

impl core::error::Error for PlanError {}

#[cfg(test)]
mod tests;
