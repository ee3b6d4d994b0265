//! The device arena: `tessera-core`'s [`Arena`] over one [`DeviceMemory`] allocation, the same
//! API as on the host (reserve, plan, allocate once), handing out device addresses.

use tessera_alloc::VecSlots;
use tessera_core::arena::Arena;

use crate::context::Gpu;
use crate::error::GpuError;
use crate::memory::DeviceMemory;

/// An arena whose region is device memory: reserve tensors and blocks (with lifetimes if
/// they may share bytes), then [`allocate_on_device`] and read
/// [`address`](Arena::address)es. Buffers start on 32-byte boundaries (HugeCTR's).
///
/// ```
/// use tessera_gpu::DeviceArena;
/// use tessera_alloc::VecSlots;
///
/// let mut arena = DeviceArena::new(VecSlots::default());
/// let keys = arena.reserve::<u32>(&[1000]).unwrap();
/// let pooled = arena.reserve::<f32>(&[26, 16]).unwrap();
/// assert_eq!(arena.required_bytes().unwrap(), 4000 + 1664); // 4000 is a multiple of 32
/// # let _ = (keys, pooled);
/// ```
pub type DeviceArena = Arena<VecSlots, DeviceMemory>;

/// Plans `arena` and allocates exactly the bytes it needs on `gpu` (device allocations are
/// 256-byte aligned, so no padding is needed for alignments up to 256).
///
/// Errors: [`Arena`](GpuError::Arena) (plan overflow, already allocated),
/// [`Driver`](GpuError::Driver) (out of memory included).
pub fn allocate_on_device(arena: &mut DeviceArena, gpu: &Gpu) -> Result<(), GpuError> {
    let exact = arena.required_bytes()?;
    let unaligned = arena.required_bytes_unaligned()?;
    // `unaligned - exact` is the largest alignment minus one: within cuMemAlloc's 256 the
    // region's start needs no padding.
    let bytes = if unaligned - exact < 256 {
        exact
    } else {
        unaligned
    };
    let memory = DeviceMemory::new(gpu, bytes)?;
    arena.allocate(memory).map_err(|e| GpuError::Arena(e.error))
}
