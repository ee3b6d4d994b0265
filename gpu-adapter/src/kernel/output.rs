//! Where pooled embeddings land: one device arena holding the output rows and the kernel's
//! state between launches, the pinned error record the kernel writes in place, and the event
//! that says the launch is done.

use cudarc::driver::CudaEvent;
use tessera_alloc::VecSlots;
use tessera_core::arena::{Arena, TensorHandle};
use tessera_core::data::PoolError;
use tessera_core::memory::HostMemory;
use zerocopy::IntoBytes;

use crate::context::Gpu;
use crate::error::{GpuError, driver};
use crate::memory::{DeviceMemory, PinnedMemory};

/// Words of the error record: flat key index (`u64::MAX`: none), row, position, key bits,
/// and (table-batched kernels only) the rows of the bad key's table.
pub(crate) const RECORD_WORDS: usize = 5;
/// Words of the kernel's device state: the smallest bad flat key index (`u64::MAX`: none),
/// and the blocks finished. The kernel's last block resets it to [`STATE_IDLE`].
pub(crate) const STATE_WORDS: usize = 2;
/// The state between launches.
const STATE_IDLE: [u64; STATE_WORDS] = [u64::MAX, 0];

/// The launch whose result [`PooledOutput::wait`] checks.
#[derive(Debug, Clone, Copy)]
struct Pending {
    rows: usize,
    /// The table's rows; `None`: the kernel records them (one table per slot).
    vocab: Option<usize>,
    wide: bool,
}

/// Device output for up to `max_rows` pooled rows of `dim` floats, reused launch after
/// launch (allocated once).
#[derive(Debug)]
pub struct PooledOutput {
    pub(crate) arena: Arena<VecSlots, DeviceMemory>,
    pub(crate) rows: TensorHandle<f32>,
    pub(crate) state: TensorHandle<u64>,
    /// Page-locked, mapped into the device: the kernel writes the error record here.
    pub(crate) record: PinnedMemory,
    /// The record's device address.
    pub(crate) record_at: u64,
    pub(crate) done: CudaEvent,
    max_rows: usize,
    dim: usize,
    pending: Option<Pending>,
}

impl PooledOutput {
    /// Room for `max_rows x dim` floats (and the kernel's state), in one device allocation
    /// placed by `tessera-core`'s arena, and the pinned error record.
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena),
    /// [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu, max_rows: usize, dim: usize) -> Result<Self, GpuError> {
        let mut arena = Arena::new(VecSlots::default());
        let rows = arena.reserve::<f32>(&[max_rows, dim])?;
        let state = arena.reserve::<u64>(&[STATE_WORDS])?;
        let bytes = arena.required_bytes()?;
        let mut memory = DeviceMemory::new(gpu, bytes)?;
        // Device memory is 256-byte aligned: the plan's offsets are the memory's.
        memory.write(arena.offset(&state)?, STATE_IDLE.as_bytes())?;
        arena
            .allocate(memory)
            .map_err(|e| GpuError::Arena(e.error))?;
        let record = PinnedMemory::new(gpu, RECORD_WORDS * 8)?;
        let record_at = record.device_ptr()?;
        Ok(Self {
            arena,
            rows,
            state,
            record,
            record_at,
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

    /// Readies the record for a launch: waits for the previous launch (whose result is
    /// dropped unread) so that its kernel no longer writes the record, then marks it "no
    /// error".
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub(crate) fn clear_record(&mut self) -> Result<(), GpuError> {
        if self.pending.take().is_some() {
            driver("cuEventSynchronize", self.done.synchronize())?;
        }
        self.record.bytes_mut()[..8].copy_from_slice(&u64::MAX.to_ne_bytes());
        Ok(())
    }

    /// A launch was enqueued: `rows` pooled rows (samples, for table-batched launches) over
    /// a table of `vocab` rows (`None`: the kernel records its bad key's table's rows).
    pub(crate) fn set_pending(&mut self, rows: usize, vocab: Option<usize>, wide: bool) {
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
        let mut words = [0u64; RECORD_WORDS];
        words
            .as_mut_bytes()
            .copy_from_slice(&self.record.bytes()[..RECORD_WORDS * 8]);
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
            vocab: p.vocab.unwrap_or(words[4] as usize),
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
