//! Staging CSR batches for upload: the batch layout shared by pinned and device regions, and
//! the ring bookkeeping that says when a pinned slot may be refilled. Both pure Rust, tested
//! without a GPU.

mod layout;
mod ring;

pub use layout::{BatchArena, BatchLayout, BatchShape};
pub use ring::{RingError, SlotState, StagingRing};
