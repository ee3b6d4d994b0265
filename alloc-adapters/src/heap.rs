//! The heaps that back LARGE strings: Rust's global allocator, and the C allocator for
//! strings that C code may free.

use alloc::alloc::{Layout, alloc, dealloc, handle_alloc_error, realloc};
use core::ptr::NonNull;

use tessera_core::tstring::StringHeap;

/// Heap used by [`HeapTString`](crate::HeapTString) and [`StringTensor`](crate::StringTensor):
/// [`CHeap`] with the `c-heap` feature, [`RustHeap`] without.
#[cfg(feature = "c-heap")]
pub type DefaultHeap = CHeap;
/// Heap used by [`HeapTString`](crate::HeapTString) and [`StringTensor`](crate::StringTensor):
/// [`CHeap`] with the `c-heap` feature, [`RustHeap`] without.
#[cfg(not(feature = "c-heap"))]
pub type DefaultHeap = RustHeap;

#[inline]
fn layout(bytes: usize) -> Option<Layout> {
    Layout::from_size_align(bytes, 1).ok()
}

#[cold]
fn oom(bytes: usize) -> ! {
    handle_alloc_error(layout(bytes).unwrap_or(Layout::new::<u8>()))
}

/// LARGE strings from Rust's global allocator (`embedded-alloc` on firmware). C code must not
/// `free` these.
#[derive(Debug, Clone, Copy, Default)]
pub struct RustHeap;

// SAFETY: forwards to the global allocator with alignment 1 and the exact sizes given, which
// is what `dealloc` / `realloc` require.
unsafe impl StringHeap for RustHeap {
    #[inline]
    fn allocate(bytes: usize) -> Option<NonNull<u8>> {
        let l = layout(bytes).filter(|l| l.size() > 0)?;
        // SAFETY: non-zero size.
        NonNull::new(unsafe { alloc(l) })
    }

    #[inline]
    unsafe fn reallocate(ptr: NonNull<u8>, old: usize, new: usize) -> Option<NonNull<u8>> {
        let l = layout(old)?;
        if new == 0 || layout(new).is_none() {
            return None;
        }
        // SAFETY: `ptr` was allocated with `l` (caller); `new` is non-zero and a valid size.
        NonNull::new(unsafe { realloc(ptr.as_ptr(), l, new) })
    }

    #[inline]
    unsafe fn release(ptr: NonNull<u8>, bytes: usize) {
        if let Some(l) = layout(bytes) {
            // SAFETY: `ptr` was allocated with this layout (caller).
            unsafe { dealloc(ptr.as_ptr(), l) }
        }
    }

    fn out_of_memory(bytes: usize) -> ! {
        oom(bytes)
    }
}

#[cfg(feature = "c-heap")]
mod c {
    use core::ffi::c_void;

    unsafe extern "C" {
        pub fn malloc(size: usize) -> *mut c_void;
        pub fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
        pub fn free(ptr: *mut c_void);
    }
}

/// LARGE strings from the C allocator, exactly as TensorFlow's `ctstring` allocates them,
/// so C code may `free` (or `TF_TString_Dealloc`) them.
#[cfg(feature = "c-heap")]
#[derive(Debug, Clone, Copy, Default)]
pub struct CHeap;

#[cfg(feature = "c-heap")]
// SAFETY: `malloc` / `realloc` / `free` honour the trait's contract; sizes are not needed.
unsafe impl StringHeap for CHeap {
    #[inline]
    fn allocate(bytes: usize) -> Option<NonNull<u8>> {
        // SAFETY: `malloc` has no preconditions.
        NonNull::new(unsafe { c::malloc(bytes) }.cast())
    }

    #[inline]
    unsafe fn reallocate(ptr: NonNull<u8>, _old: usize, new: usize) -> Option<NonNull<u8>> {
        // SAFETY: `ptr` came from `malloc` (caller).
        NonNull::new(unsafe { c::realloc(ptr.as_ptr().cast(), new) }.cast())
    }

    #[inline]
    unsafe fn release(ptr: NonNull<u8>, _bytes: usize) {
        // SAFETY: `ptr` came from `malloc` (caller).
        unsafe { c::free(ptr.as_ptr().cast()) }
    }

    fn out_of_memory(bytes: usize) -> ! {
        oom(bytes)
    }
}

#[cfg(test)]
mod tests;
