//! Embedding-bag pooling on the GPU: launch geometry (pure, host-tested), the device table,
//! the reusable output, and the NVRTC-compiled kernels.

mod compile;
mod embedding_bag;
mod launch;
#[cfg(test)]
mod model;
mod output;
mod table;

pub use compile::{KERNELS, SHIPPED_PTX, SOURCE, compile_ptx, shipped_ptx_is_current};
pub use embedding_bag::EmbeddingBag;
pub use launch::{LaunchPlan, MAX_BLOCK_COLUMNS, MAX_GRID_X, MAX_GRID_Y, THREADS_PER_BLOCK};
pub use output::PooledOutput;
pub use table::DeviceTable;
