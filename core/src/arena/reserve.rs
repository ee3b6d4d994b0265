//! The first phase of an [`Arena`]: reserve tensors and blocks, then plan where each goes and
//! how many bytes the region needs, before any memory exists.

use core::marker::PhantomData;

use super::handle::{BlockHandle, TensorHandle};
use super::slots::{Slot, SlotKind, Slots};
use super::{ArenaError, DEFAULT_ALIGNMENT};
use crate::plan::{Lifetime, PlanBuffer, plan_greedy, plan_sequential};
use crate::tensor::{DType, Element, Layout, TensorError};

/// HugeCTR's `GeneralBuffer2` over caller memory: reserve tensors and blocks, learn
/// [`required_bytes`](Self::required_bytes), then [`allocate`](Self::allocate) once over a
/// [`Memory`](crate::memory::Memory) region of type `M`, and turn handles into tensors.
///
/// Every buffer starts on a multiple of the arena's alignment (32 bytes unless set with
/// [`with_alignment`](Self::with_alignment)). Buffers reserved with a [`Lifetime`] are placed
/// by [`plan_greedy`], overlapping those never alive together; if none has one, buffers go back
/// to back in reservation order. `S` stores the slot table ([`Slots`]).
///
/// ```
/// use tessera_core::arena::{Arena, InlineSlots};
/// use tessera_core::memory::AlignedBytes;
///
/// let mut arena = Arena::new(InlineSlots::<8>::new());
/// let x = arena.reserve::<f32>(&[2, 3]).unwrap();
/// let n = arena.reserve::<i64>(&[4]).unwrap();
/// assert_eq!(arena.required_bytes().unwrap(), 32 + 32); // 24 bytes padded to 32, then 32
///
/// let mut memory = AlignedBytes::<64>::new();
/// arena.allocate(&mut memory).unwrap();
/// arena.tensor_mut(&x).unwrap().fill(1.5);
/// arena.tensor_mut(&n).unwrap().fill(7);
/// assert_eq!(arena.tensor(&x).unwrap().iter().sum::<f32>(), 9.0);
/// assert!(arena.reserve::<u8>(&[1]).is_err()); // reserving after allocation
/// ```
#[derive(Debug)]
pub struct Arena<S, M> {
    pub(crate) slots: S,
    pub(crate) alignment: usize,
    /// Largest alignment of any buffer: the start of the region must reach it.
    pub(crate) base_align: usize,
    /// Whether some buffer has a lifetime other than [`Lifetime::ALWAYS`].
    pub(crate) lifetimes: bool,
    /// Bytes needed, if the plan is current.
    pub(crate) planned: Option<usize>,
    pub(crate) memory: Option<M>,
    /// Bytes from the start of the memory to the aligned start of the plan.
    pub(crate) pad: usize,
}

impl<S: Slots, M> Arena<S, M> {
    /// An empty arena aligning every buffer to 32 bytes, with slot table `slots` (cleared).
    pub fn new(mut slots: S) -> Self {
        slots.clear();
        Self {
            slots,
            alignment: DEFAULT_ALIGNMENT,
            base_align: DEFAULT_ALIGNMENT,
            lifetimes: false,
            planned: None,
            memory: None,
            pad: 0,
        }
    }

    /// An empty arena aligning every buffer to `alignment` bytes (a power of two; buffers of
    /// wider elements still get their element's alignment).
    ///
    /// Errors: [`BadAlignment`](ArenaError::BadAlignment).
    pub fn with_alignment(slots: S, alignment: usize) -> Result<Self, ArenaError> {
        if !alignment.is_power_of_two() {
            return Err(ArenaError::BadAlignment { alignment });
        }
        let mut arena = Self::new(slots);
        arena.alignment = alignment;
        arena.base_align = alignment;
        Ok(arena)
    }

    /// The alignment of every buffer.
    pub fn alignment(&self) -> usize {
        self.alignment
    }

    /// Slots reserved (tensors, blocks and tensors in blocks).
    pub fn slot_count(&self) -> usize {
        self.slots.as_slice().len()
    }

    /// The slot table.
    pub fn slots(&self) -> &[Slot] {
        self.slots.as_slice()
    }

    /// Whether [`allocate`](Self::allocate) has succeeded (and no [`reset`](Self::reset) since).
    pub fn is_allocated(&self) -> bool {
        self.memory.is_some()
    }

    fn check_reserving(&self) -> Result<(), ArenaError> {
        if self.memory.is_some() {
            return Err(ArenaError::AlreadyAllocated);
        }
        Ok(())
    }

    /// Appends a slot built in place by `fill` (no large moves); returns its index.
    #[inline]
    fn push(&mut self, fill: impl FnOnce(&mut Slot)) -> Result<u32, ArenaError> {
        let index = self.slots.as_slice().len();
        let index = u32::try_from(index)
            .ok()
            .filter(|&i| i < u32::MAX - 1)
            .ok_or(ArenaError::Slots(crate::error::CapacityError {
                needed: index.saturating_add(1),
                available: u32::MAX as usize - 1,
            }))?;
        let slot = self.slots.push_empty().map_err(ArenaError::Slots)?;
        fill(slot);
        let (lifetime, align) = (slot.plan.lifetime(), slot.plan.align());
        self.planned = None;
        if lifetime != Lifetime::ALWAYS {
            self.lifetimes = true;
        }
        self.base_align = self.base_align.max(align);
        Ok(index)
    }

    fn buffer_align(&self, dtype: DType) -> usize {
        self.alignment.max(dtype.align())
    }

    /// Reserves a row-major tensor of `T` and `shape`, alive for the whole run.
    ///
    /// Errors: [`AlreadyAllocated`](ArenaError::AlreadyAllocated),
    /// [`Slots`](ArenaError::Slots), [`Tensor`](ArenaError::Tensor) (rank above
    /// [`MAX_RANK`](crate::tensor::MAX_RANK), size overflow).
    pub fn reserve<T: Element>(&mut self, shape: &[usize]) -> Result<TensorHandle<T>, ArenaError> {
        self.reserve_for(shape, Lifetime::ALWAYS)
    }

    /// Reserves a tensor alive only during `lifetime` (steps of the graph, both ends included);
    /// the planner may give its bytes to buffers never alive at the same time.
    ///
    /// Errors: as [`reserve`](Self::reserve), and [`Plan`](ArenaError::Plan) for a lifetime
    /// that ends before it starts.
    pub fn reserve_for<T: Element>(
        &mut self,
        shape: &[usize],
        lifetime: Lifetime,
    ) -> Result<TensorHandle<T>, ArenaError> {
        self.check_reserving()?;
        check_lifetime(lifetime, self.slot_count())?;
        let count = Layout::count(shape)?;
        let bytes = byte_size(count, T::DTYPE)?;
        let align = self.buffer_align(T::DTYPE);
        let slot = self.push(|s| {
            s.plan = PlanBuffer::new(bytes, align, lifetime);
            s.layout.set_row_major(shape, count);
            s.dtype = T::DTYPE;
            s.kind = SlotKind::Tensor;
        })?;
        Ok(TensorHandle {
            slot,
            elem: PhantomData,
        })
    }

    /// Starts a block of `T`, alive for the whole run: tensors reserved in it with
    /// [`reserve_in`](Self::reserve_in) are placed back to back.
    ///
    /// Errors: [`AlreadyAllocated`](ArenaError::AlreadyAllocated),
    /// [`Slots`](ArenaError::Slots).
    pub fn reserve_block<T: Element>(&mut self) -> Result<BlockHandle<T>, ArenaError> {
        self.reserve_block_for(Lifetime::ALWAYS)
    }

    /// Starts a block alive only during `lifetime`.
    ///
    /// Errors: as [`reserve_block`](Self::reserve_block), and [`Plan`](ArenaError::Plan).
    pub fn reserve_block_for<T: Element>(
        &mut self,
        lifetime: Lifetime,
    ) -> Result<BlockHandle<T>, ArenaError> {
        self.check_reserving()?;
        check_lifetime(lifetime, self.slot_count())?;
        let align = self.buffer_align(T::DTYPE);
        let slot = self.push(|s| {
            s.plan = PlanBuffer::new(0, align, lifetime);
            s.dtype = T::DTYPE;
            s.kind = SlotKind::Block;
        })?;
        Ok(BlockHandle {
            slot,
            elem: PhantomData,
        })
    }

    /// Reserves a tensor of `shape` at the end of `block` (HugeCTR's `BufferBlock2::reserve`).
    ///
    /// Errors: as [`reserve`](Self::reserve), and
    /// [`UnknownHandle`](ArenaError::UnknownHandle) for a block this arena did not make.
    pub fn reserve_in<T: Element>(
        &mut self,
        block: &BlockHandle<T>,
        shape: &[usize],
    ) -> Result<TensorHandle<T>, ArenaError> {
        self.check_reserving()?;
        let count = Layout::count(shape)?;
        let bytes = byte_size(count, T::DTYPE)?;
        let unknown = ArenaError::UnknownHandle {
            slot: block.slot as usize,
        };
        let b = self
            .slots
            .as_slice()
            .get(block.slot as usize)
            .ok_or(unknown)?;
        if b.kind != SlotKind::Block || b.dtype != T::DTYPE {
            return Err(unknown);
        }
        let (lifetime, start) = (b.plan.lifetime(), b.plan.size());
        let too_large = TensorError::TooLarge { axis: 0 };
        let total = start.checked_add(bytes).ok_or(too_large)?;
        let elements = b.layout.len().checked_add(count).ok_or(too_large)?;
        let slot = self.push(|s| {
            s.plan = PlanBuffer::new(0, 1, lifetime);
            s.layout.set_row_major(shape, count);
            s.dtype = T::DTYPE;
            s.kind = SlotKind::Member {
                block: block.slot,
                start,
            };
        })?;
        if let Some(b) = self.slots.as_mut_slice().get_mut(block.slot as usize) {
            b.plan.set_size(total);
            b.layout = Layout::flat(elements);
        }
        Ok(TensorHandle {
            slot,
            elem: PhantomData,
        })
    }

    /// Plans the buffers (if anything was reserved since the last plan) and returns the bytes
    /// the region needs, assuming it starts on the arena's alignment (as
    /// [`AlignedBytes`](crate::memory::AlignedBytes) does for alignments up to 64); for a
    /// region that may start anywhere, see
    /// [`required_bytes_unaligned`](Self::required_bytes_unaligned).
    ///
    /// Errors: [`Plan`](ArenaError::Plan) if the plan overflows `usize`.
    pub fn required_bytes(&mut self) -> Result<usize, ArenaError> {
        if let Some(bytes) = self.planned {
            return Ok(bytes);
        }
        let slots = self.slots.as_mut_slice();
        let bytes = if self.lifetimes {
            plan_greedy(slots)?
        } else {
            plan_sequential(slots)?
        };
        self.planned = Some(bytes);
        Ok(bytes)
    }

    /// [`required_bytes`](Self::required_bytes) plus the most padding a region starting
    /// anywhere could need to reach the alignment: enough for any `[u8; N]`.
    ///
    /// Errors: as [`required_bytes`](Self::required_bytes).
    pub fn required_bytes_unaligned(&mut self) -> Result<usize, ArenaError> {
        let bytes = self.required_bytes()?;
        bytes
            .checked_add(self.base_align - 1)
            .ok_or(ArenaError::Plan(crate::plan::PlanError::TooLarge {
                buffer: 0,
            }))
    }

    /// The sum of the sizes of every buffer: what the plan would need with no overlap and no
    /// padding (compare with [`required_bytes`](Self::required_bytes)).
    pub fn sum_of_sizes(&self) -> usize {
        self.slots
            .as_slice()
            .iter()
            .fold(0usize, |s, b| s.saturating_add(b.plan.size()))
    }

    /// Gives back the memory but keeps every reservation and the plan: the next
    /// [`allocate`](Self::allocate) lays the same plan over new memory at once (double
    /// buffering, memory lent per call). Handles stay valid.
    pub fn release(&mut self) -> Option<M> {
        self.pad = 0;
        self.memory.take()
    }

    /// Returns to reserving: forgets every slot (keeping the table's capacity) and gives back
    /// the memory, if allocated. Handles from before are refused from then on, unless reserved
    /// again identically.
    pub fn reset(&mut self) -> Option<M> {
        self.slots.clear();
        self.planned = None;
        self.lifetimes = false;
        self.base_align = self.alignment;
        self.pad = 0;
        self.memory.take()
    }
}

fn check_lifetime(lifetime: Lifetime, buffer: usize) -> Result<(), ArenaError> {
    if lifetime.first > lifetime.last {
        return Err(ArenaError::Plan(crate::plan::PlanError::BadLifetime {
            buffer,
            lifetime,
        }));
    }
    Ok(())
}

/// Bytes of `count` elements of `dtype`.
#[inline]
pub(crate) fn byte_size(count: usize, dtype: DType) -> Result<usize, TensorError> {
    count
        .checked_mul(dtype.size())
        .ok_or(TensorError::TooLarge { axis: 0 })
}
