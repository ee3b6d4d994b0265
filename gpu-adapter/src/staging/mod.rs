//! Staging CSR batches for upload: the batch layout shared by pinned and device regions, the
//! ring bookkeeping that says when a pinned slot may be refilled, and owned slots that
//! decoding threads fill in place. All pure Rust, tested without a GPU.

mod layout;
mod ring;
mod slot;

pub use layout::{BatchArena, BatchLayout, BatchShape};
pub use ring::{RingError, SlotState, StagingRing};
pub use slot::StagingSlot;
