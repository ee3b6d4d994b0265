//! The second phase of an [`Arena`]: allocate once over a memory region, then turn handles into
//! typed tensors (host memory) or addresses (any memory, device included).

use super::error::AllocateError;
use super::handle::{BagHandle, BlockHandle, TensorHandle};
use super::reserve::byte_size;
use super::slots::{Slot, SlotKind, Slots};
use super::{Arena, ArenaError};
use crate::error::CapacityError;
use crate::memory::{HostMemory, Memory};
use crate::tensor::{
    DType, Element, Layout, TensorBag, TensorBagMut, TensorBase, TensorView, TensorViewMut,
    cast_slice, cast_slice_mut,
};

/// Builds `[X; N]` from fallible `f(i)`, stopping at the first error.
fn try_array<X, E, const N: usize>(
    mut f: impl FnMut(usize) -> Result<X, E>,
    placeholder: impl Fn() -> X,
) -> Result<[X; N], E> {
    let mut error = None;
    let out = core::array::from_fn(|i| {
        if error.is_some() {
            return placeholder();
        }
        f(i).unwrap_or_else(|e| {
            error = Some(e);
            placeholder()
        })
    });
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// What a handle asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A tensor (of its own or in a block).
    Tensor,
    /// A whole block.
    Block,
}

/// A located slot: bytes from the plan's aligned start, and its layout.
struct Located<'s> {
    start: usize,
    bytes: usize,
    layout: &'s Layout,
}

/// A tensor of a slot's `layout` over `data`, which [`Arena::locate`] sized to exactly the
/// layout's elements.
#[inline]
fn trusted<S: AsRef<[T]>, T: Element>(data: S, layout: &Layout) -> TensorBase<S, T> {
    let layout = if data.as_ref().len() == layout.len() {
        *layout
    } else {
        Layout::flat(data.as_ref().len()) // unreachable: `locate` checked the size
    };
    TensorBase::from_trusted(data, layout)
}

/// Finds `slot` in `slots`, checking it exists, holds `dtype` and is what is wanted.
#[inline]
fn locate(slots: &[Slot], slot: u32, dtype: DType, want: Want) -> Result<Located<'_>, ArenaError> {
    let unknown = ArenaError::UnknownHandle {
        slot: slot as usize,
    };
    let s = slots.get(slot as usize).ok_or(unknown)?;
    if s.dtype != dtype {
        return Err(unknown);
    }
    let start = match (s.kind, want) {
        (SlotKind::Tensor, Want::Tensor) | (SlotKind::Block, Want::Block) => s.plan.offset(),
        (SlotKind::Member { block, start }, Want::Tensor) => {
            let b = slots.get(block as usize).ok_or(unknown)?;
            b.plan.offset().checked_add(start).ok_or(unknown)?
        }
        _ => return Err(unknown),
    };
    let bytes = byte_size(s.layout.len(), dtype)?;
    Ok(Located {
        start,
        bytes,
        layout: &s.layout,
    })
}

impl<S: Slots, M: Memory> Arena<S, M> {
    /// Allocates: plans if needed, then lays the plan over `memory`, padding its start up to
    /// the arena's alignment. Reserving is over from here until [`reset`](Self::reset) (or
    /// [`release`](Self::release)).
    ///
    /// Errors (the memory comes back in [`AllocateError`]):
    /// [`AlreadyAllocated`](ArenaError::AlreadyAllocated), [`Plan`](ArenaError::Plan),
    /// [`Memory`](ArenaError::Memory) with the bytes needed (padding included).
    pub fn allocate(&mut self, memory: M) -> Result<(), AllocateError<M>> {
        if self.memory.is_some() {
            return Err(AllocateError {
                memory,
                error: ArenaError::AlreadyAllocated,
            });
        }
        let required = match self.required_bytes() {
            Ok(r) => r,
            Err(error) => return Err(AllocateError { memory, error }),
        };
        let pad = memory.base_address().wrapping_neg() & (self.base_align - 1);
        let available = memory.len();
        let needed = pad.saturating_add(required);
        if available < needed {
            return Err(AllocateError {
                memory,
                error: ArenaError::Memory(CapacityError { needed, available }),
            });
        }
        self.pad = pad;
        self.memory = Some(memory);
        Ok(())
    }

    /// The memory, if allocated.
    pub fn memory(&self) -> Option<&M> {
        self.memory.as_ref()
    }

    /// [`locate`] in this arena's table, once planned.
    #[inline]
    fn locate(&self, slot: u32, dtype: DType, want: Want) -> Result<Located<'_>, ArenaError> {
        if self.planned.is_none() {
            return Err(ArenaError::NotAllocated);
        }
        locate(self.slots.as_slice(), slot, dtype, want)
    }

    /// The row-major layout (shape) of a reserved tensor; available from reservation on.
    ///
    /// Errors: [`UnknownHandle`](ArenaError::UnknownHandle).
    pub fn layout<T: Element>(&self, handle: &TensorHandle<T>) -> Result<&Layout, ArenaError> {
        Ok(locate(self.slots.as_slice(), handle.slot, T::DTYPE, Want::Tensor)?.layout)
    }

    /// The row-major layout of a reserved tensor of run-time dtype.
    ///
    /// Errors: [`UnknownHandle`](ArenaError::UnknownHandle).
    pub fn bag_layout(&self, handle: &BagHandle) -> Result<&Layout, ArenaError> {
        Ok(locate(
            self.slots.as_slice(),
            handle.slot,
            handle.dtype,
            Want::Tensor,
        )?
        .layout)
    }

    /// Byte offset of a tensor from the aligned start of the plan. Known once planned (after
    /// [`required_bytes`](Self::required_bytes)), before any memory exists.
    ///
    /// Errors: [`NotAllocated`](ArenaError::NotAllocated) if not planned,
    /// [`UnknownHandle`](ArenaError::UnknownHandle).
    pub fn offset<T: Element>(&self, handle: &TensorHandle<T>) -> Result<usize, ArenaError> {
        Ok(self.locate(handle.slot, T::DTYPE, Want::Tensor)?.start)
    }

    /// Address of a tensor's first byte in the memory's address space (a device pointer for
    /// device memory): how a GPU adapter builds its device tensors.
    ///
    /// Errors: [`NotAllocated`](ArenaError::NotAllocated),
    /// [`UnknownHandle`](ArenaError::UnknownHandle).
    pub fn address<T: Element>(&self, handle: &TensorHandle<T>) -> Result<usize, ArenaError> {
        let start = self.locate(handle.slot, T::DTYPE, Want::Tensor)?.start;
        let memory = self.memory.as_ref().ok_or(ArenaError::NotAllocated)?;
        Ok(memory
            .base_address()
            .wrapping_add(self.pad)
            .wrapping_add(start))
    }

    /// The address of every reserved tensor and block, in slot order (a handle's
    /// [`slot`](TensorHandle::slot) indexes it): one pass over the plan with no per-handle
    /// checks, for adapters that hand a device every buffer's address at once.
    ///
    /// Errors: [`NotAllocated`](ArenaError::NotAllocated).
    ///
    /// ```
    /// use tessera_core::arena::{Arena, InlineSlots};
    ///
    /// let mut arena: Arena<InlineSlots<4>, &mut [u8]> = Arena::new(InlineSlots::new());
    /// let a = arena.reserve::<f32>(&[3]).unwrap();
    /// let b = arena.reserve::<u8>(&[5]).unwrap();
    /// let mut memory = [0u8; 128];
    /// arena.allocate(&mut memory[..]).unwrap();
    /// let all: Vec<usize> = arena.addresses().unwrap().collect();
    /// assert_eq!(all[a.slot()], arena.address(&a).unwrap());
    /// assert_eq!(all[b.slot()], arena.address(&b).unwrap());
    /// ```
    pub fn addresses(&self) -> Result<impl ExactSizeIterator<Item = usize> + '_, ArenaError> {
        if self.planned.is_none() {
            return Err(ArenaError::NotAllocated);
        }
        let memory = self.memory.as_ref().ok_or(ArenaError::NotAllocated)?;
        let base = memory.base_address().wrapping_add(self.pad);
        let slots = self.slots.as_slice();
        Ok(slots.iter().map(move |s| {
            let start = match s.kind {
                SlotKind::Member { block, start } => slots
                    .get(block as usize)
                    .map_or(0, |b| b.plan.offset())
                    .wrapping_add(start),
                SlotKind::Tensor | SlotKind::Block => s.plan.offset(),
            };
            base.wrapping_add(start)
        }))
    }

    fn allocated(&self) -> Result<&M, ArenaError> {
        let memory = self.memory.as_ref().ok_or(ArenaError::NotAllocated)?;
        if !memory.kind().host_accessible() {
            return Err(ArenaError::NotHostAccessible {
                kind: memory.kind(),
            });
        }
        Ok(memory)
    }
}

/// The bytes of `located` in `memory` (whose plan starts `pad` bytes in).
#[inline]
fn range(bytes: &[u8], pad: usize, at: &Located<'_>) -> Result<(usize, usize), ArenaError> {
    let from = pad.saturating_add(at.start);
    let to = from.saturating_add(at.bytes);
    if to > bytes.len() {
        return Err(ArenaError::MemoryChanged {
            expected: to,
            found: bytes.len(),
        });
    }
    Ok((from, to))
}

impl<S: Slots, M: HostMemory> Arena<S, M> {
    /// The slot table and the memory's bytes, writable, borrowed apart.
    #[inline]
    fn table_and_bytes(&mut self) -> Result<(&[Slot], &mut [u8], usize), ArenaError> {
        self.allocated()?;
        let Self {
            slots, memory, pad, ..
        } = self;
        let memory = memory.as_mut().ok_or(ArenaError::NotAllocated)?;
        let expected = memory.len();
        let bytes = memory.bytes_mut();
        if bytes.len() != expected {
            return Err(ArenaError::MemoryChanged {
                expected,
                found: bytes.len(),
            });
        }
        Ok((slots.as_slice(), bytes, *pad))
    }

    /// A located slot and its bytes, read-only.
    #[inline]
    fn read(&self, slot: u32, dtype: DType, want: Want) -> Result<(&[u8], &Layout), ArenaError> {
        let at = self.locate(slot, dtype, want)?;
        let bytes = self.allocated()?.bytes();
        let (from, to) = range(bytes, self.pad, &at)?;
        Ok((&bytes[from..to], at.layout))
    }

    /// A located slot's bytes, writable, and its layout.
    #[inline]
    fn write(
        &mut self,
        slot: u32,
        dtype: DType,
        want: Want,
    ) -> Result<(&mut [u8], &Layout), ArenaError> {
        if self.planned.is_none() {
            return Err(ArenaError::NotAllocated);
        }
        let (slots, bytes, pad) = self.table_and_bytes()?;
        let at = locate(slots, slot, dtype, want)?;
        let (from, to) = range(bytes, pad, &at)?;
        Ok((&mut bytes[from..to], at.layout))
    }

    /// The tensor reserved as `handle`, read-only.
    ///
    /// Errors: [`NotAllocated`](ArenaError::NotAllocated),
    /// [`NotHostAccessible`](ArenaError::NotHostAccessible),
    /// [`UnknownHandle`](ArenaError::UnknownHandle), [`Tensor`](ArenaError::Tensor) (a
    /// `bool` tensor whose bytes are not all 0 or 1),
    /// [`MemoryChanged`](ArenaError::MemoryChanged).
    pub fn tensor<T: Element>(
        &self,
        handle: &TensorHandle<T>,
    ) -> Result<TensorView<'_, T>, ArenaError> {
        let (bytes, layout) = self.read(handle.slot, T::DTYPE, Want::Tensor)?;
        Ok(trusted(cast_slice::<T>(T::DTYPE, bytes)?, layout))
    }

    /// The tensor reserved as `handle`, writable.
    ///
    /// Errors: as [`tensor`](Self::tensor).
    pub fn tensor_mut<T: Element>(
        &mut self,
        handle: &TensorHandle<T>,
    ) -> Result<TensorViewMut<'_, T>, ArenaError> {
        let (bytes, layout) = self.write(handle.slot, T::DTYPE, Want::Tensor)?;
        Ok(trusted(cast_slice_mut::<T>(T::DTYPE, bytes)?, layout))
    }

    /// Splits the memory into the writable bytes of the slots `ask` names, refusing slots that
    /// share bytes. O(N²) checks: meant for a layer's few tensors.
    #[allow(clippy::type_complexity)]
    fn split_mut<const N: usize>(
        &mut self,
        ask: [(u32, DType); N],
    ) -> Result<([&mut [u8]; N], [&Layout; N]), ArenaError> {
        if self.planned.is_none() {
            return Err(ArenaError::NotAllocated);
        }
        let (slots, bytes, pad) = self.table_and_bytes()?;
        let found = bytes.len();
        let located: [Located<'_>; N] = try_array(
            |i| {
                let at = locate(slots, ask[i].0, ask[i].1, Want::Tensor)?;
                range(bytes, pad, &at)?;
                Ok::<_, ArenaError>(at)
            },
            || Located {
                start: 0,
                bytes: 0,
                layout: &EMPTY_LAYOUT,
            },
        )?;
        for i in 0..N {
            for j in i + 1..N {
                let (a, b) = (&located[i], &located[j]);
                if a.bytes != 0
                    && b.bytes != 0
                    && a.start < b.start.saturating_add(b.bytes)
                    && b.start < a.start.saturating_add(a.bytes)
                {
                    return Err(ArenaError::Aliased {
                        first: i,
                        second: j,
                    });
                }
            }
        }
        let mut order: [usize; N] = core::array::from_fn(|i| i);
        order.sort_unstable_by_key(|&i| located[i].start);
        let mut rest = bytes;
        let mut consumed = 0usize;
        let mut pieces: [&mut [u8]; N] = core::array::from_fn(|_| <&mut [u8]>::default());
        let changed = |expected: usize| ArenaError::MemoryChanged { expected, found };
        for i in order {
            let at = &located[i];
            if at.bytes == 0 {
                continue;
            }
            let from = pad.saturating_add(at.start);
            let skip = from.checked_sub(consumed).ok_or(changed(from))?;
            let (_, tail) = rest.split_at_mut_checked(skip).ok_or(changed(from))?;
            let (piece, tail) = tail
                .split_at_mut_checked(at.bytes)
                .ok_or(changed(from.saturating_add(at.bytes)))?;
            pieces[i] = piece;
            rest = tail;
            consumed = from + at.bytes;
        }
        Ok((pieces, located.map(|at| at.layout)))
    }

    /// Several tensors of `T` at once, all writable (a layer's inputs and outputs, say).
    ///
    /// Errors: as [`tensor`](Self::tensor), and [`Aliased`](ArenaError::Aliased) if two of
    /// them share bytes (the planner overlaps buffers whose lifetimes do not meet).
    pub fn tensors_mut<T: Element, const N: usize>(
        &mut self,
        handles: [&TensorHandle<T>; N],
    ) -> Result<[TensorViewMut<'_, T>; N], ArenaError> {
        let (pieces, layouts) = self.split_mut(handles.map(|h| (h.slot, T::DTYPE)))?;
        let mut pieces = pieces.map(Some);
        try_array(
            |i| {
                let bytes = pieces[i].take().unwrap_or_default();
                Ok(trusted(cast_slice_mut::<T>(T::DTYPE, bytes)?, layouts[i]))
            },
            TensorViewMut::empty,
        )
    }

    /// The tensor reserved as `handle`, type-erased and read-only.
    ///
    /// Errors: as [`tensor`](Self::tensor).
    pub fn bag(&self, handle: &BagHandle) -> Result<TensorBag<'_>, ArenaError> {
        let (bytes, layout) = self.read(handle.slot, handle.dtype, Want::Tensor)?;
        Ok(TensorBag::with_layout(handle.dtype, *layout, bytes)?)
    }

    /// Several tensors of any types at once, type-erased and writable; stretch each with
    /// [`TensorBagMut::stretch_mut`].
    ///
    /// Errors: as [`tensors_mut`](Self::tensors_mut).
    pub fn bags_mut<const N: usize>(
        &mut self,
        handles: [&BagHandle; N],
    ) -> Result<[TensorBagMut<'_>; N], ArenaError> {
        let (pieces, layouts) = self.split_mut(handles.map(|h| (h.slot, h.dtype)))?;
        let mut pieces = pieces.map(Some);
        try_array(
            |i| {
                let bytes = pieces[i].take().unwrap_or_default();
                Ok(TensorBagMut::with_layout(
                    handles[i].dtype,
                    *layouts[i],
                    bytes,
                )?)
            },
            TensorBagMut::empty,
        )
    }

    /// All the tensors of a block as one 1-D tensor (HugeCTR's `as_tensor`), read-only.
    ///
    /// Errors: as [`tensor`](Self::tensor).
    pub fn block<T: Element>(
        &self,
        handle: &BlockHandle<T>,
    ) -> Result<TensorView<'_, T>, ArenaError> {
        let (bytes, layout) = self.read(handle.slot, T::DTYPE, Want::Block)?;
        Ok(trusted(cast_slice::<T>(T::DTYPE, bytes)?, layout))
    }

    /// All the tensors of a block as one 1-D tensor, writable.
    ///
    /// Errors: as [`tensor`](Self::tensor).
    pub fn block_mut<T: Element>(
        &mut self,
        handle: &BlockHandle<T>,
    ) -> Result<TensorViewMut<'_, T>, ArenaError> {
        let (bytes, layout) = self.write(handle.slot, T::DTYPE, Want::Block)?;
        Ok(trusted(cast_slice_mut::<T>(T::DTYPE, bytes)?, layout))
    }
}

/// Layout of placeholders.
static EMPTY_LAYOUT: Layout = Layout::flat(0);
