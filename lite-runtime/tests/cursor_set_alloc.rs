//! Once warm, a cursor set allocates nothing, on the consumer's thread or the workers'.
//!
//! The counter is global (every thread's allocations, unlike the per-thread counter of
//! `tessera-alloc`'s steady-state tests), since the workers run on their own threads; so this
//! binary holds a single test, and the harness has nothing else running while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use tessera_core::cursor::RowCursor;
use tessera_core::data::{Check, Dims, NormConfig, NormEncoder, NormSlice, SampleCursor};
use tessera_lite::cursor_set::{BatchBuffers, CursorSet, CursorSetConfig};

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: forwards every call to `System`, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const SAMPLES: u32 = 20_000;
const BATCH: usize = 64;
const DIMS: Dims = Dims::new(1, 2, 3);

/// A Norm file of `SAMPLES` samples, 1..=3 keys per slot.
fn file(config: NormConfig) -> Vec<u8> {
    let enc = NormEncoder::<u32>::new(config);
    let mut out = vec![0u8; 64 + SAMPLES as usize * config.max_record_bytes(4)];
    let mut n = enc.header(u64::from(SAMPLES), &mut out).unwrap();
    for r in 0..SAMPLES {
        let keys = [r, r + 1, r + 2];
        let slots: Vec<&[u32]> = (0..3).map(|s| &keys[..1 + (r as usize + s) % 3]).collect();
        n += enc
            .sample(&[r as f32], &[0.5, 1.5], &slots, &mut out[n..])
            .unwrap();
    }
    out.truncate(n);
    out
}

#[test]
fn a_warm_cursor_set_allocates_nothing_on_any_thread() {
    let config = NormConfig::new(DIMS, 3).with_check(Check::Sum);
    let file = file(config);
    let max_values = BATCH * DIMS.slot_num * 3;
    let set_config = CursorSetConfig::new(DIMS, BATCH, max_values)
        .with_workers(2)
        .with_queue_depth(2);
    let mut consumer = BatchBuffers::<u32>::new(DIMS, BATCH, max_values).unwrap();
    let (rows, counted, sum) = thread::scope(|s| {
        let set = CursorSet::scoped(s, set_config, |w, n| {
            NormSlice::norm(config, &file).partition(w, n)
        })
        .unwrap();
        let mut cursor = SampleCursor::new(set, consumer.batch().unwrap());
        let (mut rows, mut sum, mut from) = (0u32, 0f64, 0);
        while cursor.move_next().unwrap() {
            if rows == SAMPLES / 2 {
                from = ALLOCATIONS.load(Ordering::SeqCst);
            }
            sum += f64::from(cursor.labels()[0]) + f64::from(cursor.keys(0).unwrap()[0]);
            rows += 1;
        }
        // Counted up to the end of the pass, the workers' last batches and words included.
        let counted = ALLOCATIONS.load(Ordering::SeqCst) - from;
        (rows, counted, sum)
    });
    assert_eq!(rows, SAMPLES);
    let expect: f64 = (0..SAMPLES).map(|r| 2.0 * f64::from(r)).sum();
    assert_eq!(sum, expect);
    assert_eq!(counted, 0, "allocations in the second half of the pass");
}
