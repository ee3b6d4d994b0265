//! Page-locked host memory: CPU-addressable and a fast DMA source (`MemoryKind::Pinned`).

use std::ptr::NonNull;

use tessera_core::memory::{HostMemory, Memory, MemoryKind};

use crate::context::Gpu;
use crate::error::GpuError;
use crate::ffi;

/// `len` zeroed bytes of page-locked host memory (`cuMemHostAlloc`, page aligned, mapped into
/// the device's address space). Freed on drop, after the stream's work (which may still be
/// copying from it) is done.
///
/// The bytes are an ordinary `&[u8]` / `&mut [u8]`; copies the crate enqueues from them
/// ([`BatchUploader`](crate::BatchUploader)) keep the staging slot out of the host's reach
/// until an event says the copy is done.
#[derive(Debug)]
pub struct PinnedMemory {
    gpu: Gpu,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the memory is owned like a `Box<[u8]>`; page-locked memory may be used from any
// thread, and the context handle is `Send + Sync`.
unsafe impl Send for PinnedMemory {}
// SAFETY: shared access only reads (`bytes`), as for `Box<[u8]>`.
unsafe impl Sync for PinnedMemory {}

impl PinnedMemory {
    /// The GPU handle it was allocated with.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// `len` zeroed bytes (nothing is allocated for 0).
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu, len: usize) -> Result<Self, GpuError> {
        gpu.bind()?;
        let ptr = if len == 0 {
            NonNull::dangling()
        } else {
            ffi::pinned_alloc(len)?
        };
        Ok(Self {
            gpu: gpu.clone(),
            ptr,
            len,
        })
    }
}

impl PinnedMemory {
    /// The address kernels use to read and write these bytes in place (over the bus, no
    /// copy); 0 when empty.
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn device_ptr(&self) -> Result<u64, GpuError> {
        if self.len == 0 {
            return Ok(0);
        }
        self.gpu.bind()?;
        ffi::pinned_device_ptr(self.ptr)
    }
}

impl Memory for PinnedMemory {
    fn kind(&self) -> MemoryKind {
        MemoryKind::Pinned
    }
    fn base_address(&self) -> usize {
        self.ptr.as_ptr() as usize
    }
    fn len(&self) -> usize {
        self.len
    }
}

impl HostMemory for PinnedMemory {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` holds `len` bytes zeroed at allocation, owned by `self` and borrowed
        // with it; the device only reads them in copies the owner waits for.
        unsafe { ffi::host_bytes(self.ptr, self.len) }
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes the borrow unique on the host.
        unsafe { ffi::host_bytes_mut(self.ptr, self.len) }
    }
}

impl Drop for PinnedMemory {
    fn drop(&mut self) {
        if self.len == 0 {
            return;
        }
        let _ = self.gpu.synchronize();
        if self.gpu.bind().is_ok() {
            let _ = ffi::pinned_free(self.ptr);
        }
    }
}
