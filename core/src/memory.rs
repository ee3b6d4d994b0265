//! What memory looks like to tessera: a region of bytes at an address, of some kind (host,
//! pinned, device, managed). Adapters provide it; the [arena](crate::arena) lays tensors over it.
//!
//! Two small traits, in the embedded-hal way (core defines them, adapters implement them):
//!
//! - [`Memory`]: any region — its [`MemoryKind`], its base address in its own address space and
//!   its length. This is all the arena needs to *place* buffers (offsets, alignment padding),
//!   so it also serves memory the CPU cannot touch, such as CUDA device memory.
//! - [`HostMemory`]: a [`Memory`] the CPU may read and write, which exposes its bytes as a
//!   slice. Only through it does the arena hand out typed tensors.
//!
//! Provided here: `[u8]` slices (so `&mut [u8]`, a static array's slice, a stack buffer),
//! [`AlignedBytes`] for statics that start on a 64-byte boundary, and `&mut M` for any `M`.
//! `tessera-alloc` provides a heap block; a GPU crate implements [`Memory`] for device
//! memory (`kind() == Device`, the `CUdeviceptr` as base address) and both traits for pinned and
//! managed memory. Nothing in `tessera-core` knows which it was given.
//!
//! The traits are safe to implement: the arena never trusts them for soundness. It slices
//! [`HostMemory::bytes_mut`] with checked indexing and casts with checked casts, so a wrong
//! implementation gives an error, never undefined behaviour.
//!
//! ## Every kind of memory in the crate family, and how it relates to these traits
//!
//! [`Memory`] / [`HostMemory`] describe *regions that the arena lays out*: buffers whose sizes
//! a plan knows in advance. Memory that grows element by element, or that a C caller may
//! free, has its own small interface instead, each for a reason:
//!
//! | memory | interface | why not [`Memory`] |
//! | --- | --- | --- |
//! | caller regions: `[u8]`, [`AlignedBytes`] (core); `HeapBlock` under `HeapArena` (tessera-alloc) | [`Memory`] + [`HostMemory`] | — |
//! | tessera-gpu's device memory | [`Memory`] only (`kind() == Device`) | — (the CPU may not touch it) |
//! | tessera-gpu's pinned and managed memory | [`Memory`] + [`HostMemory`] | — |
//! | sparse vectors' arrays: [`Slices`](crate::sparse::Slices), [`SlicesMut`](crate::sparse::SlicesMut), [`Inline`](crate::sparse::Inline) (core); `VecStorage` behind `OwnedVBuffer` (tessera-alloc) | [`Storage`](crate::sparse::Storage) / [`StorageMut`](crate::sparse::StorageMut) (safe traits) | two typed arrays (values, `u32` indices) that an editor resizes, not one byte region; a borrowed or inline storage *is* caller memory, just typed |
//! | LARGE strings' bytes: `RustHeap`, `CHeap` (tessera-alloc) | [`StringHeap`](crate::tstring::StringHeap) (`unsafe` trait) | `malloc` / `realloc` / `free` of single blocks, owned by each `TF_TString` and freeable by C code; strings free through it, so it is trusted for soundness |
//! | `OwnedTensor` (a `Vec`), `SharedBytes` (an `Arc`), `StringTensor`'s array of strings (a `Vec`; its LARGE strings use a [`StringHeap`](crate::tstring::StringHeap)) (tessera-alloc) | none: Rust's global allocator | owned containers, not regions handed to core |
//!
//! So the one trait for regions is [`Memory`]; the two others are narrower on purpose, and
//! nothing in `tessera-core` allocates through any of them: it only calls what an adapter or
//! the caller supplied.
//!
//! ```
//! use tessera_core::memory::{AlignedBytes, HostMemory, Memory, MemoryKind};
//!
//! let mut region = AlignedBytes::<256>::new();
//! assert_eq!(region.kind(), MemoryKind::Host);
//! assert_eq!(region.base_address() % 64, 0);
//! region.bytes_mut()[0] = 7;
//! assert_eq!(region.len(), 256);
//! ```

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// Where a region of memory lives, and so who may touch its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum MemoryKind {
    /// Ordinary CPU memory: a static array, the stack, the heap.
    Host,
    /// Page-locked host memory (`cudaHostAlloc`): CPU-addressable, and a fast DMA source.
    Pinned,
    /// Accelerator memory (`cudaMalloc`): not CPU-addressable; only addresses are meaningful.
    Device,
    /// Unified memory (`cudaMallocManaged`): addressable from both sides, migrated on demand.
    Managed,
}

impl MemoryKind {
    /// Whether the CPU may read and write this kind of memory through ordinary pointers.
    pub const fn host_accessible(self) -> bool {
        !matches!(self, Self::Device)
    }
}

/// A region of bytes that adapters provide: its kind, base address and length.
///
/// The arena reads these once, when it is allocated over the region: it pads the start up to
/// its alignment (computed from [`base_address`](Memory::base_address)) and checks that the
/// planned buffers fit in [`len`](Memory::len). It never dereferences the address.
pub trait Memory {
    /// Where the region lives.
    fn kind(&self) -> MemoryKind;
    /// Address of the first byte, in the region's own address space (a CPU pointer for host
    /// memory, a device pointer for device memory). Used for alignment only.
    fn base_address(&self) -> usize;
    /// Length of the region in bytes.
    fn len(&self) -> usize;
    /// Whether the region has no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A [`Memory`] the CPU may read and write: its bytes as a slice.
///
/// The slices must be the region described by [`Memory::base_address`] and [`Memory::len`];
/// if an implementation disagrees with itself, the arena reports an error rather than trusting
/// either.
pub trait HostMemory: Memory {
    /// The region's bytes.
    fn bytes(&self) -> &[u8];
    /// The region's bytes, writable.
    fn bytes_mut(&mut self) -> &mut [u8];
}

impl Memory for [u8] {
    fn kind(&self) -> MemoryKind {
        MemoryKind::Host
    }
    fn base_address(&self) -> usize {
        self.as_ptr() as usize
    }
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
}

impl HostMemory for [u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}

impl<M: Memory + ?Sized> Memory for &mut M {
    fn kind(&self) -> MemoryKind {
        (**self).kind()
    }
    fn base_address(&self) -> usize {
        (**self).base_address()
    }
    fn len(&self) -> usize {
        (**self).len()
    }
}

impl<M: HostMemory + ?Sized> HostMemory for &mut M {
    fn bytes(&self) -> &[u8] {
        (**self).bytes()
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        (**self).bytes_mut()
    }
}

/// `N` bytes starting on a 64-byte boundary: a static (or stack) region for an arena whose
/// [`required_bytes`](crate::arena::Arena::required_bytes) is then exactly enough.
///
/// A plain `[u8; N]` may start anywhere, so an arena over it may need up to
/// `alignment - 1` more bytes to pad its start.
///
/// ```
/// use tessera_core::memory::AlignedBytes;
///
/// static mut TENSOR_MEMORY: AlignedBytes<4096> = AlignedBytes::new();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct AlignedBytes<const N: usize>(pub [u8; N]);

impl<const N: usize> AlignedBytes<N> {
    /// `N` zero bytes.
    pub const fn new() -> Self {
        Self([0; N])
    }
}

impl<const N: usize> Default for AlignedBytes<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Memory for AlignedBytes<N> {
    fn kind(&self) -> MemoryKind {
        MemoryKind::Host
    }
    fn base_address(&self) -> usize {
        self.0.as_ptr() as usize
    }
    fn len(&self) -> usize {
        N
    }
}

impl<const N: usize> HostMemory for AlignedBytes<N> {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

/// 64 bytes on a 64-byte boundary: the unit of a heap region built from a `Vec<Chunk64>`,
/// which then starts aligned without `unsafe` (see [`chunks_as_bytes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C, align(64))]
pub struct Chunk64(pub [u8; 64]);

impl Chunk64 {
    /// 64 zero bytes.
    pub const ZERO: Self = Self([0; 64]);
}

/// The bytes of a run of [`Chunk64`]s (a checked, copy-free cast).
pub fn chunks_as_bytes(chunks: &[Chunk64]) -> &[u8] {
    chunks.as_bytes()
}

/// The bytes of a run of [`Chunk64`]s, writable (a checked, copy-free cast).
pub fn chunks_as_bytes_mut(chunks: &mut [Chunk64]) -> &mut [u8] {
    chunks.as_mut_bytes()
}

#[cfg(test)]
mod tests;
