//! Reserve, then allocate: HugeCTR's `GeneralBuffer2` over caller memory. Tensors and blocks
//! (tensors back to back) are reserved first; the arena plans where each goes and how many
//! bytes that takes ([`Arena::required_bytes`]), so firmware can size a static array; then it
//! is allocated once over a [`Memory`](crate::memory::Memory) region and hands out typed
//! tensors for its handles.
//!
//! - Every buffer starts on a 32-byte boundary (configurable per arena); the region's own
//!   start is padded up to it, and a region too small is [`ArenaError::Memory`] with the bytes
//!   needed.
//! - Buffers reserved with a [`Lifetime`](crate::plan::Lifetime) share memory with buffers
//!   never alive at the same time ([`plan_greedy`](crate::plan::plan_greedy), TFLite Micro's
//!   planner); [`Arena::tensors_mut`] refuses to hand out two writable tensors over the same
//!   bytes.
//! - The slot table is storage the caller picks ([`Slots`]): [`InlineSlots`], [`SliceSlots`]
//!   over a static array, or a `Vec` in `tessera-alloc` (whose `HeapArena` also owns the
//!   region and reuses it batch after batch).
//! - Device memory (a GPU adapter's) gets a plan and addresses ([`Arena::address`]) but no
//!   CPU tensors: [`ArenaError::NotHostAccessible`].
//!
//! ```
//! use tessera_core::arena::{Arena, SliceSlots, Slot};
//! use tessera_core::plan::Lifetime;
//!
//! let mut table = [Slot::EMPTY; 4];
//! let mut arena = Arena::new(SliceSlots::new(&mut table));
//! let input = arena.reserve_for::<f32>(&[256], Lifetime::new(0, 1)).unwrap();
//! let hidden = arena.reserve_for::<f32>(&[512], Lifetime::new(1, 2)).unwrap();
//! let output = arena.reserve_for::<f32>(&[256], Lifetime::new(2, 3)).unwrap();
//! assert_eq!(arena.sum_of_sizes(), 4096);
//! assert_eq!(arena.required_bytes().unwrap(), 3072); // input and output share bytes
//!
//! let mut memory = vec![0u8; arena.required_bytes_unaligned().unwrap()];
//! arena.allocate(&mut memory[..]).unwrap();
//! let [x, h] = arena.tensors_mut([&input, &hidden]).unwrap();
//! assert_eq!((x.len(), h.len()), (256, 512));
//! assert!(arena.tensors_mut([&input, &output]).is_err()); // same bytes
//! ```

mod access;
mod error;
mod handle;
mod reserve;
mod slots;

pub use error::{AllocateError, ArenaError};
pub use handle::{BagHandle, BlockHandle, TensorHandle};
pub use reserve::Arena;
pub use slots::{InlineSlots, SliceSlots, Slot, Slots};

/// The alignment of every buffer unless the arena says otherwise (HugeCTR's).
pub const DEFAULT_ALIGNMENT: usize = 32;

#[cfg(test)]
mod tests;
