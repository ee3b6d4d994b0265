use proptest::prelude::*;

use super::*;

#[test]
fn widths_of_the_benchmarks() {
    let p = LaunchPlan::embedding_bag(1024 * 26, 16).unwrap().unwrap();
    assert_eq!(p.block, (16, 16, 1));
    assert_eq!(p.grid, (1664, 1, 1));
    let p = LaunchPlan::embedding_bag(65536 * 26, 64).unwrap().unwrap();
    assert_eq!(p.block, (64, 4, 1));
    assert_eq!(p.grid, (425_984, 1, 1));
    let p = LaunchPlan::embedding_bag(3, 128).unwrap().unwrap();
    assert_eq!(p.block, (128, 2, 1));
    assert_eq!(p.grid, (2, 1, 1));
    let p = LaunchPlan::embedding_bag(1, 1000).unwrap().unwrap();
    assert_eq!(p.block, (128, 2, 1));
    assert_eq!(p.grid, (1, 8, 1));
    let p = LaunchPlan::embedding_bag(5, 1).unwrap().unwrap();
    assert_eq!(p.block, (1, 256, 1));
}

#[test]
fn nothing_to_do_and_too_large() {
    assert_eq!(LaunchPlan::embedding_bag(0, 16).unwrap(), None);
    assert_eq!(LaunchPlan::embedding_bag(16, 0).unwrap(), None);
    assert!(matches!(
        LaunchPlan::embedding_bag(usize::MAX, 16),
        Err(GpuError::Launch { .. })
    ));
    assert!(matches!(
        LaunchPlan::embedding_bag(1, 128 * 65_536),
        Err(GpuError::Launch { .. })
    ));
    assert!(
        LaunchPlan::embedding_bag(1, 128 * 65_535)
            .unwrap()
            .is_some()
    );
}

proptest! {
    /// Every (row, column) has exactly one thread, and no block is wholly idle.
    #[test]
    fn covers_every_output_once(rows in 1usize..5_000_000, dim in 1usize..5_000) {
        let p = LaunchPlan::embedding_bag(rows, dim).unwrap().unwrap();
        let (bx, by) = (u64::from(p.block.0), u64::from(p.block.1));
        prop_assert_eq!(bx * by, u64::from(THREADS_PER_BLOCK));
        prop_assert!(bx <= u64::from(MAX_BLOCK_COLUMNS));
        let (gx, gy) = (u64::from(p.grid.0), u64::from(p.grid.1));
        prop_assert!(gx * by >= rows as u64 && (gx - 1) * by < rows as u64);
        prop_assert!(gy * bx >= dim as u64 && (gy - 1) * bx < dim as u64);
        prop_assert!(p.threads() >= (rows * dim) as u64);
    }
}

#[test]
fn table_batched_gives_each_row_a_group_of_lanes() {
    assert_eq!(LaunchPlan::table_batched(0, 32).unwrap(), None);
    let p = LaunchPlan::table_batched(65_536 * 26, 32).unwrap().unwrap();
    assert_eq!(p.block, (32, 8, 1));
    assert_eq!(p.grid, (212_992, 1, 1));
    let p = LaunchPlan::table_batched(65_536 * 26, 4).unwrap().unwrap();
    assert_eq!(p.block, (4, 64, 1));
    assert_eq!(p.grid, (26_624, 1, 1));
    let p = LaunchPlan::table_batched(9, 32).unwrap().unwrap();
    assert_eq!(p.grid, (2, 1, 1));
    let p = LaunchPlan::table_batched(9, 1).unwrap().unwrap();
    assert_eq!((p.block, p.grid), ((1, 256, 1), (1, 1, 1)));
    for lanes in [0, 3, 64] {
        assert!(matches!(
            LaunchPlan::table_batched(9, lanes),
            Err(GpuError::Launch { .. })
        ));
    }
    if usize::BITS == 64 {
        assert!(matches!(
            LaunchPlan::table_batched(usize::MAX, 32),
            Err(GpuError::Launch { dim: 0, .. })
        ));
    }
}
