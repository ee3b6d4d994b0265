//! After warm-up, refilling a string tensor allocates nothing: counted by a global allocator
//! wrapper, on the measuring thread only (the test harness's own threads allocate too).

#[path = "support/counting.rs"]
mod counting;

use counting::allocations;
use tessera_alloc::{RustHeap, StringTensor};

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
    let before = allocations();
    for _round in 0..5 {
        for b in &batches {
            tensor.clear();
            for s in b {
                tensor.push(s).unwrap();
            }
            assert!(tensor.iter().eq(b.iter().map(|s| &s[..])));
        }
    }
    let after = allocations();
    assert_eq!(after - before, 0, "allocations after warm-up");
}
