//! Where LARGE strings get their bytes. tessera-core never allocates; it only names the
//! operations TensorFlow's C code performs (`malloc`, `realloc`, `free`) so the heap-backed
//! adapters can supply them and the same algorithms serve firmware, Rust and C callers.

use core::ptr::NonNull;

/// A malloc-like heap for LARGE string bytes (alignment 1).
///
/// # Safety
/// Implementations must return blocks valid for reads and writes of the requested size until
/// released, `reallocate` must preserve the first `min(old, new)` bytes, and `release` /
/// `reallocate` must accept exactly the blocks this heap returned, with the sizes it was
/// given. A heap must be a zero-sized marker: a `TString` stores no heap state.
pub unsafe trait StringHeap {
    /// Returns a block of `bytes` bytes, or `None` when the heap cannot provide it.
    fn allocate(bytes: usize) -> Option<NonNull<u8>>;

    /// Resizes a block from `old_bytes` to `new_bytes`, keeping its prefix; `None` leaves the
    /// old block untouched.
    ///
    /// # Safety
    /// `ptr` must come from this heap with size `old_bytes` and not have been released.
    unsafe fn reallocate(
        ptr: NonNull<u8>,
        old_bytes: usize,
        new_bytes: usize,
    ) -> Option<NonNull<u8>>;

    /// Returns a block to the heap.
    ///
    /// # Safety
    /// `ptr` must come from this heap with size `bytes` and not have been released.
    unsafe fn release(ptr: NonNull<u8>, bytes: usize);

    /// Called by infallible operations (`Clone`) when the heap refuses `bytes` bytes. Heaps
    /// backed by an allocator report it the way `alloc` does (`handle_alloc_error`).
    fn out_of_memory(bytes: usize) -> !;
}

/// The heap of a target without one: every request fails, so a `TString<NoHeap>` is only ever
/// SMALL or VIEW, and operations that would need a LARGE string return
/// [`TStringError::Alloc`](super::TStringError::Alloc) with the bytes they needed.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHeap;

// SAFETY: never hands out a block, so there is nothing to keep valid.
unsafe impl StringHeap for NoHeap {
    #[inline]
    fn allocate(_bytes: usize) -> Option<NonNull<u8>> {
        None
    }

    #[inline]
    unsafe fn reallocate(
        _ptr: NonNull<u8>,
        _old_bytes: usize,
        _new_bytes: usize,
    ) -> Option<NonNull<u8>> {
        None
    }

    #[inline]
    unsafe fn release(_ptr: NonNull<u8>, _bytes: usize) {}

    #[cold]
    fn out_of_memory(bytes: usize) -> ! {
        // Unreachable from safe code: with no heap no string is LARGE, and only cloning a
        // LARGE string allocates. Reaching it means an `unsafe` caller broke the contract of
        // `TString::from_raw_parts`.
        panic!("tessera: NoHeap asked for {bytes} bytes (a LARGE string has no heap)")
    }
}
