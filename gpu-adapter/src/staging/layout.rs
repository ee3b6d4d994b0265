//! Where a CSR sample batch's buffers go in one region, planned with `tessera-core`'s
//! reserve-then-allocate arena: the same plan lays out a pinned staging slot and the device
//! buffer it is copied to, so one copy of a prefix moves a whole batch.

use tessera_alloc::VecSlots;
use tessera_core::arena::{Arena, TensorHandle};
use tessera_core::data::{Dims, Key, SampleBatch};
use tessera_core::memory::{HostMemory, Memory};
use tessera_core::tensor::Element;

use crate::error::GpuError;

/// How large the batches of one upload stream are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchShape {
    /// Labels, dense features and slots per sample.
    pub dims: Dims,
    /// Samples per batch (the batch capacity).
    pub samples: usize,
    /// Keys per batch, all slots together (the CSR value capacity).
    pub max_keys: usize,
}

impl BatchShape {
    /// A shape of `samples` samples of `dims` with at most `max_keys` keys per batch.
    pub const fn new(dims: Dims, samples: usize, max_keys: usize) -> Self {
        Self {
            dims,
            samples,
            max_keys,
        }
    }

    /// CSR rows per full batch: `samples * slot_num`.
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge).
    pub fn rows(&self) -> Result<usize, GpuError> {
        self.samples
            .checked_mul(self.dims.slot_num)
            .ok_or(GpuError::TooLarge { what: "batch rows" })
    }
}

/// The handles of one batch's three buffers in an arena: `label_dense` (`f32`, one row of
/// `label_dim + dense_dim` per sample), `row_offsets` (`K`, rows + 1) and `values` (`K`).
/// Reserved in that order, back to back (no lifetimes), so the used part of a batch is a
/// prefix of the region: everything up to the end of its last key.
#[derive(Debug, Clone, Copy)]
pub struct BatchLayout<K> {
    shape: BatchShape,
    label_dense: TensorHandle<f32>,
    row_offsets: TensorHandle<K>,
    values: TensorHandle<K>,
}

/// A batch arena: the crate's host stand-in, pinned staging and device buffers all use it.
pub type BatchArena<M> = Arena<VecSlots, M>;

impl<K: Key + Element> BatchLayout<K> {
    /// Reserves the buffers of `shape` in `arena` (empty, 32-byte alignment as HugeCTR's).
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena).
    pub fn reserve<M>(arena: &mut BatchArena<M>, shape: BatchShape) -> Result<Self, GpuError> {
        let (ld, offsets, values) = shape
            .dims
            .buffer_lens(shape.samples, shape.max_keys)
            .ok_or(GpuError::TooLarge {
                what: "batch buffers",
            })?;
        Ok(Self {
            shape,
            label_dense: arena.reserve::<f32>(&[ld])?,
            row_offsets: arena.reserve::<K>(&[offsets])?,
            values: arena.reserve::<K>(&[values])?,
        })
    }

    /// A fresh arena with the buffers of `shape` reserved and planned: its
    /// [`required_bytes`](Arena::required_bytes) is what each region must hold.
    ///
    /// Errors: as [`reserve`](Self::reserve).
    pub fn plan<M>(shape: BatchShape) -> Result<(BatchArena<M>, Self), GpuError> {
        let mut arena = Arena::new(VecSlots::default());
        let layout = Self::reserve(&mut arena, shape)?;
        arena.required_bytes()?;
        Ok((arena, layout))
    }

    /// The shape.
    pub fn shape(&self) -> BatchShape {
        self.shape
    }

    /// The label/dense buffer's handle.
    pub fn label_dense(&self) -> TensorHandle<f32> {
        self.label_dense
    }

    /// The row-offset buffer's handle.
    pub fn row_offsets(&self) -> TensorHandle<K> {
        self.row_offsets
    }

    /// The key buffer's handle.
    pub fn values(&self) -> TensorHandle<K> {
        self.values
    }

    /// Bytes from the start of the plan that a batch of `nnz` keys occupies: the prefix a
    /// copy must move (label/dense and offsets whole, then `nnz` keys). The end of the last
    /// buffer in use, not of `values`: the planner puts empty buffers at offset 0.
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) for more keys than the shape holds,
    /// [`Arena`](GpuError::Arena) if not planned.
    pub fn used_bytes<M: Memory>(
        &self,
        arena: &BatchArena<M>,
        nnz: usize,
    ) -> Result<usize, GpuError> {
        if nnz > self.shape.max_keys {
            return Err(GpuError::Capacity {
                what: "batch keys",
                needed: nnz,
                available: self.shape.max_keys,
            });
        }
        let too_large = GpuError::TooLarge {
            what: "batch buffers",
        };
        let (ld, offsets, _) = self
            .shape
            .dims
            .buffer_lens(self.shape.samples, self.shape.max_keys)
            .ok_or(too_large.clone())?;
        // Each product fits: the plan holds each buffer whole.
        let ends = [
            (arena.offset(&self.label_dense)?, ld * 4),
            (arena.offset(&self.row_offsets)?, offsets * K::WIDTH),
            (arena.offset(&self.values)?, nnz * K::WIDTH),
        ];
        Ok(ends
            .iter()
            .filter(|(_, bytes)| *bytes > 0)
            .map(|(start, bytes)| start + bytes)
            .max()
            .unwrap_or(0))
    }

    /// Bytes from the memory's first byte to the plan's start (the arena's padding): 0 for
    /// CUDA allocations, whose starts are 256-byte (device) or page (pinned) aligned.
    ///
    /// Errors: [`Arena`](GpuError::Arena) if not allocated.
    pub fn padding<M: Memory>(&self, arena: &BatchArena<M>) -> Result<usize, GpuError> {
        let base = arena
            .memory()
            .map(Memory::base_address)
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        let first = arena.address(&self.label_dense)?;
        let offset = arena.offset(&self.label_dense)?;
        Ok(first.wrapping_sub(base).wrapping_sub(offset))
    }

    /// An empty [`SampleBatch`] over the arena's buffers (host memory: a stand-in or a
    /// pinned staging slot).
    ///
    /// Errors: [`Arena`](GpuError::Arena), [`Batch`](GpuError::Batch).
    pub fn sample_batch<'a, M: HostMemory>(
        &self,
        arena: &'a mut BatchArena<M>,
    ) -> Result<SampleBatch<'a, K>, GpuError> {
        let (ld, offsets, values) = self.buffers(arena)?;
        Ok(SampleBatch::new(self.shape.dims, ld, offsets, values)?)
    }

    /// The batch of `samples` samples already written in the arena's buffers, resumed in
    /// place ([`SampleBatch::resume`] checks its offsets).
    ///
    /// Errors: [`Arena`](GpuError::Arena), [`Batch`](GpuError::Batch).
    pub fn resume_batch<'a, M: HostMemory>(
        &self,
        arena: &'a mut BatchArena<M>,
        samples: usize,
    ) -> Result<SampleBatch<'a, K>, GpuError> {
        let (ld, offsets, values) = self.buffers(arena)?;
        Ok(SampleBatch::resume(
            self.shape.dims,
            ld,
            offsets,
            values,
            samples,
        )?)
    }

    /// The three buffers as typed slices.
    #[allow(clippy::type_complexity)]
    fn buffers<'a, M: HostMemory>(
        &self,
        arena: &'a mut BatchArena<M>,
    ) -> Result<(&'a mut [f32], &'a mut [K], &'a mut [K]), GpuError> {
        let [ld, offsets, values] = arena.bags_mut([
            &self.label_dense.erase(),
            &self.row_offsets.erase(),
            &self.values.erase(),
        ])?;
        let ld = ld
            .stretch_mut::<f32>()
            .map_err(tessera_core::arena::ArenaError::from)?;
        let offsets = offsets
            .stretch_mut::<K>()
            .map_err(tessera_core::arena::ArenaError::from)?;
        let values = values
            .stretch_mut::<K>()
            .map_err(tessera_core::arena::ArenaError::from)?;
        let (ld, _) = ld.into_parts();
        let (offsets, _) = offsets.into_parts();
        let (values, _) = values.into_parts();
        Ok((ld, offsets, values))
    }
}

#[cfg(test)]
mod tests;
