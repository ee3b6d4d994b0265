//! A global allocator that forwards to `System` and counts: the allocation tests read
//! [`allocations`] (calls that hand out memory: alloc, alloc_zeroed, realloc) and [`bytes`]
//! (what they asked for) before and after the code under test.
//!
//! The counters are global (cursor-set workers allocate on their own threads), so a test
//! binary that includes this holds a single test.

// Each test binary includes this file and reads one or both counters.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

/// Calls that handed out memory so far.
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::SeqCst)
}

/// Bytes those calls asked for so far.
pub fn bytes() -> usize {
    BYTES.load(Ordering::SeqCst)
}

fn count(size: usize) {
    ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
    BYTES.fetch_add(size, Ordering::SeqCst);
}

struct Counting;

// SAFETY: forwards every call to `System` unchanged, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size());
        // SAFETY: the caller's `alloc` contract (a non-zero-size layout) is `System`'s.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count(l.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` came from this allocator, that is from `System`, with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count(n);
        // SAFETY: `p` came from `System` with layout `l`; `n` is the caller's valid new size.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;
