//! After warm-up, refilling a string tensor allocates nothing: counted by a global allocator
//! wrapper, on the measuring thread only (the test harness's own threads allocate too).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use tessera_alloc::{RustHeap, StringTensor};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // Const-initialised and without a destructor, so reading it never allocates.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards to `System`, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(l) }
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

/// Deterministic batches: 64 strings per batch, lengths 0..=200 varying by batch and row.
fn batch(k: usize) -> Vec<Vec<u8>> {
    (0..64)
        .map(|i| vec![b'a' + (i % 26) as u8; (i * 37 + k * 101) % 201])
        .collect()
}

#[test]
fn refilling_a_warm_string_tensor_allocates_nothing() {
    let batches: Vec<Vec<Vec<u8>>> = (0..50).map(batch).collect();
    let mut tensor: StringTensor<'static, RustHeap> = StringTensor::with_heap();
    // Warm-up: one pass over every batch sizes each slot for its longest string.
    for b in &batches {
        tensor.clear();
        for s in b {
            tensor.push(s).unwrap();
        }
    }
    let before = ALLOCS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    for _round in 0..5 {
        for b in &batches {
            tensor.clear();
            for s in b {
                tensor.push(s).unwrap();
            }
            assert!(tensor.iter().eq(b.iter().map(|s| &s[..])));
        }
    }
    COUNTING.with(|c| c.set(false));
    let after = ALLOCS.load(Ordering::Relaxed);
    assert_eq!(after - before, 0, "allocations after warm-up");
}
