//! HugeCTR datasets on disk: file lists, Norm, Raw and Parquet files read into
//! [`SampleBatch`](tessera_core::data::SampleBatch)es, and a Parquet → Norm converter.
//!
//! Every dataset is a core [`BatchSource`](tessera_core::data::BatchSource) through a
//! [`DatasetPlan`] (its files and their row counts, read once): [`DatasetPlan::source`] is
//! the serial pass, [`DatasetPlan::partition`] a cursor-set worker's share, and
//! [`DatasetPlan::shard`] one rank's files ([`Shard`]: rank `k` of `N` takes files `k, k + N,
//! …`, as HugeCTR splits them), so `SampleCursor`, partitions and
//! [`CursorSet`](crate::cursor_set::CursorSet) read every kind of dataset, whole or sharded,
//! and a row's id is its position in the whole dataset.
//!
//! A source keeps a per-file account of decoded and skipped rows ([`DatasetSource::stats`]);
//! errors are [`DatasetError`]s that name the file and the place in it (sample and byte
//! offset, or Parquet row and column), from [`DatasetSource::error`] or
//! [`DatasetPlan::failure`].
//!
//! - [`FileList`]: HugeCTR's list of data files.
//! - Norm and Raw files: the core streaming decoders over memory-mapped (or buffered,
//!   [`IoMode`]) files, through one record loop.
//! - [`ParquetReader`]: Parquet files described by a `_metadata.json` ([`ParquetMetadata`]).
//! - [`NormWriter`] and [`convert_to_norm`]: a source's samples to a Norm file (the
//!   Parquet → Norm converter); [`summarize`]: nnz statistics (`tessera dataset inspect`).

mod buffers;
mod convert;
mod error;
mod file_list;
mod input;
mod norm;
mod norm_writer;
mod parquet;
mod plan;
mod raw;
mod shard;
mod source;
mod stats;
mod stream;
mod summary;

pub use convert::{ConvertOptions, ConvertSummary, convert_to_norm};
pub use error::{DatasetError, MetadataErrorKind, RowErrorKind, SchemaErrorKind};
pub use file_list::{FileList, FileListError, FileListErrorKind};
pub use input::IoMode;
pub use norm::NormFileHeader;
pub use norm_writer::NormWriter;
pub use parquet::{
    ColumnRef, FileStat, ParquetConfig, ParquetMetadata, ParquetReader, parquet_footer,
};
pub use plan::{DatasetFormat, DatasetPlan, PlannedFile};
pub use shard::{Shard, ShardError};
pub use source::DatasetSource;
pub use stats::{FileStats, ReadStats};
pub use summary::{NnzStats, Summary, summarize};
