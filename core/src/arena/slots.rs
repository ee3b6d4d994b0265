//! The arena's table of reserved buffers, one [`Slot`] each, in storage the caller chooses:
//! inline ([`InlineSlots`]), a caller array ([`SliceSlots`]), or a `Vec` in `tessera-alloc`.

use crate::error::CapacityError;
use crate::plan::{Lifetime, PlanBuffer};
use crate::tensor::{DType, Layout};

/// What a slot reserves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotKind {
    /// A tensor of its own.
    Tensor,
    /// A block: tensors back to back; its layout is 1-D over all their elements.
    Block,
    /// A tensor inside block `block`, `start` bytes from the block's start.
    Member {
        /// Slot of the block.
        block: u32,
        /// Byte offset inside the block.
        start: usize,
    },
}

/// One reserved buffer: what the arena knows of a tensor or block before and after it is
/// placed — size, alignment, lifetime, offset, dtype and layout (224 bytes on a 64-bit target,
/// 124 on a 32-bit one). Opaque; [`Slot::EMPTY`] fills static tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub(crate) plan: PlanBuffer,
    pub(crate) layout: Layout,
    pub(crate) dtype: DType,
    pub(crate) kind: SlotKind,
}

impl Slot {
    /// An unused slot, to initialise tables: `static mut SLOTS: [Slot; 64] = [Slot::EMPTY; 64];`.
    pub const EMPTY: Self = Self {
        plan: PlanBuffer::new(0, 1, Lifetime::ALWAYS),
        layout: Layout::flat(0),
        dtype: DType::U8,
        kind: SlotKind::Tensor,
    };

    /// Bytes this slot adds to the plan (0 for tensors inside a block, which the block holds).
    pub fn size(&self) -> usize {
        self.plan.size()
    }

    /// Byte offset from the arena's aligned start, once planned (members: of their block).
    pub fn planned_offset(&self) -> usize {
        self.plan.offset()
    }

    /// Its element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Its row-major layout (for a block: 1-D over all its tensors' elements).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

impl AsRef<PlanBuffer> for Slot {
    fn as_ref(&self) -> &PlanBuffer {
        &self.plan
    }
}

impl AsMut<PlanBuffer> for Slot {
    fn as_mut(&mut self) -> &mut PlanBuffer {
        &mut self.plan
    }
}

/// Storage for an arena's slots: a growable list of [`Slot`]s. Fixed-capacity tables return
/// a [`CapacityError`] (in slots) when full.
pub trait Slots {
    /// The slots so far.
    fn as_slice(&self) -> &[Slot];
    /// The slots so far, writable.
    fn as_mut_slice(&mut self) -> &mut [Slot];
    /// Appends a slot.
    fn push(&mut self, slot: Slot) -> Result<(), CapacityError>;
    /// Appends an [`EMPTY`](Slot::EMPTY) slot and returns it, for the arena to fill in place.
    fn push_empty(&mut self) -> Result<&mut Slot, CapacityError> {
        self.push(Slot::EMPTY)?;
        let len = self.as_slice().len();
        self.as_mut_slice().last_mut().ok_or(CapacityError {
            needed: len + 1,
            available: len,
        })
    }
    /// Removes every slot, keeping the capacity.
    fn clear(&mut self);
}

/// Up to `N` slots stored inline: for an arena on the stack or in a static.
#[derive(Debug, Clone)]
pub struct InlineSlots<const N: usize> {
    slots: [Slot; N],
    len: usize,
}

impl<const N: usize> InlineSlots<N> {
    /// An empty table.
    pub const fn new() -> Self {
        Self {
            slots: [Slot::EMPTY; N],
            len: 0,
        }
    }
}

impl<const N: usize> Default for InlineSlots<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Slots for InlineSlots<N> {
    fn as_slice(&self) -> &[Slot] {
        &self.slots[..self.len]
    }
    fn as_mut_slice(&mut self) -> &mut [Slot] {
        &mut self.slots[..self.len]
    }
    fn push(&mut self, slot: Slot) -> Result<(), CapacityError> {
        match self.slots.get_mut(self.len) {
            Some(s) => {
                *s = slot;
                self.len += 1;
                Ok(())
            }
            None => Err(CapacityError {
                needed: self.len + 1,
                available: N,
            }),
        }
    }
    fn clear(&mut self) {
        self.len = 0;
    }
}

/// Slots in a caller's array (a `static`, say), used from the front.
#[derive(Debug)]
pub struct SliceSlots<'a> {
    slots: &'a mut [Slot],
    len: usize,
}

impl<'a> SliceSlots<'a> {
    /// An empty table over `slots`.
    pub fn new(slots: &'a mut [Slot]) -> Self {
        Self { slots, len: 0 }
    }
}

impl Slots for SliceSlots<'_> {
    fn as_slice(&self) -> &[Slot] {
        &self.slots[..self.len]
    }
    fn as_mut_slice(&mut self) -> &mut [Slot] {
        &mut self.slots[..self.len]
    }
    fn push(&mut self, slot: Slot) -> Result<(), CapacityError> {
        let available = self.slots.len();
        match self.slots.get_mut(self.len) {
            Some(s) => {
                *s = slot;
                self.len += 1;
                Ok(())
            }
            None => Err(CapacityError {
                needed: self.len + 1,
                available,
            }),
        }
    }
    fn clear(&mut self) {
        self.len = 0;
    }
}
