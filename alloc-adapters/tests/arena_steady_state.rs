//! After warm-up, a heap arena's batches allocate nothing — reserve, plan, allocate, use,
//! reset — and neither do owned tensors resized within their capacity: counted by a global
//! allocator wrapper (on the measuring thread only).

#[path = "support/counting.rs"]
mod counting;

use counting::allocations;
use tessera_alloc::{HeapArena, OwnedTensor};
use tessera_core::plan::Lifetime;

/// One batch: a 4-layer chain whose activations depend on the batch size.
fn run_batch(arena: &mut HeapArena, batch: usize) -> f32 {
    arena.reset();
    let weights = arena.reserve_block::<f32>().unwrap();
    let w: [_; 4] = std::array::from_fn(|_| arena.reserve_in(&weights, &[16, 16]).unwrap());
    let acts: [_; 5] = std::array::from_fn(|i| {
        let i = i as u32;
        arena
            .reserve_for::<f32>(&[batch, 16], Lifetime::new(i, i + 1))
            .unwrap()
    });
    arena.allocate().unwrap();
    arena.block_mut(&weights).unwrap().fill(0.5);
    arena.tensor_mut(&acts[0]).unwrap().fill(1.0);
    for i in 0..4 {
        let [x, mut y] = arena.tensors_mut([&acts[i], &acts[i + 1]]).unwrap();
        y.copy_from(&x).unwrap();
        y.add_assign_scalar(arena_weight(i));
    }
    assert_eq!(w.len(), 4);
    arena.tensor(&acts[4]).unwrap().iter().sum()
}

fn arena_weight(i: usize) -> f32 {
    i as f32
}

/// One test function, so no other test thread allocates while counting.
#[test]
fn warm_batches_and_resizes_allocate_nothing() {
    warm_batches_allocate_nothing();
    owned_tensors_resize_within_capacity_without_allocating();
}

fn warm_batches_allocate_nothing() {
    // Miri is some 1000x slower: fewer, smaller batches there.
    let sizes: &[usize] = if cfg!(miri) {
        &[3, 1, 3]
    } else {
        &[3, 17, 8, 32, 1, 32, 5]
    };
    let rounds = if cfg!(miri) { 1 } else { 10 };
    let mut arena = HeapArena::new();
    for &b in sizes {
        run_batch(&mut arena, b);
    }
    let cap = arena.capacity_bytes();
    let before = allocations();
    let mut total = 0.0;
    for _ in 0..rounds {
        for &b in sizes {
            total += run_batch(&mut arena, b);
        }
    }
    let during = allocations() - before;
    assert_eq!(during, 0, "the arena allocated");
    assert_eq!(arena.capacity_bytes(), cap);
    assert!(total > 0.0);
}

fn owned_tensors_resize_within_capacity_without_allocating() {
    let cols = if cfg!(miri) { 4 } else { 64 };
    let mut t = OwnedTensor::<f32>::zeros(&[64, cols]).unwrap();
    let before = allocations();
    for n in [1usize, 64, 7, 33, 64] {
        t.resize(&[n, cols]).unwrap();
        t.as_view_mut().fill(n as f32);
    }
    assert_eq!(allocations() - before, 0);
}
