//! An owned staging slot: one batch's buffers over one host region (pinned memory on a GPU
//! machine, any host memory in tests), which a decoding thread takes, fills straight from
//! its source and sends back, so the bytes the device copies are the ones the decoder wrote:
//! the host copies each byte once, from the file into the slot.

use tessera_core::data::{BatchSource, CsrView, Key, SampleBatch};
use tessera_core::memory::HostMemory;
use tessera_core::tensor::Element;

use super::layout::{BatchArena, BatchLayout, BatchShape};
use crate::error::GpuError;

/// A staging region holding at most one batch of its shape, with what it holds. `Send` when
/// its memory is, so worker threads can fill slots and hand them back.
pub struct StagingSlot<K, M> {
    arena: BatchArena<M>,
    layout: BatchLayout<K>,
    /// The slot's number in its uploader (so a filled slot finds its way home).
    id: usize,
    /// Samples and keys of the batch it holds (0 when empty).
    samples: usize,
    nnz: usize,
}

impl<K, M> std::fmt::Debug for StagingSlot<K, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagingSlot")
            .field("id", &self.id)
            .field("samples", &self.samples)
            .field("nnz", &self.nnz)
            .finish_non_exhaustive()
    }
}

impl<K: Key + Element, M: HostMemory> StagingSlot<K, M> {
    /// A slot `id` for batches of `shape` over `memory`, which must hold the plan
    /// ([`bytes_needed`](Self::bytes_needed)) after any padding its alignment needs.
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena) (the memory is
    /// too small: the arena says how many bytes it needed).
    pub fn new(memory: M, shape: BatchShape, id: usize) -> Result<Self, GpuError> {
        let (mut arena, layout) = BatchLayout::<K>::plan(shape)?;
        arena
            .allocate(memory)
            .map_err(|e| GpuError::Arena(e.error))?;
        Ok(Self {
            arena,
            layout,
            id,
            samples: 0,
            nnz: 0,
        })
    }

    /// Bytes a slot of `shape` needs (32-byte aligned memory; up to 31 more otherwise).
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena).
    pub fn bytes_needed(shape: BatchShape) -> Result<usize, GpuError> {
        let (mut arena, _) = BatchLayout::<K>::plan::<M>(shape)?;
        Ok(arena.required_bytes()?)
    }

    /// The slot's number in its uploader.
    pub fn id(&self) -> usize {
        self.id
    }

    /// Samples of the batch it holds.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Keys of the batch it holds.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// The buffer layout.
    pub fn layout(&self) -> &BatchLayout<K> {
        &self.layout
    }

    /// Empties the slot and hands `fill` an empty [`SampleBatch`] over its memory (`fill`
    /// returns `false` if it had nothing to add); the slot then holds what `fill` wrote.
    /// `Ok(false)` when it holds no sample.
    ///
    /// On an error the slot is empty.
    ///
    /// Errors: what `fill` returns, [`Arena`](GpuError::Arena), [`Batch`](GpuError::Batch).
    pub fn fill_with<F>(&mut self, fill: F) -> Result<bool, GpuError>
    where
        F: FnOnce(&mut SampleBatch<'_, K>) -> Result<bool, GpuError>,
    {
        (self.samples, self.nnz) = (0, 0);
        let mut batch = self.layout.sample_batch(&mut self.arena)?;
        if !fill(&mut batch)? || batch.samples() == 0 {
            return Ok(false);
        }
        (self.samples, self.nnz) = (batch.samples(), batch.csr().nnz());
        Ok(true)
    }

    /// Decodes the next batch of `source` straight into the slot; `Ok(false)` at its end.
    ///
    /// Errors: [`Data`](GpuError::Data) from the source, and as
    /// [`fill_with`](Self::fill_with).
    pub fn fill_from<S: BatchSource<K>>(&mut self, source: &mut S) -> Result<bool, GpuError> {
        self.fill_with(|batch| Ok(source.next_batch(batch)?.is_some()))
    }

    /// The batch it holds, resumed over its memory (to check it on the host before the
    /// upload, with no copy): its CSR is [`SampleBatch::csr`].
    ///
    /// Errors: [`Arena`](GpuError::Arena), [`Batch`](GpuError::Batch).
    pub fn batch(&mut self) -> Result<SampleBatch<'_, K>, GpuError> {
        self.layout.resume_batch(&mut self.arena, self.samples)
    }

    /// The keys' CSR of the batch it holds, read in place.
    ///
    /// Errors: as [`batch`](Self::batch), and [`Batch`](GpuError::Batch) if the offsets are
    /// not a CSR (never, for a slot filled through [`fill_with`](Self::fill_with)).
    pub fn with_csr<T>(&mut self, f: impl FnOnce(CsrView<'_, K>) -> T) -> Result<T, GpuError> {
        let batch = self.batch()?;
        Ok(f(batch.csr()))
    }

    /// The bytes a copy to the device moves: the plan's prefix that the batch occupies,
    /// from the plan's first byte (the device buffer has the same plan). They are the
    /// slot's own memory: nothing is copied to make them.
    ///
    /// Errors: [`Arena`](GpuError::Arena), [`Capacity`](GpuError::Capacity).
    pub fn staged(&self) -> Result<&[u8], GpuError> {
        let used = self.layout.used_bytes(&self.arena, self.nnz)?;
        let padding = self.layout.padding(&self.arena)?;
        let memory = self
            .arena
            .memory()
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        let end = padding.checked_add(used).ok_or(GpuError::TooLarge {
            what: "staged bytes",
        })?;
        memory.bytes().get(padding..end).ok_or(GpuError::Capacity {
            what: "staging slot (bytes)",
            needed: end,
            available: memory.len(),
        })
    }

    /// Bytes from the memory's first byte to the plan's start: 0 for memory aligned to 32
    /// bytes (pinned memory is page aligned), so the staged bytes start the memory.
    ///
    /// Errors: [`Arena`](GpuError::Arena).
    pub fn padding(&self) -> Result<usize, GpuError> {
        self.layout.padding(&self.arena)
    }

    /// The memory under the slot.
    pub fn memory(&self) -> Option<&M> {
        self.arena.memory()
    }
}

#[cfg(test)]
mod tests;
