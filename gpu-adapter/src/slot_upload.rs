//! Zero-copy uploads: the uploader owns a set of pinned [`StagingSlot`]s and hands them out
//! (to decoding threads, say), takes them back filled, and copies each straight from the
//! slot to the next device buffer; the slot comes home once its copy's event fired. The
//! host writes every byte once (the decode) and copies none; [`BatchUploader`]
//! (crate::BatchUploader) instead fills its ring from a [`BatchSource`]
//! (tessera_core::data::BatchSource) on the calling thread, which costs a host copy where
//! that source is a cursor set.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::CudaEvent;
use tessera_core::data::Key;
use tessera_core::memory::Memory;
use tessera_core::tensor::Element;

use crate::context::Gpu;
use crate::error::{GpuError, driver};
use crate::ffi;
use crate::memory::{DeviceMemory, PinnedMemory};
use crate::staging::{BatchArena, BatchLayout, BatchShape, StagingSlot};
use crate::upload::DeviceBatch;

/// A pinned staging slot of a [`SlotUploader`].
pub type PinnedSlot<K> = StagingSlot<K, PinnedMemory>;

/// Hands out pinned staging slots and uploads them once filled, with no host copy.
pub struct SlotUploader<K> {
    gpu: Gpu,
    shape: BatchShape,
    /// Slots the host may fill, ready to hand out.
    free: Vec<PinnedSlot<K>>,
    /// Slots a copy reads, oldest first, with the event recorded after their copy.
    in_flight: VecDeque<PinnedSlot<K>>,
    /// One event per slot id.
    events: Vec<CudaEvent>,
    /// The device ring the slots are copied into.
    device: Vec<(BatchArena<DeviceMemory>, BatchLayout<K>)>,
    next_device: usize,
    ticket: u64,
    slots: usize,
}

impl<K> std::fmt::Debug for SlotUploader<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlotUploader")
            .field("shape", &self.shape)
            .field("free", &self.free.len())
            .field("in_flight", &self.in_flight.len())
            .field("device", &self.device.len())
            .finish_non_exhaustive()
    }
}

impl<K: Key + Element> SlotUploader<K> {
    /// `slots` pinned staging slots and `device_depth` device buffers for batches of
    /// `shape`, and an event per slot. Everything is allocated here; uploading allocates
    /// nothing (the in-flight queue has room for every slot).
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) for no slots or no device buffers,
    /// [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena),
    /// [`Driver`](GpuError::Driver).
    pub fn new(
        gpu: &Gpu,
        shape: BatchShape,
        slots: usize,
        device_depth: usize,
    ) -> Result<Self, GpuError> {
        for (what, n) in [
            ("staging slots", slots),
            ("device batch buffers", device_depth),
        ] {
            if n == 0 {
                return Err(GpuError::Capacity {
                    what,
                    needed: 1,
                    available: 0,
                });
            }
        }
        let bytes = StagingSlot::<K, PinnedMemory>::bytes_needed(shape)?;
        let mut free = Vec::with_capacity(slots);
        let mut events = Vec::with_capacity(slots);
        for id in 0..slots {
            let slot = StagingSlot::new(PinnedMemory::new(gpu, bytes)?, shape, id)?;
            // Pinned memory is page aligned: the plan starts at its first byte, as on the
            // device, so one copy of the staged prefix moves the batch.
            if slot.padding()? != 0 {
                return Err(tessera_core::arena::ArenaError::BadAlignment { alignment: 32 }.into());
            }
            free.push(slot);
            events.push(gpu.event()?);
        }
        let mut device = Vec::with_capacity(device_depth);
        for _ in 0..device_depth {
            let (mut arena, layout) = BatchLayout::<K>::plan(shape)?;
            arena
                .allocate(DeviceMemory::new(gpu, bytes)?)
                .map_err(|e| GpuError::Arena(e.error))?;
            if layout.padding(&arena)? != 0 {
                return Err(tessera_core::arena::ArenaError::BadAlignment { alignment: 32 }.into());
            }
            device.push((arena, layout));
        }
        Ok(Self {
            gpu: gpu.clone(),
            shape,
            free,
            in_flight: VecDeque::with_capacity(slots),
            events,
            device,
            next_device: 0,
            ticket: 0,
            slots,
        })
    }

    /// The batch shape.
    pub fn shape(&self) -> BatchShape {
        self.shape
    }

    /// Slots ready to hand out now (without waiting).
    pub fn free_slots(&self) -> usize {
        self.free.len()
    }

    /// Slots whose copy may still be running.
    pub fn slots_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Moves every slot whose copy completed to the free list (no waiting).
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    fn reclaim(&mut self) -> Result<(), GpuError> {
        while let Some(slot) = self.in_flight.front() {
            let done = driver("cuEventQuery", self.events[slot.id()].try_is_complete())?;
            if !done {
                break;
            }
            if let Some(slot) = self.in_flight.pop_front() {
                self.free.push(slot);
            }
        }
        Ok(())
    }

    /// A slot to fill, if one is free now (slots whose copies completed are reclaimed
    /// first); `None` if every slot is handed out or still being copied from.
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn try_take(&mut self) -> Result<Option<PinnedSlot<K>>, GpuError> {
        self.reclaim()?;
        Ok(self.free.pop())
    }

    /// A slot to fill, waiting for the oldest copy if none is free.
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) if every slot is handed out (none will come
    /// back by waiting), [`Driver`](GpuError::Driver).
    pub fn take(&mut self) -> Result<PinnedSlot<K>, GpuError> {
        if let Some(slot) = self.try_take()? {
            return Ok(slot);
        }
        let Some(oldest) = self.in_flight.pop_front() else {
            return Err(GpuError::Capacity {
                what: "staging slots (all handed out)",
                needed: 1,
                available: 0,
            });
        };
        let waited = driver("cuEventSynchronize", self.events[oldest.id()].synchronize());
        if let Err(e) = waited {
            self.in_flight.push_front(oldest);
            return Err(e);
        }
        Ok(oldest)
    }

    /// Takes back a slot that was not uploaded (its contents are dropped).
    ///
    /// Errors: [`OtherStream`](GpuError::OtherStream) if it is not one of this uploader's
    /// slots (its memory was made with another [`Gpu`] handle, or its id is past the slots).
    pub fn give_back(&mut self, slot: PinnedSlot<K>) -> Result<(), GpuError> {
        self.check_ours(&slot)?;
        self.free.push(slot);
        Ok(())
    }

    fn check_ours(&self, slot: &PinnedSlot<K>) -> Result<(), GpuError> {
        let same = slot
            .memory()
            .is_some_and(|m| Arc::ptr_eq(m.gpu().stream(), self.gpu.stream()));
        if !same || slot.id() >= self.slots {
            return Err(GpuError::OtherStream {
                what: "staging slot",
            });
        }
        Ok(())
    }

    /// Enqueues the copy of the batch `slot` holds, straight from the slot, to the next
    /// device buffer, and keeps the slot until the copy's event fires ([`take`](Self::take)
    /// hands it out again after). `Ok(None)` for an empty slot, which goes back to the free
    /// list. The device batch is borrowed from the uploader, so its buffer is not reused
    /// while it is held; kernels enqueued with it run before any later copy on the stream.
    ///
    /// On an error the slot is kept (free again) after the stream is synchronised.
    ///
    /// Errors: [`OtherStream`](GpuError::OtherStream), [`Capacity`](GpuError::Capacity),
    /// [`Arena`](GpuError::Arena), [`Driver`](GpuError::Driver).
    pub fn upload(&mut self, slot: PinnedSlot<K>) -> Result<Option<DeviceBatch<'_, K>>, GpuError> {
        self.check_ours(&slot)?;
        if slot.samples() == 0 {
            self.free.push(slot);
            return Ok(None);
        }
        let d = self.next_device;
        let staged = match self.enqueue(&slot, d) {
            Ok(staged) => staged,
            Err(e) => {
                // The copy may have been enqueued: nothing may refill the slot before it ends.
                let _ = self.gpu.synchronize();
                self.free.push(slot);
                return Err(e);
            }
        };
        self.in_flight.push_back(slot);
        self.next_device = (d + 1) % self.device.len();
        let ticket = self.ticket;
        self.ticket += 1;
        let (arena, layout) = &self.device[d];
        let memory = arena
            .memory()
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        let address = |a: usize| a as u64;
        Ok(Some(DeviceBatch {
            samples: staged.0,
            rows: staged.0 * self.shape.dims.slot_num,
            nnz: staged.1,
            label_dense: address(arena.address(&layout.label_dense())?),
            row_offsets: address(arena.address(&layout.row_offsets())?),
            values: address(arena.address(&layout.values())?),
            ticket,
            label_dense_len: staged.0 * self.shape.dims.label_dense(),
            memory,
            keys: PhantomData,
        }))
    }

    /// Enqueues the copy of `slot` to device buffer `d` and records its event; returns
    /// (samples, keys).
    fn enqueue(&self, slot: &PinnedSlot<K>, d: usize) -> Result<(usize, usize), GpuError> {
        let src = slot.staged()?;
        let device = self.device[d]
            .0
            .memory()
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        if src.len() > device.len() {
            return Err(GpuError::Capacity {
                what: "device batch (bytes)",
                needed: src.len(),
                available: device.len(),
            });
        }
        self.gpu.bind()?;
        // SAFETY: `src.len() <= device.len()` (checked above), so the range is inside the
        // device buffer; `src` is the slot's pinned memory, which the uploader keeps (in
        // `in_flight`) until the event recorded next completes, and `Drop` synchronises the
        // stream before any slot is freed.
        unsafe { ffi::copy_to_device_async(device.device_ptr(), src, self.gpu.cu_stream()) }?;
        driver(
            "cuEventRecord",
            self.events[slot.id()].record(self.gpu.stream()),
        )?;
        Ok((slot.samples(), slot.nnz()))
    }

    /// Waits for every copy in flight; their slots are free afterwards.
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn synchronize(&mut self) -> Result<(), GpuError> {
        self.gpu.synchronize()?;
        self.free.extend(self.in_flight.drain(..));
        Ok(())
    }
}

impl<K> Drop for SlotUploader<K> {
    fn drop(&mut self) {
        // Copies may still read the slots in flight: wait before their memory frees itself.
        let _ = self.gpu.synchronize();
    }
}
