//! A global allocator that counts allocations per thread, shared by the steady-state tests:
//! `allocations()` is what the calling thread has allocated so far, so the test harness's own
//! threads never show up in a measurement.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // Const-initialised and without a destructor, so touching it never allocates.
    static HERE: Cell<usize> = const { Cell::new(0) };
}

/// Allocations (including reallocations) made by the calling thread so far.
pub fn allocations() -> usize {
    HERE.with(Cell::get)
}

fn count() {
    HERE.with(|c| c.set(c.get() + 1));
}

struct Counting;

// SAFETY: forwards every call to `System`, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;
