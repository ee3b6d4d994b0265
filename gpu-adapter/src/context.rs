//! A CUDA context and the stream this crate's work runs on, created fallibly: no driver and
//! no device are typed errors, never panics.
//!
//! cudarc panics when the driver library is missing (its loader is infallible). So
//! [`Gpu::new`] first asks cudarc's own probe (`is_culib_present`, which opens and closes
//! the library with `libloading`) and returns [`GpuError::NoDriver`] if it fails; then it
//! runs every cudarc call that may load a symbol inside `catch_unwind`, so a driver too old
//! for the bindings (a missing symbol, which cudarc also panics on) is `NoDriver` too. The
//! panic message still reaches stderr through the panic hook.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, CudaStream, DriverError, sys};

use crate::error::{GpuError, driver};
use crate::ffi;

/// One device's CUDA context and a stream on it. Cheap to clone (shared handles).
#[derive(Debug, Clone)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl Gpu {
    /// The primary context of device `ordinal`, and a new stream on it.
    ///
    /// Errors: [`NoDriver`](GpuError::NoDriver) (no library, or one lacking a symbol),
    /// [`NoDevice`](GpuError::NoDevice), [`Driver`](GpuError::Driver).
    pub fn new(ordinal: usize) -> Result<Self, GpuError> {
        if !ffi::driver_library_present() {
            return Err(GpuError::NoDriver {
                reason: "the CUDA driver library (libcuda.so.1, libcuda.so, nvcuda.dll) \
                         could not be opened"
                    .to_owned(),
            });
        }
        ffi::guarded(|| {
            let count = match CudaContext::device_count() {
                Ok(n) => usize::try_from(n).unwrap_or(0),
                Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => 0,
                Err(error) => {
                    return Err(GpuError::Driver {
                        op: "cuInit",
                        error,
                    });
                }
            };
            if ordinal >= count {
                return Err(GpuError::NoDevice { ordinal, count });
            }
            let ctx = driver("cuDevicePrimaryCtxRetain", CudaContext::new(ordinal))?;
            let stream = driver("cuStreamCreate", ctx.new_stream())?;
            Ok(Self { ctx, stream })
        })
    }

    /// Device 0, or why there is none: what the GPU tests and examples call first.
    ///
    /// Errors: as [`new`](Self::new).
    pub fn first() -> Result<Self, GpuError> {
        Self::new(0)
    }

    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream all of this crate's copies and kernels for this handle run on, in order.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device's name.
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn name(&self) -> Result<String, GpuError> {
        driver("cuDeviceGetName", self.ctx.name())
    }

    /// Free and total device memory in bytes.
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn memory_info(&self) -> Result<(usize, usize), GpuError> {
        self.bind()?;
        driver("cuMemGetInfo", self.ctx.mem_get_info())
    }

    /// Waits for everything enqueued on the stream.
    ///
    /// Errors: [`Driver`](GpuError::Driver) (an earlier asynchronous failure surfaces here).
    pub fn synchronize(&self) -> Result<(), GpuError> {
        driver("cuStreamSynchronize", self.stream.synchronize())
    }

    /// Makes the context current on this thread (every driver call needs it).
    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        driver("cuCtxSetCurrent", self.ctx.bind_to_thread())
    }

    /// The raw stream handle.
    pub(crate) fn cu_stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }

    /// A new event (timing disabled: it only tells when work is done).
    pub(crate) fn event(&self) -> Result<CudaEvent, GpuError> {
        driver("cuEventCreate", self.ctx.new_event(None))
    }
}
