//! Raw datasets: one-hot files of fixed-size samples (usually one file), read into batches.

use std::path::{Path, PathBuf};

use tessera_core::data::{Dims, ErrorPolicy, Key, RawConfig, RawDecoder, SampleBatch};

use super::error::DatasetError;
use super::file_list::FileList;
use super::input::{Input, IoMode};
use super::reader::BatchReader;
use super::stats::ReadStats;
use super::stream::{Format, StreamReader};

/// Reads Raw files into batches (keys `u32` or `i64`; the files hold `int32` keys).
///
/// A Raw file has no header: its sample count is its length over the sample size, so it
/// must be a whole number of samples (an error otherwise, under either policy). The length
/// of a file that is not a regular file (a pipe) is learnt by reading it whole into memory.
pub struct RawReader<K: Key> {
    inner: StreamReader<K, RawFormat>,
}

pub(crate) struct RawFormat {
    config: RawConfig,
}

impl<K: Key> Format<K> for RawFormat {
    type Decoder = RawDecoder<K>;

    fn dims(&self) -> Dims {
        self.config.dims
    }

    fn policy(&self) -> ErrorPolicy {
        self.config.policy
    }

    fn start(
        &self,
        input: &mut Input,
        len: Option<u64>,
        path: &Path,
    ) -> Result<RawDecoder<K>, DatasetError> {
        let len = match len {
            Some(n) => n,
            None => {
                input.fill_all().map_err(DatasetError::io(path))?;
                input.bytes().len() as u64
            }
        };
        RawDecoder::new(self.config, len).map_err(|error| DatasetError::Data {
            path: path.to_owned(),
            error,
        })
    }
}

impl<K: Key> RawReader<K> {
    /// A reader of `paths`, in order.
    pub fn new(paths: Vec<PathBuf>, config: RawConfig) -> Self {
        Self {
            inner: StreamReader::new(RawFormat { config }, paths),
        }
    }

    /// A reader of a file list, or of one Raw file (told apart by
    /// [`FileList::sniff`]).
    pub fn open(path: &Path, config: RawConfig) -> Result<Self, DatasetError> {
        Ok(Self::new(FileList::resolve(path)?, config))
    }

    /// The same reader, getting bytes through `io` (a memory map by default).
    pub fn with_io(mut self, io: IoMode) -> Self {
        self.inner.set_io(io);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &RawConfig {
        &self.inner.format().config
    }

    /// The data files, in order.
    pub fn paths(&self) -> &[PathBuf] {
        self.inner.paths()
    }

    /// Up to `max` records (decoded or skipped) into `batch`; the records used.
    pub(crate) fn read_records(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
        max: u64,
    ) -> Result<u64, DatasetError> {
        self.inner.read_records(batch, max)
    }

    /// Passes over `n` records; the records passed.
    pub(crate) fn pass_records(&mut self, n: u64) -> Result<u64, DatasetError> {
        self.inner.pass_records(n)
    }

    /// The per-file account, for a [`DatasetSource`](super::DatasetSource) to take over.
    pub(crate) fn stats_mut(&mut self) -> &mut ReadStats {
        self.inner.stats_mut()
    }
}

impl<K: Key> BatchReader<K> for RawReader<K> {
    fn dims(&self) -> Dims {
        self.inner.format().config.dims
    }

    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Option<usize>, DatasetError> {
        self.inner.next_batch(batch)
    }

    fn stats(&self) -> &ReadStats {
        self.inner.stats()
    }

    fn announced_samples(&self) -> Option<u64> {
        let size = self.config().sample_bytes() as u64;
        let mut total = 0u64;
        for p in self.paths() {
            let len = std::fs::metadata(p).ok().filter(|m| m.is_file())?.len();
            total = total.checked_add(len.checked_div(size)?)?;
        }
        Some(total)
    }
}
