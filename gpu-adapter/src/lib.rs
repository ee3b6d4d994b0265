//! The CUDA side of tessera's HugeCTR data path: device, pinned and managed memory behind
//! `tessera-core`'s memory traits, a device arena, CSR batch uploads through a ring of pinned
//! staging buffers, and embedding-bag kernels checked bit for bit against the CPU reference.
//!
//! The CUDA driver and NVRTC are opened at run time (cudarc's `dynamic-loading`): the crate
//! builds with no CUDA installed, and where there is no driver or no device [`Gpu::new`]
//! returns [`GpuError::NoDriver`] / [`GpuError::NoDevice`] instead of panicking.
//!
//! - Memory: [`DeviceMemory`] (`MemoryKind::Device`, addresses only), [`PinnedMemory`]
//!   (page-locked, `HostMemory`), [`ManagedMemory`] (unified, `HostMemory` after a stream
//!   synchronisation). Each frees its allocation on drop.
//! - [`DeviceArena`]: `tessera-core`'s reserve-then-allocate arena (32-byte alignment, the
//!   lifetime planner) over one [`DeviceMemory`] allocation; handles give device addresses.
//! - [`BatchUploader`]: decode into a pinned slot, copy asynchronously, an event per slot
//!   ([`staging::StagingRing`] is the pure bookkeeping); no allocation after construction.
//! - [`SlotUploader`]: zero-copy staging: pinned [`staging::StagingSlot`]s handed out to
//!   decoding threads, filled in place, copied straight to the device, then handed out again.
//! - [`TableBatchedBag`]: many tables of `f32`, `f16`, `bf16` or int8 rowwise rows in one
//!   [`DeviceTableSet`], pooled in one launch per batch (FBGEMM's table-batched embedding),
//!   bit-equal to `tessera_core::data::TableSet::pool` by construction (host-modelled in CI;
//!   not yet run on a GPU).
//! - [`EmbeddingBag`]: sum / mean, `u32` / `i64` keys, any width, out-of-range keys an error
//!   or modulo the table — exactly `tessera_core::data::embedding_bag`'s semantics and
//!   operation order, so results are bit-equal; one kernel launch per batch, 16-byte reads
//!   where the width is a multiple of 4. On an H100 it is 2.45x to 6.52x as fast as
//!   PyTorch's `embedding_bag` (`BENCHMARKS.md`).
//!
//! ```
//! use tessera_gpu::{Gpu, GpuError};
//!
//! match Gpu::first() {
//!     Ok(gpu) => println!("running on {}", gpu.name().unwrap_or_default()),
//!     Err(e @ (GpuError::NoDriver { .. } | GpuError::NoDevice { .. })) => {
//!         println!("skipped: no CUDA driver/device ({e})")
//!     }
//!     Err(e) => panic!("{e}"),
//! }
//! ```
//!
//! All `unsafe` is in `ffi` (raw driver calls), the memory types (host slices of pinned and
//! managed memory), and the enqueueing of copies and kernels in `upload`, `slot_upload` and
//! `kernel`.

mod arena;
mod context;
mod error;
mod ffi;
pub mod kernel;
pub mod memory;
mod slot_upload;
pub mod staging;
mod upload;

pub use arena::{DeviceArena, allocate_on_device};
pub use context::Gpu;
pub use error::GpuError;
pub use kernel::{
    DeviceTable, DeviceTableSet, EmbeddingBag, LaunchPlan, PooledOutput, TableBatchedBag,
    TableSetLayout, TableShape, TbeKernel,
};
pub use memory::{DeviceMemory, ManagedMemory, PinnedMemory};
pub use slot_upload::{PinnedSlot, SlotUploader};
pub use upload::{BatchUploader, DeviceBatch, HostBatch};
