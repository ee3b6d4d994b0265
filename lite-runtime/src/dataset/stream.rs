//! Drives a core streaming decoder (Norm or Raw, through core's [`StreamDecoder`]) over the
//! files of a dataset: opens each file, feeds it the bytes it asks for, ends it, and keeps the
//! per-file account. One record loop serves both formats, decoding or passing over records.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use tessera_core::data::{
    DataError, DataErrorKind, DecodeStats, ErrorPolicy, Key, SampleBatch, Status, StreamDecoder,
};

use super::error::DatasetError;
use super::input::{Input, IoMode};
use super::stats::{FileStats, ReadStats};

/// What differs between formats: how a file's decoder starts, and which file-level errors
/// Skip may pass over.
pub(crate) trait Format<K: Key> {
    type Decoder: StreamDecoder<K>;
    fn policy(&self) -> ErrorPolicy;
    /// The decoder for a file just opened (`len`: its length if it is a regular file).
    fn start(
        &self,
        input: &mut Input,
        len: Option<u64>,
        path: &Path,
    ) -> Result<Self::Decoder, DatasetError>;
    /// Under Skip, the samples to count as skipped when `error`, met before the first sample
    /// with `head` the file's first bytes, makes the whole file unreadable; `None` stops.
    fn skip_whole(&self, _error: &DataError, _head: &[u8]) -> Option<u64> {
        None
    }
}

struct Current<D> {
    input: Input,
    decoder: D,
}

/// The file-by-file driver behind [`NormReader`](super::NormReader) and
/// [`RawReader`](super::RawReader).
pub(crate) struct StreamReader<K: Key, F: Format<K>> {
    format: F,
    paths: Vec<PathBuf>,
    next: usize,
    io: IoMode,
    current: Option<Current<F::Decoder>>,
    stats: ReadStats,
    stopped: Option<PathBuf>,
    _key: PhantomData<K>,
}

impl<K: Key, F: Format<K>> StreamReader<K, F> {
    pub(crate) fn new(format: F, paths: Vec<PathBuf>) -> Self {
        Self {
            format,
            paths,
            next: 0,
            io: IoMode::default(),
            current: None,
            stats: ReadStats::default(),
            stopped: None,
            _key: PhantomData,
        }
    }

    pub(crate) fn set_io(&mut self, io: IoMode) {
        self.io = io;
    }

    pub(crate) fn stats_mut(&mut self) -> &mut ReadStats {
        &mut self.stats
    }

    /// Decodes the next `max` records (decoded or skipped) into `batch`, or fewer if the
    /// batch fills up in keys or the files end; returns the records used. An error stops
    /// the reader: every later call returns [`DatasetError::Stopped`].
    pub(crate) fn read_records(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
        max: u64,
    ) -> Result<u64, DatasetError> {
        self.guard(|r| r.run(Some(batch), max))
    }

    /// Passes over the next `n` records without decoding them (a partition passing over
    /// another worker's batch); returns the records passed, fewer only at the end.
    pub(crate) fn pass_records(&mut self, n: u64) -> Result<u64, DatasetError> {
        self.guard(|r| r.run(None, n))
    }

    fn guard(
        &mut self,
        call: impl FnOnce(&mut Self) -> Result<u64, DatasetError>,
    ) -> Result<u64, DatasetError> {
        if let Some(path) = &self.stopped {
            return Err(DatasetError::Stopped { path: path.clone() });
        }
        call(self).inspect_err(|e| {
            self.stopped = Some(e.path().to_owned());
            self.current = None;
        })
    }

    /// The one record loop: decodes into `batch` (or passes over, without one) up to `max`
    /// records, across files; it returns early when the batch is full. Returns the records used (decoded, skipped or passed over).
    fn run(
        &mut self,
        mut batch: Option<&mut SampleBatch<'_, K>>,
        max: u64,
    ) -> Result<u64, DatasetError> {
        let mut used = 0u64;
        loop {
            let Some(cur) = self.current.as_mut() else {
                if used >= max || !self.open_next()? {
                    return Ok(used);
                }
                continue;
            };
            let path = &self.paths[self.next - 1];
            let before = cur.decoder.position();
            let left = max - used;
            let result = match batch.as_deref_mut() {
                Some(b) => cur.decoder.decode_records(cur.input.bytes(), b, left),
                None => cur.decoder.pass_over(cur.input.bytes(), left),
            };
            used += cur.decoder.position().saturating_sub(before);
            let stats = cur.decoder.stats();
            let progress = match result {
                Ok(p) => p,
                Err(e) => {
                    let skip = match self.format.policy() {
                        ErrorPolicy::Skip if stats.decoded + stats.skipped == 0 => {
                            self.format.skip_whole(&e, cur.input.bytes())
                        }
                        _ => None,
                    };
                    let Some(records) = skip else {
                        record(&mut self.stats, path, stats);
                        return Err(data(path, e));
                    };
                    used = used.saturating_add(records);
                    if let Some(f) = self.stats.current() {
                        f.skipped = records;
                        f.skipped_whole = true;
                        f.first_skipped = Some(data(path, e));
                        f.done = true;
                    }
                    self.current = None;
                    continue;
                }
            };
            cur.input.consume(progress.consumed);
            record(&mut self.stats, path, stats);
            match progress.status {
                Status::BatchFull => return Ok(used),
                Status::NeedMore { needed } if !cur.input.at_end() => {
                    // A closure: `DatasetError::io(path)` would copy the path on every
                    // read, an allocation per chunk (the dataset_alloc test).
                    cur.input
                        .fill(needed)
                        .map_err(|e| DatasetError::io(path)(e))?;
                }
                Status::NeedMore { .. } => self.finish_file()?,
                Status::Done => {
                    // One more byte tells trailing garbage from the end of the file.
                    cur.input.fill(1).map_err(|e| DatasetError::io(path)(e))?;
                    self.finish_file()?;
                }
            }
        }
    }

    /// Opens the next file; `false` when there is none.
    fn open_next(&mut self) -> Result<bool, DatasetError> {
        let Some(path) = self.paths.get(self.next) else {
            return Ok(false);
        };
        self.next += 1;
        self.stats.files.push(FileStats::new(path));
        let (mut input, len) = Input::open(path, self.io).map_err(DatasetError::io(path))?;
        let decoder = self.format.start(&mut input, len, path)?;
        self.current = Some(Current { input, decoder });
        Ok(true)
    }

    /// Ends the current file, all of which the decoder has been given or has refused.
    fn finish_file(&mut self) -> Result<(), DatasetError> {
        let path = &self.paths[self.next - 1];
        let Some(mut cur) = self.current.take() else {
            return Ok(());
        };
        let mut result = cur.decoder.finish(cur.input.bytes());
        if let Err(DataError {
            kind: DataErrorKind::TrailingBytes { count },
            ..
        }) = &mut result
        {
            // Buffered input holds only the first trailing bytes; the error names them all.
            *count = cur.input.count_rest().map_err(DatasetError::io(path))?;
        }
        record(&mut self.stats, path, cur.decoder.stats());
        let stats = result.map_err(|e| data(path, e))?;
        record(&mut self.stats, path, stats);
        if let Some(f) = self.stats.current() {
            f.done = true;
        }
        Ok(())
    }
}

fn data(path: &Path, error: DataError) -> DatasetError {
    DatasetError::Data {
        path: path.to_owned(),
        error,
    }
}

/// Copies a decoder's account into the current file's.
fn record(stats: &mut ReadStats, path: &Path, d: DecodeStats) {
    if let Some(f) = stats.current() {
        f.decoded = d.decoded;
        f.skipped = d.skipped;
        if f.first_skipped.is_none() {
            f.first_skipped = d.first_skipped.map(|e| data(path, e));
        }
    }
}
