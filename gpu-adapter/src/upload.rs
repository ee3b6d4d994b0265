//! Uploading CSR sample batches: the host fills a pinned staging slot (decoding straight into
//! it), the copy to the slot's device buffer is enqueued on the stream, and an event tells
//! the host when the slot may be refilled. Decoding batch `i + 1` overlaps the copy and the
//! kernels of batch `i`. All buffers are allocated in [`BatchUploader::new`]; uploading
//! allocates nothing.

use std::marker::PhantomData;

use cudarc::driver::CudaEvent;
use tessera_core::data::{BatchSource, Key, SampleBatch};
use tessera_core::memory::{HostMemory, Memory};
use tessera_core::tensor::Element;
use zerocopy::IntoBytes;

use crate::context::Gpu;
use crate::error::{GpuError, driver};
use crate::ffi;
use crate::memory::{DeviceMemory, PinnedMemory};
use crate::staging::{BatchArena, BatchLayout, BatchShape, RingError, StagingRing};

/// One ring slot: a pinned staging region, the device region it is copied to (the same
/// plan), and the event recorded after the copy.
struct Slot<K> {
    staging: BatchArena<PinnedMemory>,
    device: BatchArena<DeviceMemory>,
    copied: CudaEvent,
    layout: BatchLayout<K>,
}

/// A ring of pinned staging slots and their device buffers, uploading CSR batches on the
/// [`Gpu`]'s stream.
pub struct BatchUploader<K> {
    gpu: Gpu,
    ring: StagingRing,
    slots: Vec<Slot<K>>,
    shape: BatchShape,
}

impl<K> std::fmt::Debug for BatchUploader<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchUploader")
            .field("ring", &self.ring)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

/// A batch on the device: the addresses of its buffers and its sizes. Borrowed from the
/// uploader, so the buffers cannot be overwritten (no new upload) while it is held; kernels
/// enqueued with it run before any later upload on the same stream.
#[derive(Debug, Clone, Copy)]
pub struct DeviceBatch<'u, K> {
    /// Samples in the batch.
    pub samples: usize,
    /// CSR rows (`samples * slot_num`).
    pub rows: usize,
    /// Keys in the batch.
    pub nnz: usize,
    /// Device address of the labels and dense features (`f32`, a row per sample).
    pub label_dense: u64,
    /// Device address of the `rows + 1` row offsets (`K`).
    pub row_offsets: u64,
    /// Device address of the `nnz` keys (`K`).
    pub values: u64,
    /// The upload's ticket (0, 1, 2, …).
    pub ticket: u64,
    pub(crate) label_dense_len: usize,
    pub(crate) memory: &'u DeviceMemory,
    pub(crate) keys: PhantomData<fn() -> K>,
}

/// A batch's sizes and addresses before the ring submits it.
struct Staged {
    label_dense_len: usize,
    samples: usize,
    rows: usize,
    nnz: usize,
    label_dense: u64,
    row_offsets: u64,
    values: u64,
}

impl<K: Key> DeviceBatch<'_, K> {
    /// The GPU handle (stream) its copy was enqueued on.
    pub fn gpu(&self) -> &Gpu {
        self.memory.gpu()
    }

    /// Copies the batch back from the device (after the stream's work): its label/dense
    /// rows, row offsets and keys, for checking an upload. Allocates the three vectors.
    ///
    /// Errors: [`Capacity`](GpuError::Capacity), [`Driver`](GpuError::Driver).
    pub fn read_back(&self) -> Result<HostBatch<K>, GpuError> {
        // The addresses were computed from this allocation's base by its arena.
        let base = self.memory.device_ptr();
        let at = |address: u64| address.saturating_sub(base) as usize;
        let mut ld = vec![0f32; self.label_dense_len];
        self.memory.read(at(self.label_dense), ld.as_mut_bytes())?;
        let offsets = read_keys(self.memory, at(self.row_offsets), self.rows + 1)?;
        let values = read_keys(self.memory, at(self.values), self.nnz)?;
        Ok(HostBatch {
            label_dense: ld,
            row_offsets: offsets,
            values,
        })
    }
}

/// A batch copied back to the host by [`DeviceBatch::read_back`].
#[derive(Debug, Clone, PartialEq)]
pub struct HostBatch<K> {
    /// Labels and dense features, a row per sample.
    pub label_dense: Vec<f32>,
    /// `rows + 1` row offsets.
    pub row_offsets: Vec<K>,
    /// The keys.
    pub values: Vec<K>,
}

impl<K: Key + Element> BatchUploader<K> {
    /// A ring of `depth` slots for batches of `shape`: `depth` pinned and `depth` device
    /// regions of one plan each, and `depth` events.
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) for depth 0, [`TooLarge`](GpuError::TooLarge),
    /// [`Arena`](GpuError::Arena), [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu, shape: BatchShape, depth: usize) -> Result<Self, GpuError> {
        let ring = StagingRing::new(depth).map_err(|_| GpuError::Capacity {
            what: "staging ring slots",
            needed: 1,
            available: 0,
        })?;
        let mut slots = Vec::with_capacity(depth);
        for _ in 0..depth {
            let (mut staging, layout) = BatchLayout::<K>::plan(shape)?;
            let (mut device, _) = BatchLayout::<K>::plan(shape)?;
            // Pinned memory is page aligned and device memory 256-byte aligned: the plan's
            // 32-byte alignment needs no padding, so both regions have the same offsets.
            let bytes = staging.required_bytes()?;
            staging
                .allocate(PinnedMemory::new(gpu, bytes)?)
                .map_err(|e| GpuError::Arena(e.error))?;
            device
                .allocate(DeviceMemory::new(gpu, bytes)?)
                .map_err(|e| GpuError::Arena(e.error))?;
            if layout.padding(&staging)? != 0 || layout.padding(&device)? != 0 {
                return Err(GpuError::Arena(
                    tessera_core::arena::ArenaError::BadAlignment {
                        alignment: staging.alignment(),
                    },
                ));
            }
            slots.push(Slot {
                staging,
                device,
                copied: gpu.event()?,
                layout,
            });
        }
        Ok(Self {
            gpu: gpu.clone(),
            ring,
            slots,
            shape,
        })
    }

    /// The batch shape.
    pub fn shape(&self) -> BatchShape {
        self.shape
    }

    /// The ring's bookkeeping (which slots are in flight).
    pub fn ring(&self) -> &StagingRing {
        &self.ring
    }

    /// The GPU it uploads to.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// A free slot: the next one, after waiting for its previous copy if still in flight.
    fn acquire(&mut self) -> Result<usize, GpuError> {
        loop {
            match self.ring.acquire() {
                Ok(slot) => return Ok(slot),
                Err(RingError::Busy { slot, .. }) => {
                    driver("cuEventSynchronize", self.slots[slot].copied.synchronize())?;
                    self.ring.complete(slot).map_err(ring_bug)?;
                }
                Err(e) => return Err(ring_bug(e)),
            }
        }
    }

    /// Fills the next staging slot with `fill` (given an empty [`SampleBatch`] over pinned
    /// memory; it returns `false` if it had nothing to add) and uploads it. `Ok(None)` when
    /// `fill` returned `false` or added no sample.
    ///
    /// On any error the slot is given back unused; earlier uploads are unaffected.
    ///
    /// Errors: what `fill` returns, [`Driver`](GpuError::Driver), [`Arena`](GpuError::Arena).
    pub fn upload_with<F>(&mut self, fill: F) -> Result<Option<DeviceBatch<'_, K>>, GpuError>
    where
        F: FnOnce(&mut SampleBatch<'_, K>) -> Result<bool, GpuError>,
    {
        let index = self.acquire()?;
        let staged = match self.stage_and_copy(index, fill) {
            Ok(Some(staged)) => staged,
            Ok(None) => {
                self.ring.abandon(index).map_err(ring_bug)?;
                return Ok(None);
            }
            Err(e) => {
                // The copy may have been enqueued before the failure: wait for the stream
                // before the host may refill the slot (best effort: the error is the news).
                let _ = self.gpu.synchronize();
                self.ring.abandon(index).map_err(ring_bug)?;
                return Err(e);
            }
        };
        let ticket = self.ring.submit(index).map_err(ring_bug)?;
        let memory = self.slots[index]
            .device
            .memory()
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        Ok(Some(DeviceBatch {
            samples: staged.samples,
            rows: staged.rows,
            nnz: staged.nnz,
            label_dense: staged.label_dense,
            row_offsets: staged.row_offsets,
            values: staged.values,
            ticket,
            label_dense_len: staged.label_dense_len,
            memory,
            keys: PhantomData,
        }))
    }

    /// Decodes the next batch of `source` into a staging slot and uploads it; `Ok(None)` at
    /// the end of the source.
    ///
    /// Errors: [`Data`](GpuError::Data) from the source, and as
    /// [`upload_with`](Self::upload_with).
    pub fn upload_next<S: BatchSource<K>>(
        &mut self,
        source: &mut S,
    ) -> Result<Option<DeviceBatch<'_, K>>, GpuError> {
        self.upload_with(|batch| Ok(source.next_batch(batch)?.is_some()))
    }

    fn stage_and_copy<F>(&mut self, index: usize, fill: F) -> Result<Option<Staged>, GpuError>
    where
        F: FnOnce(&mut SampleBatch<'_, K>) -> Result<bool, GpuError>,
    {
        let slot = &mut self.slots[index];
        let layout = slot.layout;
        let (samples, nnz) = {
            let mut batch = layout.sample_batch(&mut slot.staging)?;
            if !fill(&mut batch)? || batch.samples() == 0 {
                return Ok(None);
            }
            (batch.samples(), batch.csr().nnz())
        };
        let rows = samples * self.shape.dims.slot_num;
        let used = layout.used_bytes(&slot.staging, nnz)?;
        let memory = slot
            .staging
            .memory()
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        let device = slot
            .device
            .memory()
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        let src = memory.bytes().get(..used).ok_or(GpuError::Capacity {
            what: "staging slot (bytes)",
            needed: used,
            available: memory.len(),
        })?;
        if used > device.len() {
            return Err(GpuError::Capacity {
                what: "device batch (bytes)",
                needed: used,
                available: device.len(),
            });
        }
        self.gpu.bind()?;
        if used > 0 {
            // SAFETY: `used <= device.len()` (checked above), so the range is inside the
            // slot's device allocation; `src` is the slot's pinned memory, which the ring
            // keeps out of the host's hands until `copied` (recorded next) completes, and
            // which `Drop` frees only after synchronising the stream.
            unsafe { ffi::copy_to_device_async(device.device_ptr(), src, self.gpu.cu_stream()) }?;
        }
        driver("cuEventRecord", slot.copied.record(self.gpu.stream()))?;
        let address = |a: usize| a as u64;
        Ok(Some(Staged {
            label_dense_len: samples * self.shape.dims.label_dense(),
            samples,
            rows,
            nnz,
            label_dense: address(slot.device.address(&layout.label_dense())?),
            row_offsets: address(slot.device.address(&layout.row_offsets())?),
            values: address(slot.device.address(&layout.values())?),
        }))
    }

    /// Waits for every copy in flight; all slots are free afterwards.
    ///
    /// Errors: [`Driver`](GpuError::Driver) (an earlier asynchronous failure surfaces here).
    pub fn synchronize(&mut self) -> Result<(), GpuError> {
        self.gpu.synchronize()?;
        self.ring.complete_all();
        Ok(())
    }
}

impl<K> Drop for BatchUploader<K> {
    fn drop(&mut self) {
        // Copies may still read the pinned slots: wait before the memories free themselves.
        let _ = self.gpu.synchronize();
    }
}

/// `n` keys read from device memory at `offset` (little-endian, as the host wrote them).
fn read_keys<K: Key>(memory: &DeviceMemory, offset: usize, n: usize) -> Result<Vec<K>, GpuError> {
    let bytes = n
        .checked_mul(K::WIDTH)
        .ok_or(GpuError::TooLarge { what: "keys" })?;
    let mut raw = vec![0u8; bytes];
    memory.read(offset, &mut raw)?;
    Ok(raw.chunks_exact(K::WIDTH).map(K::from_le_slice).collect())
}

/// The ring refused an operation the uploader's own sequence makes valid.
fn ring_bug(e: RingError) -> GpuError {
    GpuError::Ring(e)
}
