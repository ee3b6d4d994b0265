//! Parquet datasets: `_metadata.json` and the Parquet files it lists, read with the `parquet`
//! crate's column readers (no Arrow) into the same batches as Norm files.
//!
//! Labels and dense features are float32 columns; a slot is an int32/int64 column (one-hot)
//! or a list of them (multi-hot). Nulls are refused, ids are checked against
//! `slot_size_array` and the key type, and the slot offsets are added.
//!
//! Pages that carry a CRC-32 (pyarrow writes them with `write_page_checksum=True`,
//! parquet-java with `parquet.page.write-checksum.enabled`) are verified, so a flipped byte
//! in their data is an error rather than a wrong value. Pages are read uncompressed or
//! Snappy-compressed.

mod chunk;
mod columns;
mod metadata;
mod pages;
mod reader;
mod shared;

pub use metadata::{ColumnRef, FileStat, ParquetMetadata};
pub use reader::{ParquetConfig, ParquetReader, parquet_footer};
pub(crate) use shared::PageShare;
