//! Raw datasets: one-hot files of fixed-size samples (usually one file), read into batches.

use std::path::{Path, PathBuf};

use tessera_core::data::{ErrorPolicy, Key, RawConfig, RawDecoder, SampleBatch};

use super::error::DatasetError;
use super::input::{Input, IoMode};
use super::stats::ReadStats;
use super::stream::{Format, StreamReader};

/// Reads Raw files into batches (keys `u32` or `i64`; the files hold `int32` keys).
///
/// A Raw file has no header: its sample count is its length over the sample size, so it
/// must be a whole number of samples (an error otherwise, under either policy). The length
/// of a file that is not a regular file (a pipe) is learnt by reading it whole into memory.
pub(crate) struct RawReader<K: Key> {
    inner: StreamReader<K, RawFormat>,
}

pub(crate) struct RawFormat {
    config: RawConfig,
}

impl<K: Key> Format<K> for RawFormat {
    type Decoder = RawDecoder<K>;

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
    pub(crate) fn new(paths: Vec<PathBuf>, config: RawConfig) -> Self {
        Self {
            inner: StreamReader::new(RawFormat { config }, paths),
        }
    }

    /// The same reader, getting bytes through `io` (a memory map by default).
    pub(crate) fn with_io(mut self, io: IoMode) -> Self {
        self.inner.set_io(io);
        self
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
