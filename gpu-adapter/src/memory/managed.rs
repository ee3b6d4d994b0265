//! Unified memory: addressable from both sides, migrated on demand (`MemoryKind::Managed`).

use std::ptr::NonNull;

use tessera_core::memory::{HostMemory, Memory, MemoryKind};

use crate::context::Gpu;
use crate::error::GpuError;
use crate::ffi;

/// `len` zeroed bytes of managed memory (`cuMemAllocManaged`, attached globally). Freed on
/// drop.
///
/// The host sees the bytes only after the stream's work is done: [`HostMemory::bytes`] and
/// [`bytes_mut`](HostMemory::bytes_mut) synchronise the stream first, so no kernel of this
/// handle is writing them meanwhile. If that synchronisation fails they return an empty
/// slice, which the arena reports as [`MemoryChanged`](tessera_core::arena::ArenaError).
#[derive(Debug)]
pub struct ManagedMemory {
    gpu: Gpu,
    ptr: u64,
    len: usize,
}

impl ManagedMemory {
    /// `len` zeroed bytes (nothing is allocated for 0).
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu, len: usize) -> Result<Self, GpuError> {
        gpu.bind()?;
        let ptr = if len == 0 {
            0
        } else {
            ffi::managed_alloc(len)?
        };
        Ok(Self {
            gpu: gpu.clone(),
            ptr,
            len,
        })
    }

    /// The address of the first byte (the same on host and device; 0 when empty).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The host pointer, once the stream is idle; `None` if empty or synchronising failed.
    fn host_ptr(&self) -> Option<NonNull<u8>> {
        if self.len == 0 || self.gpu.synchronize().is_err() {
            return None;
        }
        NonNull::new(self.ptr as usize as *mut u8)
    }
}

impl Memory for ManagedMemory {
    fn kind(&self) -> MemoryKind {
        MemoryKind::Managed
    }
    fn base_address(&self) -> usize {
        self.ptr as usize
    }
    fn len(&self) -> usize {
        self.len
    }
}

impl HostMemory for ManagedMemory {
    fn bytes(&self) -> &[u8] {
        match self.host_ptr() {
            // SAFETY: `p` holds `len` bytes zeroed at allocation, owned by `self`, and the
            // stream that could write them is idle.
            Some(p) => unsafe { ffi::host_bytes(p, self.len) },
            None => &[],
        }
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        match self.host_ptr() {
            // SAFETY: as in `bytes`, and `&mut self` makes the borrow unique on the host.
            Some(p) => unsafe { ffi::host_bytes_mut(p, self.len) },
            None => &mut [],
        }
    }
}

impl Drop for ManagedMemory {
    fn drop(&mut self) {
        if self.ptr == 0 {
            return;
        }
        let _ = self.gpu.synchronize();
        if self.gpu.bind().is_ok() {
            let _ = ffi::device_free(self.ptr);
        }
    }
}
