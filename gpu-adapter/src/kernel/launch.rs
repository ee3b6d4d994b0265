//! Launch geometry of the embedding-bag kernel, computed on the host with no GPU: one thread
//! per (CSR row, column), columns along `x` so that a warp reads consecutive floats of a
//! table row, several rows per block along `y`.

use crate::error::GpuError;

/// Threads per block.
pub const THREADS_PER_BLOCK: u32 = 256;
/// The most columns one block covers (wider rows use more blocks along the grid's `y`).
pub const MAX_BLOCK_COLUMNS: u32 = 128;
/// CUDA's limit on the grid's `x` dimension.
pub const MAX_GRID_X: u64 = i32::MAX as u64;
/// CUDA's limit on the grid's `y` dimension.
pub const MAX_GRID_Y: u64 = 65_535;

/// Grid and block dimensions of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchPlan {
    /// Blocks: `(row blocks, column blocks, 1)`.
    pub grid: (u32, u32, u32),
    /// Threads per block: `(columns, rows, 1)`.
    pub block: (u32, u32, u32),
}

impl LaunchPlan {
    /// The launch pooling `rows` CSR rows into `dim` columns; `None` when there is nothing
    /// to compute (no rows or no columns).
    ///
    /// A block covers `min(dim.next_power_of_two(), 128)` columns (so widths 16, 64 and 128
    /// waste no thread) and `256 / that` rows.
    ///
    /// Errors: [`Launch`](GpuError::Launch) past CUDA's grid limits.
    pub fn embedding_bag(rows: usize, dim: usize) -> Result<Option<Self>, GpuError> {
        if rows == 0 || dim == 0 {
            return Ok(None);
        }
        let too_large = GpuError::Launch { rows, dim };
        let columns = dim
            .checked_next_power_of_two()
            .map_or(MAX_BLOCK_COLUMNS, |p| {
                p.min(MAX_BLOCK_COLUMNS as usize) as u32
            });
        let block_rows = THREADS_PER_BLOCK / columns;
        let grid_x = (rows as u64).div_ceil(u64::from(block_rows));
        let grid_y = (dim as u64).div_ceil(u64::from(columns));
        if grid_x > MAX_GRID_X || grid_y > MAX_GRID_Y {
            return Err(too_large);
        }
        Ok(Some(Self {
            grid: (grid_x as u32, grid_y as u32, 1),
            block: (columns, block_rows, 1),
        }))
    }

    /// Threads launched (at least one per output element).
    pub fn threads(&self) -> u64 {
        let (g, b) = (self.grid, self.block);
        [g.0, g.1, g.2, b.0, b.1, b.2]
            .iter()
            .fold(1u64, |t, &d| t.saturating_mul(u64::from(d)))
    }
}

#[cfg(test)]
mod tests {
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
}
