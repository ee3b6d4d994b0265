//! An embedding table in device memory: `vocab` rows of `dim` floats, row-major.

use tessera_core::data::PoolError;
use zerocopy::IntoBytes;

use crate::context::Gpu;
use crate::error::GpuError;
use crate::memory::DeviceMemory;

/// `vocab x dim` floats on the device, row `k` at `k * dim`.
#[derive(Debug)]
pub struct DeviceTable {
    memory: DeviceMemory,
    vocab: usize,
    dim: usize,
}

impl DeviceTable {
    /// Copies `table` (whole rows of `dim` floats) to the device.
    ///
    /// Errors: [`Pool`](GpuError::Pool) with [`PoolError::TableLen`] if `table` is not whole
    /// rows or `dim` is 0 (as the CPU reference), [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu, table: &[f32], dim: usize) -> Result<Self, GpuError> {
        let vocab = match table.len().checked_div(dim) {
            Some(v) if v * dim == table.len() => v,
            _ => {
                return Err(GpuError::Pool(PoolError::TableLen {
                    len: table.len(),
                    dim,
                }));
            }
        };
        Ok(Self {
            memory: DeviceMemory::from_host(gpu, table.as_bytes())?,
            vocab,
            dim,
        })
    }

    /// Rows.
    pub fn vocab(&self) -> usize {
        self.vocab
    }

    /// Floats per row.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The GPU handle it was uploaded with.
    pub fn gpu(&self) -> &Gpu {
        self.memory.gpu()
    }

    /// Device address of row 0.
    pub fn device_ptr(&self) -> u64 {
        self.memory.device_ptr()
    }
}
