//! Device memory: addresses only, never CPU-addressable (`MemoryKind::Device`).

use tessera_core::memory::{Memory, MemoryKind};

use crate::context::Gpu;
use crate::error::GpuError;
use crate::ffi;

/// `len` bytes of device memory (`cuMemAlloc`, so 256-byte aligned: any arena alignment up to
/// that needs no padding). Freed on drop.
#[derive(Debug)]
pub struct DeviceMemory {
    gpu: Gpu,
    ptr: u64,
    len: usize,
}

impl DeviceMemory {
    /// `len` bytes of uninitialised device memory (nothing is allocated for 0).
    ///
    /// Errors: [`Driver`](GpuError::Driver) (out of memory included).
    pub fn new(gpu: &Gpu, len: usize) -> Result<Self, GpuError> {
        gpu.bind()?;
        let ptr = if len == 0 { 0 } else { ffi::device_alloc(len)? };
        Ok(Self {
            gpu: gpu.clone(),
            ptr,
            len,
        })
    }

    /// `bytes` copied to new device memory of the same length (waits for the copy).
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn from_host(gpu: &Gpu, bytes: &[u8]) -> Result<Self, GpuError> {
        let mut memory = Self::new(gpu, bytes.len())?;
        memory.write(0, bytes)?;
        Ok(memory)
    }

    /// The device address of the first byte (0 when empty).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The context it belongs to.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Checks that `offset..offset + len` is inside the region.
    fn range(&self, offset: usize, len: usize) -> Result<u64, GpuError> {
        let end = offset.checked_add(len).ok_or(GpuError::TooLarge {
            what: "device memory range",
        })?;
        if end > self.len {
            return Err(GpuError::Capacity {
                what: "device memory (bytes)",
                needed: end,
                available: self.len,
            });
        }
        Ok(self.ptr + offset as u64)
    }

    /// Copies `bytes` to `offset`, waiting for the copy (after the stream's earlier work, as
    /// the null stream orders it).
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) for a range past the end,
    /// [`Driver`](GpuError::Driver).
    pub fn write(&mut self, offset: usize, bytes: &[u8]) -> Result<(), GpuError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let dst = self.range(offset, bytes.len())?;
        self.gpu.synchronize()?;
        // SAFETY: `range` checked `dst..dst + bytes.len()` is inside this allocation.
        unsafe { ffi::copy_to_device(dst, bytes) }
    }

    /// Copies the bytes at `offset` into `out`, after waiting for the stream's work.
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) for a range past the end,
    /// [`Driver`](GpuError::Driver).
    pub fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), GpuError> {
        if out.is_empty() {
            return Ok(());
        }
        let src = self.range(offset, out.len())?;
        self.gpu.synchronize()?;
        // SAFETY: `range` checked `src..src + out.len()` is inside this allocation.
        unsafe { ffi::copy_to_host(out, src) }
    }
}

impl Memory for DeviceMemory {
    fn kind(&self) -> MemoryKind {
        MemoryKind::Device
    }
    fn base_address(&self) -> usize {
        // Device addresses fit `usize` on the 64-bit hosts CUDA supports.
        usize::try_from(self.ptr).unwrap_or(usize::MAX)
    }
    fn len(&self) -> usize {
        self.len
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        if self.ptr == 0 {
            return;
        }
        // Work still queued may use the memory: wait for it. A failure here cannot be
        // reported; freeing is still attempted (a sticky context error makes it fail too).
        let _ = self.gpu.synchronize();
        if self.gpu.bind().is_ok() {
            let _ = ffi::device_free(self.ptr);
        }
    }
}
