//! [`DatasetPlan`]: a dataset's files and their row counts, read once before any batch, so
//! that every reader of it (a rank, a cursor-set worker) numbers batches and rows alike.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tessera_core::data::{Dims, Key, NormConfig, RawConfig};

use super::error::DatasetError;
use super::input::IoMode;
use super::norm::NormFileHeader;
use super::parquet::{PageShare, ParquetConfig, ParquetMetadata, ParquetReader};
use super::shard::Shard;
use super::source::{BatchStarts, DatasetSource};

/// The files' format and how to read them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum DatasetFormat {
    /// Norm files.
    Norm(NormConfig),
    /// Raw files.
    Raw(RawConfig),
    /// Parquet files described by a `_metadata.json`.
    Parquet {
        /// The dataset's metadata.
        metadata: ParquetMetadata,
        /// Where it was read from (named in errors).
        metadata_path: PathBuf,
        /// How to read the files.
        config: ParquetConfig,
    },
}

impl DatasetFormat {
    /// The sample shape.
    pub fn dims(&self) -> Dims {
        match self {
            Self::Norm(c) => c.dims,
            Self::Raw(c) => c.dims,
            Self::Parquet { metadata, .. } => metadata.dims(),
        }
    }
}

/// One file of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Its path.
    pub path: PathBuf,
    /// Its index in the whole dataset's list (before sharding).
    pub index: usize,
    /// Rows it announces (Norm header, Raw length, Parquet metadata).
    pub rows: u64,
    /// The position of its first row in the whole dataset: row ids are `first_row + i`,
    /// whichever rank reads the file.
    pub first_row: u64,
}

/// A dataset's files with the rows each announces, read before any batch.
///
/// Every reader of a dataset is a [`DatasetSource`] made from its plan: the serial pass
/// ([`source`](Self::source)), a cursor-set worker's partition
/// ([`partition`](Self::partition)), and either of those over one rank's share of the
/// files ([`shard`](Self::shard)). Batches never span files: a file of `r` rows gives
/// `ceil(r / B)` batches of `B` rows (decoded or skipped), so every reader can tell, from
/// the plan alone, which batch holds which rows and who owns it. A row's id
/// ([`BatchInfo::first_row`](tessera_core::data::BatchInfo) plus its index) is its position
/// in the whole dataset.
///
/// Clones share the failure log: the full [`DatasetError`] behind the `DataError` a
/// source returns (a cursor set's workers run their own sources) is kept here, see
/// [`failure`](Self::failure).
#[derive(Debug, Clone)]
pub struct DatasetPlan {
    format: Arc<DatasetFormat>,
    io: IoMode,
    files: Arc<[PlannedFile]>,
    dataset_rows: u64,
    failures: Arc<Mutex<Vec<Failure>>>,
    /// Where its Norm files' batches start, as its partitions find out.
    starts: Arc<BatchStarts>,
    /// Parquet row groups the partitions of this plan share (one decompression each).
    pages: PageShare,
}

/// A source's error, where it stands in the serial order: batch, then 1 for the batch's
/// owner or 2 for a worker passing over it.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) batch: u64,
    pub(crate) rank: u8,
    pub(crate) error: DatasetError,
}

impl DatasetPlan {
    /// The Norm files `paths`, in order; reads each header for its record count.
    pub fn norm(paths: Vec<PathBuf>, config: NormConfig) -> Result<Self, DatasetError> {
        let rows = paths
            .iter()
            .map(|p| NormFileHeader::read(p).map(|h| h.records))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(DatasetFormat::Norm(config), paths, rows)
    }

    /// The Raw files `paths`, in order; each must be a regular file (its length gives its
    /// sample count).
    pub fn raw(paths: Vec<PathBuf>, config: RawConfig) -> Result<Self, DatasetError> {
        let size = config.sample_bytes() as u64;
        let rows = paths
            .iter()
            .map(|p| {
                let meta = std::fs::metadata(p).map_err(DatasetError::io(p))?;
                if !meta.is_file() {
                    return Err(DatasetError::Config {
                        path: p.clone(),
                        reason: "a Raw file in a plan must be a regular file (its length \
                                 gives its sample count)"
                            .into(),
                    });
                }
                Ok(meta.len().checked_div(size).unwrap_or(0))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(DatasetFormat::Raw(config), paths, rows)
    }

    /// The Parquet dataset at `source` (a directory, a `_metadata.json`, a file list or one
    /// file, as [`ParquetReader::open`] takes it); row counts from the metadata.
    pub fn parquet(source: &Path, config: ParquetConfig) -> Result<Self, DatasetError> {
        let reader = ParquetReader::<u32>::open(source, config.clone())?;
        let paths = reader.paths().to_vec();
        let rows = paths
            .iter()
            .map(|p| reader.listed_rows(p))
            .collect::<Result<Vec<_>, _>>()?;
        let format = DatasetFormat::Parquet {
            metadata: reader.metadata().clone(),
            metadata_path: reader.metadata_path().to_owned(),
            config,
        };
        Self::new(format, paths, rows)
    }

    fn new(
        format: DatasetFormat,
        paths: Vec<PathBuf>,
        rows: Vec<u64>,
    ) -> Result<Self, DatasetError> {
        let mut first_row = 0u64;
        let mut files = Vec::with_capacity(paths.len());
        for (index, (path, rows)) in paths.into_iter().zip(rows).enumerate() {
            let next = first_row
                .checked_add(rows)
                .ok_or_else(|| DatasetError::Config {
                    path: path.clone(),
                    reason: "the files' row counts sum past 2^64".into(),
                })?;
            files.push(PlannedFile {
                path,
                index,
                rows,
                first_row,
            });
            first_row = next;
        }
        Ok(Self {
            format: Arc::new(format),
            io: IoMode::default(),
            starts: Arc::new(BatchStarts::new(files.len())),
            files: files.into(),
            dataset_rows: first_row,
            failures: Arc::default(),
            pages: PageShare::default(),
        })
    }

    /// The same plan, reading Norm and Raw files through `io` (a memory map by default).
    pub fn with_io(mut self, io: IoMode) -> Self {
        self.io = io;
        self
    }

    /// The files of `shard`'s rank only (files `rank, rank + world, …` of the list), their
    /// rows keeping their ids in the whole dataset. A rank past the file count reads nothing.
    pub fn shard(&self, shard: Shard) -> Self {
        let files: Vec<PlannedFile> = self
            .files
            .iter()
            .filter(|f| shard.owns(f.index))
            .cloned()
            .collect();
        Self {
            starts: Arc::new(BatchStarts::new(files.len())),
            files: files.into(),
            failures: Arc::default(),
            ..self.clone()
        }
    }

    /// The format and its configuration.
    pub fn format(&self) -> &DatasetFormat {
        &self.format
    }

    /// The Parquet row groups this plan's partitions share.
    pub(crate) fn pages(&self) -> &PageShare {
        &self.pages
    }

    /// Where the batches of its Norm files start, as far as its partitions have found.
    pub(crate) fn starts(&self) -> &BatchStarts {
        &self.starts
    }

    /// How Norm and Raw files are read.
    pub fn io(&self) -> IoMode {
        self.io
    }

    /// The sample shape.
    pub fn dims(&self) -> Dims {
        self.format.dims()
    }

    /// The files this plan reads, in order.
    pub fn files(&self) -> &[PlannedFile] {
        &self.files
    }

    /// Rows announced by this plan's files.
    pub fn rows(&self) -> u64 {
        self.files.iter().map(|f| f.rows).sum()
    }

    /// Rows announced by the whole dataset (every rank's files).
    pub fn dataset_rows(&self) -> u64 {
        self.dataset_rows
    }

    /// The serial pass over the plan's files.
    pub fn source<K: Key>(&self) -> DatasetSource<K> {
        DatasetSource::new(self.clone(), 0, 1, true)
    }

    /// Worker `worker` of `workers`: batches `worker, worker + workers, …` of the serial
    /// pass, numbered as it numbers them (what a
    /// [`CursorSet`](crate::cursor_set::CursorSet) asks of `make_source`). Batches of other
    /// workers are passed over: a Norm or Raw record by its length, a whole file or
    /// Parquet row group without reading it. The partitions of one plan (and its clones)
    /// decompress each Parquet row group they all read once between them, not once each.
    /// `workers == 0` is taken as 1, `worker` mod `workers`.
    pub fn partition<K: Key>(&self, worker: u64, workers: u64) -> DatasetSource<K> {
        let workers = workers.max(1);
        DatasetSource::new(self.clone(), worker % workers, workers, false)
    }

    /// The full error behind the first `DataError` (in the serial order) any source of this
    /// plan (or its clones) returned, taken out of the log; `None` if none failed.
    pub fn failure(&self) -> Option<DatasetError> {
        let mut log = self.log();
        let first = log
            .iter()
            .enumerate()
            .min_by_key(|(_, f)| (f.batch, f.rank))
            .map(|(i, _)| i)?;
        let failure = log.swap_remove(first);
        log.clear();
        Some(failure.error)
    }

    pub(crate) fn record_failure(&self, failure: Failure) {
        self.log().push(failure);
    }

    fn log(&self) -> MutexGuard<'_, Vec<Failure>> {
        // A push or a removal cannot leave the list half-changed: a poisoned lock is fine.
        self.failures.lock().unwrap_or_else(|e| e.into_inner())
    }
}
