//! Every raw CUDA driver call of the crate, one operation per `unsafe` block: allocation and
//! free of each memory kind, copies, memsets and kernel launches. The rest of the crate is
//! safe code over these.
//!
//! Every call runs inside [`guarded`]: cudarc looks driver symbols up on first use and panics
//! if one is missing (a driver older than the bindings), which becomes
//! [`GpuError::NoDriver`] here instead of unwinding through the caller.
//!
//! Functions that only allocate, free or probe are safe: their preconditions are met here.
//! Functions that move bytes to or from an address are `unsafe fn`: the caller promises the
//! address ranges are inside allocations it owns (a device pointer may alias host memory
//! under unified addressing, so a wrong one is host memory corruption, not only a GPU fault).

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::NonNull;

use cudarc::driver::{DriverError, result, sys};

use crate::error::{GpuError, driver};

/// Runs `f`, turning a panic inside cudarc (it panics when a driver symbol is missing, or
/// the library cannot be opened after all) into [`GpuError::NoDriver`].
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, GpuError>) -> Result<T, GpuError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let reason = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "the CUDA bindings panicked".to_owned());
            Err(GpuError::NoDriver { reason })
        }
    }
}

/// Whether the CUDA driver library can be opened (cudarc's own probe, which opens and closes it).
pub(crate) fn driver_library_present() -> bool {
    // SAFETY: opening a shared library runs its initialisers; the CUDA driver's are safe to
    // run, and the handle is closed again at once (cudarc keeps its own for the calls).
    unsafe { sys::is_culib_present() }
}

/// Whether the NVRTC library can be opened.
pub(crate) fn nvrtc_library_present() -> bool {
    // SAFETY: as for the driver: NVRTC's initialisers are safe to run.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// `bytes` of device memory (`cuMemAlloc`, 256-byte aligned) in the current context;
/// `bytes > 0`.
pub(crate) fn device_alloc(bytes: usize) -> Result<sys::CUdeviceptr, GpuError> {
    guarded(|| {
        // SAFETY: allocation has no precondition; the pointer is only ever used as an address.
        let status = unsafe { result::malloc_sync(bytes) };
        driver("cuMemAlloc", status)
    })
}

/// Frees what [`device_alloc`] or [`managed_alloc`] returned.
pub(crate) fn device_free(ptr: sys::CUdeviceptr) -> Result<(), GpuError> {
    guarded(|| {
        // SAFETY: `ptr` came from `cuMemAlloc` / `cuMemAllocManaged` and its owner frees it once,
        // in `Drop`, after the stream using it was synchronised.
        let status = unsafe { result::free_sync(ptr) };
        driver("cuMemFree", status)
    })
}

/// `bytes` of page-locked host memory (`cuMemHostAlloc`, page aligned, mapped into the
/// device's address space), zeroed so that it may be seen as `&[u8]`; `bytes > 0`.
pub(crate) fn pinned_alloc(bytes: usize) -> Result<NonNull<u8>, GpuError> {
    let ptr = guarded(|| {
        // SAFETY: allocation has no precondition; the bytes are zeroed below before use.
        let status = unsafe {
            result::malloc_host(
                bytes,
                sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP,
            )
        };
        driver("cuMemHostAlloc", status)
    })?;
    let ptr = NonNull::new(ptr.cast::<u8>()).ok_or(GpuError::Driver {
        op: "cuMemHostAlloc",
        error: DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY),
    })?;
    // SAFETY: `ptr` is the start of `bytes` writable bytes just allocated.
    unsafe { ptr.as_ptr().write_bytes(0, bytes) };
    Ok(ptr)
}

/// The device address of pinned memory [`pinned_alloc`] returned (kernels write host memory
/// through it).
pub(crate) fn pinned_device_ptr(ptr: NonNull<u8>) -> Result<sys::CUdeviceptr, GpuError> {
    guarded(|| {
        let mut device: sys::CUdeviceptr = 0;
        // SAFETY: `ptr` came from `cuMemHostAlloc` with `DEVICEMAP` and is alive; the driver
        // writes one address to `device`.
        let status = unsafe {
            sys::cuMemHostGetDevicePointer_v2(&raw mut device, ptr.as_ptr().cast::<c_void>(), 0)
        };
        driver("cuMemHostGetDevicePointer", status.result())?;
        Ok(device)
    })
}

/// Frees what [`pinned_alloc`] returned.
pub(crate) fn pinned_free(ptr: NonNull<u8>) -> Result<(), GpuError> {
    guarded(|| {
        // SAFETY: `ptr` came from `cuMemHostAlloc`; its owner frees it once, in `Drop`, after the
        // copies reading it were synchronised.
        let status = unsafe { result::free_host(ptr.as_ptr().cast::<c_void>()) };
        driver("cuMemFreeHost", status)
    })
}

/// `bytes` of managed memory (`cuMemAllocManaged`, attached globally), zeroed;
/// `bytes > 0`.
pub(crate) fn managed_alloc(bytes: usize) -> Result<sys::CUdeviceptr, GpuError> {
    let ptr = guarded(|| {
        // SAFETY: allocation has no precondition; the bytes are zeroed below before use.
        let status =
            unsafe { result::malloc_managed(bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL) };
        driver("cuMemAllocManaged", status)
    })?;
    let zeroed = guarded(|| {
        // SAFETY: `ptr` is the start of `bytes` bytes just allocated; the set is synchronous.
        let status = unsafe { result::memset_d8_sync(ptr, 0, bytes) };
        driver("cuMemsetD8", status)
    });
    if let Err(e) = zeroed {
        let _ = device_free(ptr);
        return Err(e);
    }
    Ok(ptr)
}

/// The `len` bytes at `ptr` as a slice.
///
/// # Safety
/// `ptr` is the start of `len` initialised host-accessible bytes owned by the caller, alive and
/// not written by anything else (host or device) while the slice lives.
pub(crate) unsafe fn host_bytes<'a>(ptr: NonNull<u8>, len: usize) -> &'a [u8] {
    // SAFETY: the caller's precondition.
    unsafe { std::slice::from_raw_parts(ptr.as_ptr(), len) }
}

/// The `len` bytes at `ptr` as a writable slice.
///
/// # Safety
/// As [`host_bytes`], and nothing else reads them while the slice lives.
pub(crate) unsafe fn host_bytes_mut<'a>(ptr: NonNull<u8>, len: usize) -> &'a mut [u8] {
    // SAFETY: the caller's precondition.
    unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), len) }
}

/// Enqueues a copy of `src` to device address `dst` on `stream`.
///
/// # Safety
/// `dst..dst + src.len()` is inside a device allocation the caller owns, and `src` (pinned
/// memory) stays alive and unwritten until the stream has passed the copy.
pub(crate) unsafe fn copy_to_device_async(
    dst: sys::CUdeviceptr,
    src: &[u8],
    stream: sys::CUstream,
) -> Result<(), GpuError> {
    guarded(|| {
        // SAFETY: the caller's precondition.
        let status = unsafe { result::memcpy_htod_async(dst, src, stream) };
        driver("cuMemcpyHtoDAsync", status)
    })
}

/// Copies `src` to device address `dst`, waiting for the copy.
///
/// # Safety
/// `dst..dst + src.len()` is inside a device allocation the caller owns.
pub(crate) unsafe fn copy_to_device(dst: sys::CUdeviceptr, src: &[u8]) -> Result<(), GpuError> {
    guarded(|| {
        // SAFETY: the caller's precondition.
        let status = unsafe { result::memcpy_htod_sync(dst, src) };
        driver("cuMemcpyHtoD", status)
    })
}

/// Copies from device address `src` into `dst`, waiting for the copy.
///
/// # Safety
/// `src..src + dst.len()` is inside a device allocation the caller owns.
pub(crate) unsafe fn copy_to_host(dst: &mut [u8], src: sys::CUdeviceptr) -> Result<(), GpuError> {
    guarded(|| {
        // SAFETY: the caller's precondition.
        let status = unsafe { result::memcpy_dtoh_sync(dst, src) };
        driver("cuMemcpyDtoH", status)
    })
}

/// Enqueues kernel `f` on `stream`.
///
/// # Safety
/// `params` point at values of the kernel's parameter types, in order, alive for this call;
/// every address among them is inside an allocation the caller owns, covering every index the
/// kernel reads or writes for these arguments, and stays alive until the stream passes it.
pub(crate) unsafe fn launch(
    f: sys::CUfunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    stream: sys::CUstream,
    params: &mut [*mut c_void],
) -> Result<(), GpuError> {
    guarded(|| {
        // SAFETY: the caller's precondition.
        let status = unsafe { result::launch_kernel(f, grid, block, 0, stream, params) };
        driver("cuLaunchKernel", status)
    })
}
