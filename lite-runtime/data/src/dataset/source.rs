//! [`DatasetSource`]: any dataset's files (Norm, Raw, Parquet) as a core
//! [`BatchSource`], so a `SampleCursor`, a partition or a cursor set reads them all alike.

use tessera_core::data::{
    BatchError, BatchInfo, BatchSource, DataError, DataErrorKind, Key, SampleBatch,
};

use super::error::DatasetError;
use super::norm::NormReader;
use super::parquet::ParquetReader;
use super::plan::{DatasetFormat, DatasetPlan, Failure};
use super::raw::RawReader;
use super::stats::{FileStats, ReadStats};
use super::stream::FileId;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The batches of a [`DatasetPlan`]'s files: the serial pass, or one worker's partition of
/// it (see [`DatasetPlan::partition`]).
///
/// The batch size is the capacity of the batch the first call fills; every later batch must
/// have the same. A batch holds `B` rows of one file (the last of a file fewer), so batch
/// numbers and row ids come from the plan alone, and a partition's batches are exactly the
/// serial pass's. Size the batch's keys for whole batches (`B x slot_num x max_nnz`): a
/// batch whose keys run out before its rows is an error here, as for a partitioned
/// [`SliceSource`](tessera_core::data::SliceSource).
///
/// The serial pass ([`DatasetPlan::source`]) alone splits a batch whose keys run out before
/// its rows: the rest of its rows come in the next batch, under the same id (a partition,
/// whose batches a cursor set merges by id, errors instead). [`stats`](Self::stats) keeps
/// the per-file account of decoded and skipped rows.
///
/// Errors come as `DataError`s placed for a cursor set: `sample` is `id x B + i` for the
/// `i`-th row of batch `id`, `offset` the byte offset in the file; the full error, with the
/// file's path, is in [`DatasetPlan::failure`]. A record's error comes after the good rows
/// before it (held back for one call, as the serial cursor gives them).
///
/// ```no_run
/// use tessera_core::cursor::RowCursor;
/// use tessera_core::data::{Dims, NormConfig, SampleCursor};
/// use tessera_data::buffers::BatchBuffers;
/// use tessera_data::dataset::{DatasetPlan, FileList};
///
/// let config = NormConfig::new(Dims::new(1, 13, 26), 1);
/// let plan = DatasetPlan::norm(FileList::resolve("train/file_list.txt".as_ref())?, config)?;
/// let mut buffers = BatchBuffers::<u32>::new(config.dims, 1024, 1024 * 26)?;
/// let mut cursor = SampleCursor::new(plan.source(), buffers.batch()?);
/// while cursor.move_next()? {
///     // cursor.labels(), cursor.keys(slot), cursor.id() …
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DatasetSource<K: Key> {
    plan: DatasetPlan,
    worker: u64,
    workers: u64,
    /// Rows per batch, from the first batch (0 before it).
    capacity: u64,
    /// The serial number of each file's first batch (filled at the first batch).
    first_batch: Vec<u64>,
    /// The current file, in the plan's list.
    file: usize,
    /// The next batch of the current file, counted in the file.
    local: u64,
    /// The current file's reader and the rows it has used.
    reader: Option<(FileReader<K>, u64)>,
    /// An error held back until the rows before it are handed out.
    pending: Option<DataError>,
    ended: bool,
    /// Whether a batch whose keys run out may end short (the serial pass only).
    split: bool,
    /// The rest of a batch that ended short: its id, next row and end in the file, and
    /// whether it is the file's last.
    partial: Option<Partial>,
    /// Decoded and skipped rows, per file opened.
    stats: ReadStats,
}

#[derive(Debug, Clone, Copy)]
struct Partial {
    id: u64,
    start: u64,
    end: u64,
    last: bool,
}

/// The reader of one file. Parquet's is boxed: it is the largest by far, and one is made
/// per file, not per batch.
enum FileReader<K: Key> {
    Norm(NormReader<K>),
    Raw(RawReader<K>),
    Parquet(Box<ParquetReader<K>>),
}

impl<K: Key> FileReader<K> {
    /// The reader of file `file`; `partition`: one of several workers (Parquet row groups
    /// are then shared with the others, see [`DatasetPlan::partition`]).
    fn open(plan: &DatasetPlan, file: usize, partition: bool) -> Result<Self, DatasetError> {
        let path = plan.files()[file].path.clone();
        Ok(match plan.format() {
            DatasetFormat::Norm(c) => {
                Self::Norm(NormReader::new(vec![path], *c).with_io(plan.io()))
            }
            DatasetFormat::Raw(c) => Self::Raw(RawReader::new(vec![path], *c).with_io(plan.io())),
            DatasetFormat::Parquet {
                metadata,
                metadata_path,
                config,
            } => {
                let reader = ParquetReader::new(
                    metadata.clone(),
                    metadata_path.clone(),
                    vec![path],
                    config.clone(),
                )?;
                Self::Parquet(Box::new(match partition {
                    true => reader.with_share(plan.pages().clone()),
                    false => reader,
                }))
            }
        })
    }

    fn read(&mut self, batch: &mut SampleBatch<'_, K>, max: u64) -> Result<u64, DatasetError> {
        match self {
            Self::Norm(r) => r.read_records(batch, max),
            Self::Raw(r) => r.read_records(batch, max),
            Self::Parquet(r) => r.read_records(batch, max),
        }
    }

    fn pass(&mut self, n: u64) -> Result<u64, DatasetError> {
        match self {
            Self::Norm(r) => r.pass_records(n),
            Self::Raw(r) => r.pass_records(n),
            Self::Parquet(r) => r.pass_records(n),
        }
    }

    /// Opens the file and reads its header, if not yet (Norm: before a jump); the records
    /// used (a file skipped whole).
    fn ready(&mut self) -> Result<u64, DatasetError> {
        match self {
            Self::Norm(r) => r.ready(),
            Self::Raw(_) | Self::Parquet(_) => Ok(0),
        }
    }

    /// The byte offset of the next record and the file, where the format can jump there.
    fn offset(&self) -> Option<(u64, FileId)> {
        match self {
            Self::Norm(r) => r.offset(),
            Self::Raw(_) | Self::Parquet(_) => None,
        }
    }

    /// Jumps `n` records ahead to byte `offset`; `false` where it cannot. Raw records
    /// are passed by arithmetic, Parquet row groups by the metadata: only Norm needs it.
    fn jump(&mut self, n: u64, offset: u64) -> bool {
        match self {
            Self::Norm(r) => r.jump(n, offset),
            Self::Raw(_) | Self::Parquet(_) => false,
        }
    }

    /// The account of its one file.
    fn file_stats(&mut self) -> Option<&mut FileStats> {
        match self {
            Self::Norm(r) => r.stats_mut(),
            Self::Raw(r) => r.stats_mut(),
            Self::Parquet(r) => r.stats_mut(),
        }
        .files
        .last_mut()
    }
}

impl<K: Key> DatasetSource<K> {
    pub(crate) fn new(plan: DatasetPlan, worker: u64, workers: u64, split: bool) -> Self {
        Self {
            split,
            partial: None,
            stats: ReadStats::default(),
            plan,
            worker,
            workers,
            capacity: 0,
            first_batch: Vec::new(),
            file: 0,
            local: 0,
            reader: None,
            pending: None,
            ended: false,
        }
    }

    /// The plan it reads.
    pub fn plan(&self) -> &DatasetPlan {
        &self.plan
    }

    /// Rows decoded and skipped so far, per file this source has opened, in order.
    pub fn stats(&self) -> &ReadStats {
        &self.stats
    }

    /// The full error behind a `DataError` this source returned: the plan's failure log
    /// (see [`DatasetPlan::failure`]), or, for a batch whose keys ran out, the error placed
    /// in the current file.
    pub fn error(&self, error: DataError) -> DatasetError {
        self.plan.failure().unwrap_or_else(|| {
            let path = self
                .plan
                .files()
                .get(self.file)
                .or(self.plan.files().last());
            DatasetError::Data {
                path: path.map(|f| f.path.clone()).unwrap_or_default(),
                error,
            }
        })
    }

    /// Copies the open reader's account of its file into this source's.
    fn sync_stats(&mut self) {
        let Some((reader, _)) = self.reader.as_mut() else {
            return;
        };
        if let (Some(from), Some(to)) = (reader.file_stats(), self.stats.files.last_mut()) {
            to.decoded = from.decoded;
            to.skipped = from.skipped;
            to.skipped_whole = from.skipped_whole;
            to.done = from.done;
            if to.first_skipped.is_none() {
                to.first_skipped = from.first_skipped.take();
            }
        }
    }

    /// Batches in the serial pass over the plan with `capacity` rows per batch.
    fn batches(&self, file: usize) -> u64 {
        self.plan.files()[file].rows.div_ceil(self.capacity)
    }

    /// Records `error`, met in batch `id` (`rank` 1: its owner, 2: passing over it) after
    /// `good` rows, and ends the source.
    fn fail(&mut self, error: DatasetError, id: u64, rank: u8, good: usize) -> DataError {
        self.sync_stats();
        self.ended = true;
        self.reader = None;
        let index = self.plan.files().get(self.file).map_or(0, |f| f.index) as u64;
        let (kind, offset) = match &error {
            DatasetError::Data { error, .. } => (error.kind, error.offset),
            _ => (DataErrorKind::Source { file: index }, 0),
        };
        self.plan.record_failure(Failure {
            batch: id,
            rank,
            error,
        });
        DataError {
            kind,
            sample: Some(id.saturating_mul(self.capacity).saturating_add(good as u64)),
            offset,
        }
    }

    /// Opens the current file if it is not, and moves its reader to row `to` of it.
    fn seek(&mut self, to: u64, id: u64) -> Result<(), DataError> {
        if self.reader.is_none() {
            let path = &self.plan.files()[self.file].path;
            self.stats.files.push(FileStats::new(path));
            match FileReader::open(&self.plan, self.file, self.workers > 1) {
                Ok(r) => self.reader = Some((r, 0)),
                Err(e) => return Err(self.fail(e, id, 2, 0)),
            }
        }
        if self.workers > 1 {
            self.jump(to).map_err(|e| self.fail(e, id, 2, 0))?;
        }
        let passed = match self.reader.as_mut() {
            Some((reader, at)) if *at < to => reader.pass(to - *at).map(|n| *at += n),
            _ => Ok(()),
        };
        self.sync_stats();
        passed.map_err(|e| self.fail(e, id, 2, 0))?;
        self.publish();
        Ok(())
    }

    /// Jumps the open reader to row `to` of the file (a batch start) if a source of this
    /// plan has already found where it starts in this very file.
    fn jump(&mut self, to: u64) -> Result<(), DatasetError> {
        let Some((reader, at)) = self.reader.as_mut() else {
            return Ok(());
        };
        if *at >= to {
            return Ok(());
        }
        *at = at.saturating_add(reader.ready()?);
        if *at >= to {
            return Ok(());
        }
        let known = reader.offset().and_then(|(_, file)| {
            let table = self
                .plan
                .starts()
                .file(self.file, file, &self.plan, self.capacity)?;
            table.get(to / self.capacity)
        });
        if let Some(offset) = known {
            if reader.jump(to - *at, offset) {
                *at = to;
            }
        }
        Ok(())
    }

    /// Tells the plan where the open reader stands, if that is a batch start of its file,
    /// so the other partitions (and later passes) jump there.
    fn publish(&self) {
        let Some((reader, at)) = self.reader.as_ref() else {
            return;
        };
        if self.workers < 2 || *at % self.capacity != 0 {
            return;
        }
        if let Some((offset, file)) = reader.offset() {
            if let Some(table) = self
                .plan
                .starts()
                .file(self.file, file, &self.plan, self.capacity)
            {
                table.set(*at / self.capacity, offset);
            }
        }
    }

    /// Reads rows `start..start + expected` of the file, batch `id`, into `batch` from the
    /// open reader; at the file's last batch, also ends the file (trailing bytes, missing
    /// records). Errors stay with the good rows before them.
    fn read(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
        id: u64,
        (start, expected): (u64, u64),
        last: bool,
    ) {
        let Some((reader, at)) = self.reader.as_mut() else {
            return;
        };
        let read = reader
            .read(batch, expected)
            .inspect(|&n| *at += n)
            .and_then(|n| {
                if last && n == expected {
                    reader.pass(0).map(|_| n)
                } else {
                    Ok(n)
                }
            });
        self.sync_stats();
        if read.is_ok() {
            self.publish();
        }
        // A file that ended before the rows its header announced, under Skip: the missing
        // rows are counted as skipped, and its batches from here on come out short or empty.
        let ended = self.stats.files.last().is_some_and(|f| f.done);
        match read {
            Ok(n) if n < expected && ended => {}
            Ok(n) if n < expected && n > 0 && self.split => {
                // The serial pass hands out what fitted; the rest of the batch comes next.
                self.partial = Some(Partial {
                    id,
                    start: start + n,
                    end: start + expected,
                    last,
                });
            }
            Ok(n) if n < expected => {
                // The keys ran out before the rows (a file ending early fails in its reader).
                self.ended = true;
                self.reader = None;
                self.pending = Some(DataError {
                    kind: DataErrorKind::Batch(BatchError::NoRoom),
                    sample: Some(id * self.capacity + batch.samples() as u64),
                    offset: 0,
                });
            }
            Ok(_) => {}
            Err(e) => {
                let good = batch.samples();
                self.pending = Some(self.fail(e, id, 1, good));
            }
        }
    }
}

impl<K: Key> BatchSource<K> for DatasetSource<K> {
    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Option<BatchInfo>, DataError> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.ended {
            return Ok(None);
        }
        let capacity = batch.capacity() as u64;
        if self.capacity == 0 {
            self.capacity = capacity.max(1);
            let mut first = 0u64;
            self.first_batch = (0..self.plan.files().len())
                .map(|f| {
                    let at = first;
                    first = first.saturating_add(self.batches(f));
                    at
                })
                .collect();
        }
        if batch.dims() != self.plan.dims() || capacity != self.capacity {
            let path = self.plan.files().first().map(|f| f.path.clone());
            let error = DatasetError::Config {
                path: path.unwrap_or_default(),
                reason: format!(
                    "batch of {capacity} samples of {:?}, the source's are {} of {:?}",
                    batch.dims(),
                    self.capacity,
                    self.plan.dims()
                ),
            };
            return Err(self.fail(error, 0, 1, 0));
        }
        if let Some(p) = self.partial.take() {
            let first_row = self.plan.files()[self.file].first_row;
            self.read(batch, p.id, (p.start, p.end - p.start), p.last);
            return self.hand_out(batch, p.id, first_row + p.start);
        }
        loop {
            let Some(file) = self.plan.files().get(self.file) else {
                self.ended = true;
                return Ok(None);
            };
            let (rows, first_row) = (file.rows, file.first_row);
            let (count, base) = (self.batches(self.file), self.first_batch[self.file]);
            // This worker's next batch in the file: the first `k >= local` it owns.
            let behind = (self.worker + self.workers - base % self.workers) % self.workers;
            let ahead = (behind + self.workers - self.local % self.workers) % self.workers;
            let k = self.local.saturating_add(ahead);
            if k >= count {
                // Nothing more of this file is ours: the next file, unopened if unread.
                self.file += 1;
                self.local = 0;
                self.reader = None;
                continue;
            }
            let id = base + k;
            let start = k * self.capacity;
            let expected = self.capacity.min(rows - start);
            self.seek(start, id)?;
            // A file skipped whole (Skip, a header at odds with the configuration) has
            // counted all its rows already: its batches come out empty.
            let done = self
                .reader
                .as_ref()
                .is_some_and(|(_, at)| *at >= start + expected);
            if !done {
                self.read(batch, id, (start, expected), k + 1 == count);
            }
            // A partition takes its part of its next batch's Parquet pages now, while the
            // other workers are on them (see `ParquetReader::prefetch`).
            let next = k.saturating_add(self.workers).saturating_mul(self.capacity);
            if let Some((FileReader::Parquet(r), at)) = self.reader.as_mut() {
                if self.workers > 1 && self.pending.is_none() && next < rows {
                    r.prefetch(next.saturating_sub(*at), self.worker, self.workers);
                }
            }
            self.local = k + 1;
            return self.hand_out(batch, id, first_row + start);
        }
    }
}

impl<K: Key> DatasetSource<K> {
    /// The batch just read, or the error met before any row of it.
    fn hand_out(
        &mut self,
        batch: &SampleBatch<'_, K>,
        id: u64,
        first_row: u64,
    ) -> Result<Option<BatchInfo>, DataError> {
        if batch.samples() == 0 {
            if let Some(e) = self.pending.take() {
                return Err(e);
            }
        }
        Ok(Some(BatchInfo { id, first_row }))
    }
}

impl<K: Key> core::fmt::Debug for DatasetSource<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DatasetSource")
            .field("worker", &self.worker)
            .field("workers", &self.workers)
            .field("file", &self.file)
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

/// Where the batches of a plan's Norm files start, found by its partitions as they read:
/// a partition jumps to its next batch instead of passing over the other workers'
/// records, when another (or an earlier pass of the plan: every epoch after the first)
/// has been there. Shared by a plan's clones, kept for the plan's life.
#[derive(Debug, Default)]
pub(crate) struct BatchStarts {
    /// One per file of the plan, made at its first use.
    files: Box<[OnceLock<FileStarts>]>,
}

/// The batch starts found in one file.
#[derive(Debug)]
pub(crate) struct FileStarts {
    /// The file they were found in: another file at the same path is not indexed.
    file: FileId,
    /// Rows per batch.
    capacity: u64,
    /// Byte offset of batch `k`'s first record; 0 while unknown (the header is at 0).
    starts: Box<[AtomicU64]>,
}

/// The most batches indexed per file (512 KiB of offsets); later batches are walked to.
const MAX_INDEXED: u64 = 1 << 16;

impl BatchStarts {
    /// An empty table for `files` files.
    pub(crate) fn new(files: usize) -> Self {
        Self {
            files: (0..files).map(|_| OnceLock::new()).collect(),
        }
    }

    /// File `index`'s starts (made now if none are), if they were found in `file` with
    /// batches of `capacity` rows; a table for another file or batch size is not replaced,
    /// so a partition reading it walks as before.
    fn file(
        &self,
        index: usize,
        file: FileId,
        plan: &DatasetPlan,
        capacity: u64,
    ) -> Option<&FileStarts> {
        let table = self.files.get(index)?.get_or_init(|| {
            // Row counts are read from the file: the table is sized by its length too
            // (a record takes at least a byte) and capped.
            let rows = plan.files().get(index).map_or(0, |f| f.rows);
            let batches = rows
                .min(file.len)
                .div_ceil(capacity.max(1))
                .min(MAX_INDEXED);
            FileStarts {
                file,
                capacity,
                starts: (0..batches).map(|_| AtomicU64::new(0)).collect(),
            }
        });
        (table.file == file && table.capacity == capacity).then_some(table)
    }
}

impl FileStarts {
    /// Where batch `k` starts, if known.
    fn get(&self, k: u64) -> Option<u64> {
        let at = self.starts.get(usize::try_from(k).ok()?)?;
        // The offset is the whole message: nothing else is published with it.
        Some(at.load(Ordering::Relaxed)).filter(|&o| o != 0)
    }

    /// Records that batch `k` starts at `offset` (once: a known start is only read, so the
    /// partitions do not keep writing one cache line).
    fn set(&self, k: u64, offset: u64) {
        let Some(at) = usize::try_from(k).ok().and_then(|k| self.starts.get(k)) else {
            return;
        };
        if at.load(Ordering::Relaxed) == 0 {
            at.store(offset, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests;
