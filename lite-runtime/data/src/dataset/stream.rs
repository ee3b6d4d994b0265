//! Drives a core streaming decoder (Norm or Raw, through core's [`StreamDecoder`]) over the
//! files of a dataset: opens each file, feeds it the bytes it asks for, ends it, and keeps the
//! per-file account. One record loop serves both formats, decoding or passing over records.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tessera_core::data::{
    DataError, DataErrorKind, DecodeStats, ErrorPolicy, Key, SampleBatch, Status, StreamDecoder,
};

use super::error::DatasetError;
use super::input::{Input, IoMode, Opened};
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
    /// Moves `decoder` forward to record `sample` at file offset `offset`, where an earlier
    /// read of the same file found it (a partition jumping over another worker's batch);
    /// `false`, and nothing moved, if the format cannot or the decoder has not read its
    /// header.
    fn skip_to(&self, _decoder: &mut Self::Decoder, _sample: u64, _offset: u64) -> bool {
        false
    }
}

/// A file as opened: what tells it from another file at the same path (a
/// [`DatasetSource`](super::DatasetSource) trusts the batch starts it found in a file only
/// for the same file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    /// Its length.
    pub(crate) len: u64,
    /// Its modification time.
    pub(crate) modified: SystemTime,
}

struct Current<D> {
    input: Input,
    decoder: D,
    id: Option<FileId>,
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

    /// Opens the file if it is not, and reads its header if not yet read (as a pass over
    /// nothing), so that [`jump`](Self::jump) can resume after it. Returns the records
    /// used: those of a file skipped whole (see [`Format::skip_whole`]), else 0.
    pub(crate) fn ready(&mut self) -> Result<u64, DatasetError> {
        self.guard(|r| {
            if r.current.is_none() && !r.open_next()? {
                return Ok(0);
            }
            r.run(None, 0)
        })
    }

    /// The current file's offset of the next record, and what the file is; `None` between
    /// files.
    pub(crate) fn offset(&self) -> Option<(u64, FileId)> {
        let cur = self.current.as_ref()?;
        Some((cur.input.position(), cur.id?))
    }

    /// Moves `n` records ahead, to byte `offset` of the current file, without reading the
    /// bytes between: `offset` must be where an earlier read of this file (the same
    /// [`FileId`]) found that record's start. `false`, and nothing moved, where it cannot (no
    /// file open or its header unread, a buffered file, a format that cannot resume, an
    /// offset behind or past the end); the caller then passes over the records instead.
    pub(crate) fn jump(&mut self, n: u64, offset: u64) -> bool {
        let Some(cur) = self.current.as_mut() else {
            return false;
        };
        let Some(sample) = cur.decoder.position().checked_add(n) else {
            return false;
        };
        // The input is checked first: once the decoder has moved, the input must follow.
        cur.input.can_jump(offset)
            && self.format.skip_to(&mut cur.decoder, sample, offset)
            && cur.input.jump(offset)
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
        let Opened {
            mut input,
            len,
            modified,
        } = Input::open(path, self.io).map_err(DatasetError::io(path))?;
        let decoder = self.format.start(&mut input, len, path)?;
        let id = len
            .zip(modified)
            .map(|(len, modified)| FileId { len, modified });
        self.current = Some(Current { input, decoder, id });
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
