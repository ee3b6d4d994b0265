//! HugeCTR's data path over caller memory: Norm and Raw decoders that take bytes as they
//! arrive, samples in HugeCTR's CSR layout, and embedding-bag pooling (the CPU reference for
//! the GPU kernel).
//!
//! - [`SampleBatch`]: labels and dense features as `f32` rows, keys as a [`Csr`] whose row
//!   `sample * slot_num + slot` holds one slot; written a whole sample at a time.
//! - [`NormDecoder`] / [`NormEncoder`]: the Norm format, with or without checksum framing
//!   ([`Check`]); keys `u32` or `i64` ([`Key`]).
//! - [`RawDecoder`]: fixed-size one-hot samples.
//! - [`SampleCursor`]: a row cursor (`crate::cursor`) over the batches of a [`BatchSource`]
//!   such as a Norm or Raw file in memory ([`NormSlice`], [`RawSlice`]).
//! - [`embedding_bag`]: sum or mean of embedding-table rows per CSR row, in a documented
//!   order of f32 additions, so a GPU kernel can be checked against it bit for bit.
//! - [`embedding_bag_rows`]: the same over a [`TableView`] of `f32`, `f16`, `bf16` or FBGEMM's
//!   fused 8-bit rowwise rows ([`RowType`]), with optional per-key weights, accumulated in
//!   `f32` within a stated bound.
//! - [`TableSet`]: many tables pooled in one pass, a table per slot (FBGEMM's table-batched
//!   embedding), and [`check_slot_keys`], the host-side check of such a batch.
//!
//! Every decoder error is a [`DataError`] naming the sample and byte offset; an
//! [`ErrorPolicy`] chooses between stopping and skipping, and skipped samples are counted in
//! [`DecodeStats`], never silently lost. Parquet files and file lists are read by
//! `tessera-lite` (they need `std`), into the same batches.

mod bag;
mod batch;
mod columns;
mod csr;
mod cursor;
mod error;
mod half;
mod index;
mod key;
pub mod norm;
mod pool;
mod progress;
mod raw;
mod row_type;
mod source;
mod table;
mod tables;
#[cfg(test)]
mod tests;

pub use bag::embedding_bag_rows;
pub use batch::{BatchError, Dims, SampleBatch, SampleWriter};
pub use columns::{
    DENSE, KEYS, LABEL, fill_dense, fill_key_counts, fill_sample_vector, sample_columns,
};
pub use csr::{Checkpoint, Csr, CsrCapacity, CsrError, CsrView};
pub use cursor::{SampleCursor, SampleCursorError, SamplePlace};
pub use error::{DataError, DataErrorKind, DecodeStats, EncodeError, ErrorPolicy};
pub use half::{bf16_to_f32, f16_to_f32};
pub use index::BatchIndex;
pub use key::Key;
pub use norm::{Check, NormConfig, NormDecoder, NormEncoder, NormHeader};
pub use pool::{OutOfRange, PoolConfig, PoolError, Pooling, embedding_bag, embedding_bag_tensor};
pub use progress::{Progress, Status};
pub use raw::{RawConfig, RawDecoder};
pub use row_type::RowType;
pub use source::{
    BatchInfo, BatchSource, FilledBatch, NormSlice, RawSlice, SliceSource, StreamDecoder,
};
pub use table::TableView;
pub use tables::{TableSet, check_slot_keys};
