//! CUDA memory as `tessera-core` [`Memory`](tessera_core::memory::Memory) regions: device
//! (`cuMemAlloc`), pinned host (`cuMemHostAlloc`) and managed (`cuMemAllocManaged`). Each
//! owns one allocation and frees it on drop; a zero-byte region allocates nothing.

mod device;
mod managed;
mod pinned;

pub use device::DeviceMemory;
pub use managed::ManagedMemory;
pub use pinned::PinnedMemory;
