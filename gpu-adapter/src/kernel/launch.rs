//! Launch geometry of the embedding-bag kernel, computed on the host with no GPU: one thread
//! per (CSR row, column) — a column being one float, or four where the kernel reads four at a
//! time — columns along `x` so that a warp reads consecutive floats of a table row, several
//! rows per block along `y`.

use crate::error::GpuError;

/// Threads per block.
pub const THREADS_PER_BLOCK: u32 = 256;
/// The most columns one block covers (wider rows use more blocks along the grid's `y`).
pub const MAX_BLOCK_COLUMNS: u32 = 128;
/// CUDA's limit on the grid's `x` dimension.
pub const MAX_GRID_X: u64 = i32::MAX as u64;
/// CUDA's limit on the grid's `y` dimension.
pub const MAX_GRID_Y: u64 = 65_535;

/// Threads of a warp: the most lanes the table-batched kernel gives a CSR row.
pub const WARP: u32 = 32;

/// Grid and block dimensions of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchPlan {
    /// Blocks: `(row blocks, column blocks, 1)`.
    pub grid: (u32, u32, u32),
    /// Threads per block: `(columns, rows, 1)`.
    pub block: (u32, u32, u32),
}

impl LaunchPlan {
    /// The launch pooling `rows` CSR rows with `dim` threads per row (the width, or a quarter
    /// of it where each thread reads four floats); `None` when there is nothing to compute
    /// (no rows or no columns).
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

    /// The launch of the table-batched kernel over `rows` CSR rows with `lanes` threads per
    /// row (a power of two from 1 to [`WARP`]; its lanes stride over the row's columns,
    /// whatever its table's width), `256 / lanes` rows per block; `None` for no rows.
    ///
    /// Errors: [`Launch`](GpuError::Launch) past CUDA's grid limits, or for `lanes` that is
    /// not such a power of two (`dim` is then `lanes`).
    pub fn table_batched(rows: usize, lanes: u32) -> Result<Option<Self>, GpuError> {
        if !lanes.is_power_of_two() || lanes > WARP {
            return Err(GpuError::Launch {
                rows,
                dim: lanes as usize,
            });
        }
        if rows == 0 {
            return Ok(None);
        }
        let block_rows = THREADS_PER_BLOCK / lanes;
        let grid_x = (rows as u64).div_ceil(u64::from(block_rows));
        if grid_x > MAX_GRID_X {
            return Err(GpuError::Launch { rows, dim: 0 });
        }
        Ok(Some(Self {
            grid: (grid_x as u32, 1, 1),
            block: (lanes, block_rows, 1),
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
mod tests;
