//! A heap-backed arena that keeps its memory from batch to batch: core's
//! [`Arena`](tessera_core::arena::Arena) with its slot table in a `Vec` and its region in a
//! 64-byte-aligned heap block, both kept by [`HeapArena::reset`].

use alloc::vec::Vec;
use core::ops::{Deref, DerefMut};

use tessera_core::arena::{Arena, ArenaError, Slot, Slots};
use tessera_core::error::CapacityError;
use tessera_core::memory::{
    Chunk64, HostMemory, Memory, MemoryKind, chunks_as_bytes, chunks_as_bytes_mut,
};

/// Heap memory for an arena: a whole number of 64-byte chunks starting on a 64-byte boundary,
/// with no `unsafe` (a `Vec<Chunk64>` seen as bytes).
#[derive(Debug, Clone, Default)]
pub struct HeapBlock {
    chunks: Vec<Chunk64>,
}

impl HeapBlock {
    /// An empty block.
    pub const fn new() -> Self {
        Self { chunks: Vec::new() }
    }

    /// A zeroed block of at least `bytes` bytes.
    pub fn with_len(bytes: usize) -> Self {
        let mut block = Self::new();
        block.grow_to(bytes);
        block
    }

    /// Grows the block to at least `bytes` bytes (new bytes are zero); never shrinks.
    pub fn grow_to(&mut self, bytes: usize) {
        let chunks = bytes.div_ceil(64);
        if chunks > self.chunks.len() {
            self.chunks.resize(chunks, Chunk64::ZERO);
        }
    }

    /// Gives back the memory.
    pub fn clear(&mut self) {
        self.chunks = Vec::new();
    }
}

impl Memory for HeapBlock {
    fn kind(&self) -> MemoryKind {
        MemoryKind::Host
    }
    fn base_address(&self) -> usize {
        self.chunks.as_ptr() as usize
    }
    fn len(&self) -> usize {
        self.chunks.len() * 64
    }
}

impl HostMemory for HeapBlock {
    fn bytes(&self) -> &[u8] {
        chunks_as_bytes(&self.chunks)
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        chunks_as_bytes_mut(&mut self.chunks)
    }
}

/// An arena slot table in a `Vec`: never full, and [`clear`](Slots::clear) keeps the capacity.
#[derive(Debug, Clone, Default)]
pub struct VecSlots(pub Vec<Slot>);

impl Slots for VecSlots {
    fn as_slice(&self) -> &[Slot] {
        &self.0
    }
    fn as_mut_slice(&mut self) -> &mut [Slot] {
        &mut self.0
    }
    fn push(&mut self, slot: Slot) -> Result<(), CapacityError> {
        self.0.push(slot);
        Ok(())
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// A core [`Arena`] on the heap that reuses its memory: [`allocate`](Self::allocate) grows its
/// block only when a batch needs more than any before, and [`reset`](Self::reset) keeps both
/// the block and the slot table, so after warm-up a batch allocates nothing (proved by a
/// counting-allocator test).
///
/// Every other method is the core arena's, through `Deref`: `reserve`, `reserve_for`,
/// `required_bytes`, `tensor_mut`, `tensors_mut`, …
///
/// ```
/// use tessera_alloc::HeapArena;
///
/// let mut arena = HeapArena::new();
/// for batch in [4usize, 16, 8] {
///     arena.reset();
///     let x = arena.reserve::<f32>(&[batch, 3]).unwrap();
///     arena.allocate().unwrap();
///     arena.tensor_mut(&x).unwrap().fill(1.0);
///     assert_eq!(arena.tensor(&x).unwrap().iter().sum::<f32>(), 3.0 * batch as f32);
/// }
/// assert_eq!(arena.capacity_bytes(), 192); // sized by the largest batch
/// ```
#[derive(Debug)]
pub struct HeapArena {
    arena: Arena<VecSlots, HeapBlock>,
    /// The block while the arena is reserving.
    spare: HeapBlock,
}

impl Default for HeapArena {
    fn default() -> Self {
        Self::new()
    }
}

impl HeapArena {
    /// An empty arena with 32-byte alignment and no memory yet.
    pub fn new() -> Self {
        Self {
            arena: Arena::new(VecSlots::default()),
            spare: HeapBlock::new(),
        }
    }

    /// An empty arena with alignment `alignment` (a power of two).
    ///
    /// Errors: [`BadAlignment`](ArenaError::BadAlignment).
    pub fn with_alignment(alignment: usize) -> Result<Self, ArenaError> {
        Ok(Self {
            arena: Arena::with_alignment(VecSlots::default(), alignment)?,
            spare: HeapBlock::new(),
        })
    }

    /// Plans and allocates over the kept block, growing it first if this plan needs more.
    ///
    /// Errors: [`AlreadyAllocated`](ArenaError::AlreadyAllocated),
    /// [`Plan`](ArenaError::Plan).
    pub fn allocate(&mut self) -> Result<(), ArenaError> {
        if self.arena.is_allocated() {
            return Err(ArenaError::AlreadyAllocated);
        }
        let required = self.arena.required_bytes()?;
        let unaligned = self.arena.required_bytes_unaligned()?;
        // The block starts on 64 bytes: padding is only needed for wider alignments.
        let needed = if unaligned - required >= 64 {
            unaligned
        } else {
            required
        };
        self.spare.grow_to(needed);
        let block = core::mem::take(&mut self.spare);
        self.arena.allocate(block).map_err(|e| {
            self.spare = e.memory;
            e.error
        })
    }

    /// Back to reserving for the next batch, keeping the block and the slot table's capacity.
    pub fn reset(&mut self) {
        if let Some(block) = self.arena.reset() {
            self.spare = block;
        }
    }

    /// Bytes of heap memory held for tensors.
    pub fn capacity_bytes(&self) -> usize {
        self.arena.memory().map_or(self.spare.len(), Memory::len)
    }

    /// Gives the memory back (the next [`allocate`](Self::allocate) allocates again).
    pub fn shrink_to_fit(&mut self) {
        self.reset();
        self.spare.clear();
    }
}

impl Deref for HeapArena {
    type Target = Arena<VecSlots, HeapBlock>;
    fn deref(&self) -> &Self::Target {
        &self.arena
    }
}

impl DerefMut for HeapArena {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.arena
    }
}
