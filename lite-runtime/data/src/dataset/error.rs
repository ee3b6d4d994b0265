//! Errors of the dataset readers: every one names the file, and where inside it the fault is
//! (line, sample and byte offset, or Parquet row and column).

use std::fmt;
use std::io;
use std::path::PathBuf;

use tessera_core::data::{BatchError, DataError, EncodeError};

use super::file_list::FileListError;
use crate::buffers::MemoryError;

/// Why a dataset could not be read (or written).
#[derive(Debug)]
#[non_exhaustive]
pub enum DatasetError {
    /// The file could not be opened, mapped, read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A file list is malformed.
    FileList {
        /// The list.
        path: PathBuf,
        /// What is wrong, and on which line.
        error: FileListError,
    },
    /// A Norm or Raw file's bytes are wrong; the [`DataError`] names the sample and the byte
    /// offset in the file.
    Data {
        /// The file.
        path: PathBuf,
        /// What is wrong, at which sample and byte.
        error: DataError,
    },
    /// A Parquet dataset's `_metadata.json` is unusable.
    Metadata {
        /// The `_metadata.json`.
        path: PathBuf,
        /// What is wrong with it.
        kind: MetadataErrorKind,
    },
    /// A Parquet file's row count disagrees with `_metadata.json`, or its row groups with its
    /// footer.
    RowCount {
        /// The Parquet file.
        path: PathBuf,
        /// Where the expected count comes from: `"_metadata.json"` or `"footer"`.
        expected_from: &'static str,
        /// The expected count.
        expected: u64,
        /// The count found: the footer's, or the row groups' sum.
        found: u64,
    },
    /// A Parquet column named in `_metadata.json` is missing or of a type the readers do not
    /// take.
    Schema {
        /// The Parquet file.
        path: PathBuf,
        /// The column.
        column: String,
        /// What is wrong.
        kind: SchemaErrorKind,
    },
    /// A Parquet row holds a value the readers refuse.
    Row {
        /// The Parquet file.
        path: PathBuf,
        /// The row, from 0 at the file's first row.
        row: u64,
        /// The column.
        column: String,
        /// What is wrong.
        kind: RowErrorKind,
    },
    /// A Parquet file's footer places a column chunk outside the file (a negative offset or
    /// size, or an end past the file's length): the footer is corrupt.
    ColumnChunk {
        /// The Parquet file.
        path: PathBuf,
        /// The row group, from 0.
        row_group: usize,
        /// The column (its dotted path in the schema).
        column: String,
        /// The chunk's first byte as the footer gives it (the dictionary page's, else the
        /// first data page's).
        start: i64,
        /// The chunk's size in bytes as the footer gives it.
        len: i64,
        /// The file's length.
        file_len: u64,
    },
    /// The Parquet library failed to decode the file (corrupt pages, bad footer, …).
    Parquet {
        /// The Parquet file.
        path: PathBuf,
        /// The library's error.
        source: parquet::errors::ParquetError,
    },
    /// The reader's configuration disagrees with the dataset.
    Config {
        /// The file or metadata the configuration was checked against.
        path: PathBuf,
        /// What disagrees.
        reason: String,
    },
    /// A sample could not be encoded (a Norm writer error).
    Encode {
        /// The output file.
        path: PathBuf,
        /// The sample's index in the output.
        sample: u64,
        /// What is wrong.
        error: EncodeError,
    },
    /// A buffer sized from the file (or the configuration read with it) is over the memory
    /// budget, or the allocator refused it; nothing was allocated.
    Memory {
        /// The file the size came from.
        path: PathBuf,
        /// The buffer and the bytes asked for.
        error: MemoryError,
    },
    /// The reader stopped at an earlier error (returned then) and reads nothing more.
    Stopped {
        /// The file the earlier error was in.
        path: PathBuf,
    },
}

/// What is wrong with a `_metadata.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetadataErrorKind {
    /// Not JSON.
    Json {
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A field is missing or of the wrong type.
    Field {
        /// Where in the document, e.g. `file_stats[1].num_rows`.
        field: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A data file is not listed in `file_stats`.
    NotListed {
        /// The file's name.
        file_name: String,
    },
    /// A column is named twice.
    DuplicateColumn {
        /// The column.
        col_name: String,
    },
}

/// What is wrong with a Parquet column.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// No top-level column has this name.
    Missing,
    /// The column's type is not one the readers take.
    Type {
        /// What `_metadata.json` makes it (label, dense, categorical).
        role: &'static str,
        /// What it is in the file.
        found: String,
        /// What it should be.
        expected: &'static str,
    },
}

/// What is wrong with a Parquet value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RowErrorKind {
    /// A null value (or null list, or null list element); HugeCTR datasets have none.
    Null,
    /// A categorical id that is negative, or that with its slot offset does not fit the key
    /// type.
    KeyRange {
        /// The id in the file (as read: `i128` holds every int32, int64 and uint64).
        value: i128,
        /// The slot offset from `slot_size_array` (0 without one).
        offset: u64,
    },
    /// A categorical id at or above its slot's `slot_size_array` entry (it would collide with
    /// the next slot's keys).
    KeyOutOfSlot {
        /// The id in the file.
        value: i128,
        /// The slot's size.
        slot_size: u64,
    },
    /// The sample's keys alone exceed an empty batch's key buffer.
    Batch(BatchError),
}

impl DatasetError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            Self::Io { path, .. }
            | Self::FileList { path, .. }
            | Self::Data { path, .. }
            | Self::Metadata { path, .. }
            | Self::RowCount { path, .. }
            | Self::Schema { path, .. }
            | Self::Row { path, .. }
            | Self::ColumnChunk { path, .. }
            | Self::Parquet { path, .. }
            | Self::Config { path, .. }
            | Self::Encode { path, .. }
            | Self::Memory { path, .. }
            | Self::Stopped { path } => path,
        }
    }

    /// `Io` for `path`; a shorthand for `map_err`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path().display();
        match self {
            Self::Io { source, .. } => write!(f, "{p}: {source}"),
            Self::FileList { error, .. } => write!(f, "{p}: {error}"),
            Self::Data { error, .. } => write!(f, "{p}: {error}"),
            Self::Metadata { kind, .. } => write!(f, "{p}: {kind}"),
            Self::RowCount {
                expected_from,
                expected,
                found,
                ..
            } => match *expected_from {
                "footer" => write!(
                    f,
                    "{p}: the row groups hold {found} rows, the footer says {expected}"
                ),
                _ => write!(
                    f,
                    "{p}: the footer says {found} rows, {expected_from} says {expected}"
                ),
            },
            Self::Schema { column, kind, .. } => write!(f, "{p}: column {column:?}: {kind}"),
            Self::Row {
                row, column, kind, ..
            } => write!(f, "{p}: row {row}, column {column:?}: {kind}"),
            Self::ColumnChunk {
                row_group,
                column,
                start,
                len,
                file_len,
                ..
            } => write!(
                f,
                "{p}: row group {row_group}, column {column:?}: the footer puts its chunk at \
                 byte {start}, {len} bytes long, outside the {file_len}-byte file"
            ),
            Self::Parquet { source, .. } => write!(f, "{p}: {source}"),
            Self::Config { reason, .. } => write!(f, "{p}: {reason}"),
            Self::Encode { sample, error, .. } => write!(f, "{p}: sample {sample}: {error}"),
            Self::Memory { error, .. } => write!(f, "{p}: {error}"),
            Self::Stopped { .. } => write!(f, "{p}: the reader stopped at an earlier error"),
        }
    }
}

impl std::error::Error for DatasetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::FileList { error, .. } => Some(error),
            Self::Data { error, .. } => Some(error),
            Self::Parquet { source, .. } => Some(source),
            Self::Encode { error, .. } => Some(error),
            Self::Memory { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl fmt::Display for MetadataErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Json {
                line,
                column,
                message,
            } => write!(f, "line {line}, column {column}: {message}"),
            Self::Field { field, expected } => write!(f, "{field} must be {expected}"),
            Self::NotListed { file_name } => {
                write!(f, "{file_name:?} is not listed in file_stats")
            }
            Self::DuplicateColumn { col_name } => write!(f, "column {col_name:?} is named twice"),
        }
    }
}

impl fmt::Display for SchemaErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing => f.write_str("not in the file"),
            Self::Type {
                role,
                found,
                expected,
            } => write!(f, "{role} column is {found}, {expected} expected"),
        }
    }
}

impl fmt::Display for RowErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Null => f.write_str("null value (datasets may have no nulls)"),
            Self::KeyRange { value, .. } if value < 0 => write!(f, "negative id {value}"),
            Self::KeyRange { value, offset } => write!(
                f,
                "id {value} plus slot offset {offset} does not fit the key type"
            ),
            Self::KeyOutOfSlot { value, slot_size } => write!(
                f,
                "id {value} is not below the slot's size {slot_size} (slot_size_array)"
            ),
            Self::Batch(e) => write!(f, "sample does not fit an empty batch: {e}"),
        }
    }
}
