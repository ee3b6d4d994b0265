//! The batch plan over host memory (the stand-in for pinned and device regions): buffers
//! 32-byte aligned, disjoint, in order; a batch written through it reads back; the used
//! prefix covers exactly what was written.

use proptest::prelude::*;
use tessera_alloc::HeapBlock;

use super::*;

fn shape(ld: usize, dense: usize, slots: usize, samples: usize, keys: usize) -> BatchShape {
    BatchShape::new(Dims::new(ld, dense, slots), samples, keys)
}

proptest! {
    #[test]
    fn plan_is_aligned_disjoint_and_ordered(
        ld in 0usize..3, dense in 0usize..20, slots in 1usize..30,
        samples in 1usize..300, keys in 0usize..5000, wide in any::<bool>(),
    ) {
        let s = shape(ld, dense, slots, samples, keys);
        let (starts, sizes, total) = if wide {
            let (mut arena, l) = BatchLayout::<i64>::plan::<HeapBlock>(s).unwrap();
            let total = arena.required_bytes().unwrap();
            let starts = [arena.offset(&l.label_dense()).unwrap(), arena.offset(&l.row_offsets()).unwrap(), arena.offset(&l.values()).unwrap()];
            (starts, [samples * (ld + dense) * 4, (samples * slots + 1) * 8, keys * 8], total)
        } else {
            let (mut arena, l) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
            let total = arena.required_bytes().unwrap();
            let starts = [arena.offset(&l.label_dense()).unwrap(), arena.offset(&l.row_offsets()).unwrap(), arena.offset(&l.values()).unwrap()];
            (starts, [samples * (ld + dense) * 4, (samples * slots + 1) * 4, keys * 4], total)
        };
        // Non-empty buffers are aligned, in reservation order, disjoint and inside the
        // plan (empty ones sit at offset 0).
        let used: Vec<(usize, usize)> =
            (0..3).filter(|&i| sizes[i] > 0).map(|i| (starts[i], sizes[i])).collect();
        for (k, &(start, size)) in used.iter().enumerate() {
            prop_assert_eq!(start % 32, 0);
            prop_assert!(start + size <= total);
            if k > 0 {
                prop_assert!(used[k - 1].0 + used[k - 1].1 <= start);
            }
        }
    }

    #[test]
    fn batch_round_trips_through_the_plan(
        rows in proptest::collection::vec(proptest::collection::vec(0u32..1000, 0..6), 3..30),
    ) {
        // 3 slots per sample; whole samples only.
        let samples = rows.len() / 3;
        let s = shape(1, 2, 3, samples, 200);
        let (mut arena, layout) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
        let bytes = arena.required_bytes_unaligned().unwrap();
        arena.allocate(HeapBlock::with_len(bytes)).unwrap();
        prop_assert_eq!(layout.padding(&arena).unwrap(), 0);
        let nnz;
        {
            let mut batch = layout.sample_batch(&mut arena).unwrap();
            for (i, sample) in rows.chunks_exact(3).enumerate() {
                let keys: [&[u32]; 3] = [&sample[0], &sample[1], &sample[2]];
                batch.push_sample(&[i as f32], &[0.5, 0.25], &keys).unwrap();
            }
            nnz = batch.csr().nnz();
            prop_assert_eq!(batch.samples(), samples);
        }
        let used = layout.used_bytes(&arena, nnz).unwrap();
        let values_at = arena.offset(&layout.values()).unwrap();
        // Keys come last; with none, the prefix ends with the offsets.
        let offsets_end = arena.offset(&layout.row_offsets()).unwrap() + (samples * 3 + 1) * 4;
        let expected_end = if nnz > 0 { values_at + nnz * 4 } else { offsets_end };
        prop_assert_eq!(used, expected_end);
        // What a copy of the prefix moves decodes to the same CSR.
        let offsets = arena.tensor(&layout.row_offsets()).unwrap();
        let offsets = offsets.as_slice().unwrap();
        prop_assert_eq!(offsets[0], 0);
        let expected: u32 = rows[..samples * 3].iter().map(|r| r.len() as u32).sum();
        prop_assert_eq!(offsets[samples * 3], expected);
        let values = arena.tensor(&layout.values()).unwrap();
        let flat: Vec<u32> = rows[..samples * 3].iter().flatten().copied().collect();
        prop_assert_eq!(&values.as_slice().unwrap()[..nnz], &flat[..]);
    }
}

#[test]
fn prefix_covers_offsets_when_there_are_no_keys_or_features() {
    // No labels, no dense, no key capacity: both empty buffers sit at offset 0.
    let s = shape(0, 0, 1, 1, 0);
    let (arena, layout) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
    let offsets_at = arena.offset(&layout.row_offsets()).unwrap();
    assert_eq!(layout.used_bytes(&arena, 0).unwrap(), offsets_at + 8);
}

#[test]
fn too_many_keys_and_overflow_are_errors() {
    let s = shape(1, 0, 2, 4, 10);
    let (arena, layout) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
    assert!(matches!(
        layout.used_bytes(&arena, 11),
        Err(GpuError::Capacity {
            needed: 11,
            available: 10,
            ..
        })
    ));
    let huge = shape(1, 0, usize::MAX / 2, 4, 10);
    assert!(matches!(
        BatchLayout::<u32>::plan::<HeapBlock>(huge),
        Err(GpuError::TooLarge { .. })
    ));
    assert!(matches!(huge.rows(), Err(GpuError::TooLarge { .. })));
}
