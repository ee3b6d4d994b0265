//! Embedding-bag pooling on the GPU: launch geometry (pure, host-tested), the device table,
//! the reusable output, and the NVRTC-compiled kernels; and table-batched pooling (many
//! tables of any row type, one launch per batch): the host-planned layout of a table set,
//! the set on the device, and its kernels.

mod compile;
mod embedding_bag;
mod launch;
#[cfg(test)]
mod model;
mod output;
mod table;
mod table_batched;
mod table_layout;
#[cfg(test)]
mod table_model;
mod table_set;

pub use compile::{
    KERNELS, SHIPPED_PTX, SOURCE, TABLE_BATCHED_KERNELS, TABLE_BATCHED_SOURCE, compile_ptx,
    compile_table_batched_ptx, shipped_ptx_is_current,
};
pub use embedding_bag::EmbeddingBag;
pub use launch::{LaunchPlan, MAX_BLOCK_COLUMNS, MAX_GRID_X, MAX_GRID_Y, THREADS_PER_BLOCK, WARP};
pub use output::PooledOutput;
pub use table::DeviceTable;
pub use table_batched::{TableBatchedBag, TbeKernel};
pub use table_layout::{SLOT_WORDS, TABLE_WORDS, TableSetLayout, TableShape};
pub use table_set::DeviceTableSet;
