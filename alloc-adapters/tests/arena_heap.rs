//! The heap arena (growing only when a batch needs more, keeping its memory across resets)
//! and the owned tensor.

use proptest::prelude::*;
use tessera_alloc::{HeapArena, HeapBlock, OwnedTensor};
use tessera_core::arena::ArenaError;
use tessera_core::memory::{HostMemory, Memory, MemoryKind};
use tessera_core::plan::Lifetime;
use tessera_core::tensor::{TensorError, TensorView};
use tessera_core::view::ViewIndex;

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 64 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

#[test]
fn heap_blocks_are_aligned_host_memory() {
    let mut b = HeapBlock::with_len(100);
    assert_eq!((b.len(), b.kind()), (128, MemoryKind::Host));
    assert_eq!(b.base_address() % 64, 0);
    b.bytes_mut()[127] = 1;
    b.grow_to(10);
    assert_eq!(b.len(), 128, "never shrinks");
    assert_eq!(b.bytes()[127], 1);
    b.clear();
    assert!(b.is_empty());
}

#[test]
fn heap_arena_reuses_and_grows() {
    let mut arena = HeapArena::new();
    assert_eq!(arena.capacity_bytes(), 0);
    let x = arena.reserve::<f64>(&[10]).unwrap();
    arena.allocate().unwrap();
    assert_eq!(arena.allocate(), Err(ArenaError::AlreadyAllocated));
    assert_eq!(arena.capacity_bytes(), 128);
    arena.tensor_mut(&x).unwrap().fill(2.0);
    let before = arena.address(&x).unwrap();

    arena.reset();
    let y = arena.reserve::<f64>(&[4]).unwrap();
    arena.allocate().unwrap();
    assert_eq!(arena.address(&y).unwrap(), before, "same block");
    assert_eq!(arena.tensor(&y).unwrap().iter().sum::<f64>(), 8.0);

    arena.reset();
    arena.reserve::<u8>(&[1000]).unwrap();
    arena.allocate().unwrap();
    assert_eq!(arena.capacity_bytes(), 1024, "grown for the larger batch");
    arena.shrink_to_fit();
    assert_eq!(arena.capacity_bytes(), 0);
}

#[test]
fn heap_arena_with_wide_alignment_pads() {
    let mut arena = HeapArena::with_alignment(256).unwrap();
    assert!(HeapArena::with_alignment(3).is_err());
    let a = arena.reserve::<u8>(&[1]).unwrap();
    let b = arena.reserve::<u8>(&[1]).unwrap();
    arena.allocate().unwrap();
    assert_eq!(arena.address(&a).unwrap() % 256, 0);
    assert_eq!(arena.address(&b).unwrap() % 256, 0);
}

#[test]
fn heap_arena_plans_lifetimes() {
    let mut arena = HeapArena::default();
    let steps = 6u32;
    let handles: Vec<_> = (0..steps)
        .map(|i| {
            arena
                .reserve_for::<f32>(&[256], Lifetime::new(i, i + 1))
                .unwrap()
        })
        .collect();
    assert_eq!(
        arena.required_bytes(),
        Ok(2048),
        "two activations alive at once"
    );
    assert_eq!(arena.sum_of_sizes(), 6 * 1024);
    arena.allocate().unwrap();
    for w in handles.windows(2) {
        let [a, b] = arena.tensors_mut([&w[0], &w[1]]).unwrap();
        assert_eq!((a.len(), b.len()), (256, 256));
    }
}

#[test]
fn owned_tensors() {
    let mut t = OwnedTensor::<i32>::zeros(&[2, 3]).unwrap();
    assert_eq!(t.len(), 6);
    t.as_view_mut().add_assign_scalar(1);
    t.view_mut(&[ViewIndex::Point(1)])
        .unwrap()
        .mul_assign_scalar(5);
    assert_eq!(t.as_slice(), Some(&[1, 1, 1, 5, 5, 5][..]));
    t.as_slice_mut()[0] = 9;
    assert_eq!(t.view_all().get(&[0, 0]), Some(&9));
    let cap = t.capacity();
    t.resize(&[1, 2]).unwrap();
    assert_eq!(t.as_slice(), Some(&[9, 1][..]));
    assert_eq!(t.capacity(), cap, "resize keeps the capacity");
    assert!(t.resize(&[1; 9]).is_err());
    assert_eq!(t.shape(), &[1, 2], "unchanged after an error");
    t.resize(&[2, 2]).unwrap();
    assert_eq!(t.into_vec(), vec![9, 1, 0, 0]);

    let e = OwnedTensor::from_vec(vec![1u8, 2, 3], &[2, 2]).unwrap_err();
    assert_eq!(e.data, vec![1, 2, 3]);
    assert_eq!(e.error, TensorError::LengthMismatch { needed: 4, len: 3 });
    assert!(!e.to_string().is_empty());
    let t = OwnedTensor::from_vec(vec![1u8, 2, 3, 4], &[2, 2]).unwrap();
    let col = OwnedTensor::from_view(&t.view(&[ViewIndex::All, ViewIndex::Point(1)]).unwrap());
    assert_eq!(
        (col.shape(), col.as_slice()),
        (&[2][..], Some(&[2u8, 4][..]))
    );
    let bag = t.shrink();
    assert_eq!(bag.stretch::<u8>().unwrap().get(&[1, 1]), Some(&4));
}

proptest! {
    #![proptest_config(config())]

    /// Batch after batch of random sizes: the block only grows to the largest plan, and every
    /// tensor's contents survive until the batch ends.
    #[test]
    fn batches_reuse_the_block(batches in prop::collection::vec(prop::collection::vec(0usize..64, 1..8), 1..6)) {
        let mut arena = HeapArena::new();
        let mut largest = 0;
        for sizes in &batches {
            arena.reset();
            let hs: Vec<_> = sizes.iter().map(|&n| arena.reserve::<u16>(&[n]).unwrap()).collect();
            largest = largest.max(arena.required_bytes().unwrap());
            arena.allocate().unwrap();
            prop_assert_eq!(arena.capacity_bytes(), largest.div_ceil(64) * 64);
            for (i, h) in hs.iter().enumerate() {
                arena.tensor_mut(h).unwrap().fill(i as u16);
            }
            for (i, h) in hs.iter().enumerate() {
                let t = arena.tensor(h).unwrap();
                let view = TensorView::new(t.as_slice().unwrap(), &[t.len()]).unwrap();
                prop_assert!(view.iter().all(|&x| x == i as u16));
            }
        }
    }
}
