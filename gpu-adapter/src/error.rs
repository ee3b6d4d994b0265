//! What can go wrong on the GPU side: no driver or device, a driver call that failed (named),
//! a kernel that did not compile, and the host-side errors of the arena, batches and pooling.

use std::fmt;

use cudarc::driver::DriverError;
use tessera_core::arena::ArenaError;

use crate::staging::RingError;
use tessera_core::data::{BatchError, DataError, PoolError};

/// Why a GPU operation failed. Each function documents which variants it returns.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum GpuError {
    /// The CUDA driver library (`libcuda.so.1`, `nvcuda.dll`) could not be opened, or lacks
    /// a symbol the bindings need.
    NoDriver {
        /// What the loader said.
        reason: String,
    },
    /// The driver is there but has no device of this ordinal.
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// Devices the driver reports.
        count: usize,
    },
    /// The NVRTC library (`libnvrtc.so`) could not be opened, so kernels cannot be compiled.
    NoNvrtc {
        /// What the loader said.
        reason: String,
    },
    /// A CUDA driver call failed.
    Driver {
        /// The operation, such as `"cuMemAlloc"`.
        op: &'static str,
        /// The driver's error code.
        error: DriverError,
    },
    /// A kernel did not compile (the NVRTC log).
    Compile {
        /// The kernel source file.
        source: &'static str,
        /// NVRTC's log.
        log: String,
    },
    /// A size computed from the caller's arguments overflows.
    TooLarge {
        /// What was being sized.
        what: &'static str,
    },
    /// A buffer is too small.
    Capacity {
        /// Which buffer.
        what: &'static str,
        /// Elements (or bytes, as `what` says) needed.
        needed: usize,
        /// Elements (or bytes) it holds.
        available: usize,
    },
    /// A launch would exceed the device's grid limits.
    Launch {
        /// CSR rows to pool.
        rows: usize,
        /// Embedding width.
        dim: usize,
    },
    /// Buffers handed to one launch belong to another [`Gpu`](crate::Gpu) handle (another
    /// stream, so the launch would not be ordered after their copies).
    OtherStream {
        /// Which argument.
        what: &'static str,
    },
    /// The device arena refused.
    Arena(ArenaError),
    /// A batch could not be built over the staging buffers.
    Batch(BatchError),
    /// The batch source failed to decode.
    Data(DataError),
    /// The staging ring refused an operation (a bug in the uploader's sequence).
    Ring(RingError),
    /// Pooling failed: a key out of range (found by the kernel), or a table of the wrong shape.
    Pool(PoolError),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoDriver { reason } => write!(f, "no CUDA driver: {reason}"),
            Self::NoDevice { ordinal, count } => {
                write!(f, "no CUDA device {ordinal}: the driver reports {count}")
            }
            Self::NoNvrtc { reason } => write!(f, "no NVRTC library: {reason}"),
            Self::Driver { op, error } => {
                let name = error
                    .error_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| format!("{:?}", error.0));
                write!(f, "CUDA {op} failed: {name}")
            }
            Self::Compile { source, log } => write!(f, "NVRTC could not compile {source}: {log}"),
            Self::TooLarge { what } => write!(f, "{what}: size overflows"),
            Self::Capacity {
                what,
                needed,
                available,
            } => write!(f, "{what}: {needed} needed, {available} available"),
            Self::Launch { rows, dim } => write!(
                f,
                "embedding bag of {rows} rows x {dim} columns exceeds the grid limits"
            ),
            Self::OtherStream { what } => write!(
                f,
                "{what} belongs to another GPU handle (stream) than the kernels"
            ),
            Self::Arena(e) => write!(f, "device arena: {e}"),
            Self::Batch(e) => write!(f, "staging batch: {e}"),
            Self::Data(e) => write!(f, "batch source: {e}"),
            Self::Ring(e) => write!(f, "staging ring: {e}"),
            Self::Pool(e) => write!(f, "embedding bag: {e}"),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<ArenaError> for GpuError {
    fn from(e: ArenaError) -> Self {
        Self::Arena(e)
    }
}

impl From<BatchError> for GpuError {
    fn from(e: BatchError) -> Self {
        Self::Batch(e)
    }
}

impl From<DataError> for GpuError {
    fn from(e: DataError) -> Self {
        Self::Data(e)
    }
}

impl From<PoolError> for GpuError {
    fn from(e: PoolError) -> Self {
        Self::Pool(e)
    }
}

/// `result` with a failed driver call named `op`.
pub(crate) fn driver<T>(op: &'static str, result: Result<T, DriverError>) -> Result<T, GpuError> {
    result.map_err(|error| GpuError::Driver { op, error })
}
