//! Where pooled embeddings land: one device arena holding the output rows and the kernel's
//! error record, a pinned copy of the record, and the event that says the launch is done.

use cudarc::driver::CudaEvent;
use tessera_alloc::VecSlots;
use tessera_core::arena::{Arena, TensorHandle};
use tessera_core::data::PoolError;
use tessera_core::memory::HostMemory;
use zerocopy::IntoBytes;

use crate::context::Gpu;
use crate::error::{GpuError, driver};
use crate::memory::{DeviceMemory, PinnedMemory};

/// Words of the error record: flat key index (`u64::MAX`: none), row, position, key bits.
pub(crate) const ERROR_WORDS: usize = 4;

/// The launch whose result [`PooledOutput::wait`] checks.
#[derive(Debug, Clone, Copy)]
struct Pending {
    rows: usize,
    vocab: usize,
    wide: bool,
}

/// Device output for up to `max_rows` pooled rows of `dim` floats, reused launch after
/// launch (allocated once).
#[derive(Debug)]
pub struct PooledOutput {
    pub(crate) arena: Arena<VecSlots, DeviceMemory>,
    pub(crate) rows: TensorHandle<f32>,
    pub(crate) error: TensorHandle<u64>,
    pub(crate) error_host: PinnedMemory,
    pub(crate) done: CudaEvent,
    max_rows: usize,
    dim: usize,
    pending: Option<Pending>,
}

impl PooledOutput {
    /// Room for `max_rows x dim` floats (and the error record), in one device allocation
    /// placed by `tessera-core`'s arena.
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena),
    /// [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu, max_rows: usize, dim: usize) -> Result<Self, GpuError> {
        let mut arena = Arena::new(VecSlots::default());
        let rows = arena.reserve::<f32>(&[max_rows, dim])?;
        let error = arena.reserve::<u64>(&[ERROR_WORDS])?;
        let bytes = arena.required_bytes()?;
        arena
            .allocate(DeviceMemory::new(gpu, bytes)?)
            .map_err(|e| GpuError::Arena(e.error))?;
        Ok(Self {
            arena,
            rows,
            error,
            error_host: PinnedMemory::new(gpu, ERROR_WORDS * 8)?,
            done: gpu.event()?,
            max_rows,
            dim,
            pending: None,
        })
    }

    /// Rows it can hold.
    pub fn max_rows(&self) -> usize {
        self.max_rows
    }

    /// Floats per row.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The GPU handle it was made with.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.arena.memory().map(DeviceMemory::gpu)
    }

    /// Device address of row 0.
    ///
    /// Errors: [`Arena`](GpuError::Arena) (never, once built).
    pub fn device_ptr(&self) -> Result<u64, GpuError> {
        Ok(self.arena.address(&self.rows)? as u64)
    }

    pub(crate) fn set_pending(&mut self, rows: usize, vocab: usize, wide: bool) {
        self.pending = Some(Pending { rows, vocab, wide });
    }

    /// Waits for the last launch and reports its result: the rows pooled, or the first
    /// out-of-range key in CSR order (the one the CPU reference reports). On that error the
    /// rows holding a bad key are zeros and the others hold their results.
    ///
    /// Errors: [`Pool`](GpuError::Pool) with [`PoolError::KeyOutOfRange`],
    /// [`Driver`](GpuError::Driver); `Ok(0)` if nothing was launched.
    pub fn wait(&mut self) -> Result<usize, GpuError> {
        let Some(p) = self.pending.take() else {
            return Ok(0);
        };
        driver("cuEventSynchronize", self.done.synchronize())?;
        let mut words = [0u64; ERROR_WORDS];
        words
            .as_mut_bytes()
            .copy_from_slice(&self.error_host.bytes()[..ERROR_WORDS * 8]);
        if words[0] == u64::MAX {
            return Ok(p.rows);
        }
        let key = if p.wide {
            words[3] as i64
        } else {
            i64::from(words[3] as u32)
        };
        Err(GpuError::Pool(PoolError::KeyOutOfRange {
            row: words[1] as usize,
            position: words[2] as usize,
            key,
            vocab: p.vocab,
        }))
    }

    /// Copies the first `out.len() / dim` pooled rows to `out` (after the stream's work).
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) if `out` is longer than the output,
    /// [`Driver`](GpuError::Driver).
    pub fn read(&self, out: &mut [f32]) -> Result<(), GpuError> {
        let offset = self.arena.offset(&self.rows)?;
        let memory = self
            .arena
            .memory()
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        let capacity = self.max_rows.saturating_mul(self.dim);
        if out.len() > capacity {
            return Err(GpuError::Capacity {
                what: "pooled output (floats)",
                needed: out.len(),
                available: capacity,
            });
        }
        memory.read(offset, out.as_mut_bytes())
    }
}
