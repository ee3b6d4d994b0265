//! The Parquet dataset reader: the files of a `_metadata.json` (or a file list), row group by
//! row group, a chunk of rows at a time, into the same batches as the Norm reader.

use std::fs::File;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::column::page::PageReader;
use parquet::column::reader::get_column_reader;
use parquet::errors::{ParquetError, Result as ParquetResult};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use tessera_core::data::{ErrorPolicy, Key, SampleBatch};

use super::chunk::{Chunk, SlotRange, Values};
use super::columns::{ColumnPlan, plan};
use super::metadata::ParquetMetadata;
use super::pages::CheckedPages;
use super::shared::{PageShare, SharedGroup, SharedPages};
use crate::dataset::error::{DatasetError, MetadataErrorKind, RowErrorKind};
use crate::dataset::file_list::{FileList, parent_dir};
use crate::dataset::stats::{FileStats, ReadStats};

/// How to read a Parquet dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParquetConfig {
    /// HugeCTR's `slot_size_array`: slot `i`'s ids must be below `slot_size_array[i]`, and
    /// its keys are the ids plus `sum(slot_size_array[..i])`. Without it, keys are the ids.
    pub slot_size_array: Option<Vec<u64>>,
    /// Stop at a bad row, or skip and count it.
    pub policy: ErrorPolicy,
    /// Rows decoded from the columns at a time (bounds the reader's own memory).
    pub chunk_rows: usize,
}

impl Default for ParquetConfig {
    fn default() -> Self {
        Self {
            slot_size_array: None,
            policy: ErrorPolicy::Stop,
            chunk_rows: 4096,
        }
    }
}

/// A Parquet dataset's metadata and files, and the reader of them behind
/// [`DatasetPlan::parquet`](crate::dataset::DatasetPlan::parquet) (keys of type `K`): read
/// its rows through the plan's sources.
///
/// Each sample is laid out as [`ParquetMetadata`] says: labels then dense features (each
/// ordered by their `index`), then one slot per `cats` entry in the listed order, so a
/// dataset converted from Norm reads back as the very same batches. Every file's footer row
/// count must equal its `file_stats` entry (and the sum of its row groups); a mismatch stops
/// the reader under either policy, as it means the metadata is stale. Under
/// [`ErrorPolicy::Skip`], rows with a null, an id out of its slot or a key that does not fit
/// `K` are skipped and counted.
pub struct ParquetReader<K: Key> {
    meta: ParquetMetadata,
    meta_path: PathBuf,
    files: Vec<PathBuf>,
    next: usize,
    config: ParquetConfig,
    ranges: Vec<SlotRange>,
    current: Option<OpenFile<K>>,
    stats: ReadStats,
    stopped: Option<PathBuf>,
    /// Row groups shared with the other workers of a partitioned pass (`None`: serial).
    share: Option<PageShare>,
}

struct OpenFile<K> {
    path: PathBuf,
    reader: SerializedFileReader<File>,
    plan: Vec<ColumnPlan>,
    /// The next row group to open.
    row_group: usize,
    /// Readers of the current row group, one per plan entry.
    readers: Vec<Values>,
    /// Whether the current row group's rows have been read or skipped yet: with a share,
    /// its pages are shared at that point (a row group passed over whole is never read).
    touched: bool,
    /// The shared state of the current row group, kept while this worker reads it so that
    /// the others find its pages.
    group: Option<Arc<SharedGroup>>,
    /// A later row group shared ahead of its first rows (see [`ParquetReader::prefetch`]).
    ahead: Option<(usize, Arc<SharedGroup>)>,
    /// Rows of the current row group not yet read into a chunk.
    left: u64,
    /// The file row of the next row to read into a chunk.
    next_row: u64,
    chunk: Chunk<K>,
}

impl<K: Key> ParquetReader<K> {
    /// A reader of the dataset at `source`: a directory or a `_metadata.json` (the files of
    /// its `file_stats`, in order), a file list (its files; the metadata is the
    /// `_metadata.json` beside the first), or one Parquet file (the metadata beside it).
    pub fn open(source: &Path, config: ParquetConfig) -> Result<Self, DatasetError> {
        let is_json = source.extension().is_some_and(|e| e == "json");
        let (meta_path, files) = if source.is_dir() || is_json {
            let meta_path = match source.is_dir() {
                true => source.join("_metadata.json"),
                false => source.to_owned(),
            };
            (meta_path, None)
        } else if FileList::sniff(source)? {
            let files = FileList::read(source)?.into_paths();
            let dir = files.first().map_or(parent_dir(source), |f| parent_dir(f));
            (dir.join("_metadata.json"), Some(files))
        } else {
            (
                parent_dir(source).join("_metadata.json"),
                Some(vec![source.to_owned()]),
            )
        };
        let meta = ParquetMetadata::read(&meta_path)?;
        let files = files.unwrap_or_else(|| {
            let dir = parent_dir(&meta_path);
            meta.file_stats
                .iter()
                .map(|f| dir.join(&f.file_name))
                .collect()
        });
        Self::new(meta, meta_path, files, config)
    }

    /// A reader of `files`, described by `meta` (read from `meta_path`, named in errors).
    pub fn new(
        meta: ParquetMetadata,
        meta_path: PathBuf,
        files: Vec<PathBuf>,
        config: ParquetConfig,
    ) -> Result<Self, DatasetError> {
        let slots = meta.cats.len();
        let ranges = match &config.slot_size_array {
            None => vec![
                SlotRange {
                    offset: 0,
                    size: None,
                };
                slots
            ],
            Some(sizes) if sizes.len() == slots => {
                let mut offset = 0u64;
                let mut ranges = Vec::with_capacity(slots);
                for &size in sizes {
                    ranges.push(SlotRange {
                        offset,
                        size: Some(size),
                    });
                    offset = offset
                        .checked_add(size)
                        .ok_or_else(|| DatasetError::Config {
                            path: meta_path.clone(),
                            reason: "slot_size_array sums past 2^64".into(),
                        })?;
                }
                ranges
            }
            Some(sizes) => {
                return Err(DatasetError::Config {
                    path: meta_path,
                    reason: format!(
                        "slot_size_array has {} entries, the dataset {slots} slots (cats)",
                        sizes.len()
                    ),
                });
            }
        };
        Ok(Self {
            meta,
            meta_path,
            files,
            next: 0,
            config,
            ranges,
            current: None,
            stats: ReadStats::default(),
            stopped: None,
            share: None,
        })
    }

    /// The same reader, one of the workers of a partitioned pass sharing `share`: the row
    /// groups it reads rows of are decompressed once between them (see [`PageShare`]), and
    /// it decodes no row past the batch it is asked for.
    pub(crate) fn with_share(mut self, share: PageShare) -> Self {
        self.share = Some(share);
        self
    }

    /// The dataset's metadata.
    pub fn metadata(&self) -> &ParquetMetadata {
        &self.meta
    }

    /// Where the metadata was read from.
    pub fn metadata_path(&self) -> &Path {
        &self.meta_path
    }

    /// The data files, in order.
    pub fn paths(&self) -> &[PathBuf] {
        &self.files
    }

    /// The `num_rows` of `file` in `file_stats`, matched by its trailing path components.
    pub(crate) fn listed_rows(&self, file: &Path) -> Result<u64, DatasetError> {
        self.meta
            .file_stats
            .iter()
            .find(|f| file.ends_with(&f.file_name))
            .map(|f| f.num_rows)
            .ok_or_else(|| DatasetError::Metadata {
                path: self.meta_path.clone(),
                kind: MetadataErrorKind::NotListed {
                    file_name: file.display().to_string(),
                },
            })
    }

    fn open_next(&mut self) -> Result<bool, DatasetError> {
        let Some(path) = self.files.get(self.next).cloned() else {
            return Ok(false);
        };
        self.next += 1;
        self.stats.files.push(FileStats::new(&path));
        let listed = self.listed_rows(&path)?;
        let file = File::open(&path).map_err(DatasetError::io(&path))?;
        let file_len = file.metadata().map_err(DatasetError::io(&path))?.len();
        let reader = guarded(&path, || SerializedFileReader::new(file))?;
        let md = reader.metadata();
        check_chunks(&path, md, file_len)?;
        let footer = u64::try_from(md.file_metadata().num_rows()).unwrap_or(u64::MAX);
        let groups = md
            .row_groups()
            .iter()
            .map(|g| u64::try_from(g.num_rows()).unwrap_or(u64::MAX))
            .fold(0u64, u64::saturating_add);
        let mismatch = if footer != listed {
            Some(("_metadata.json", listed, footer))
        } else if groups != footer {
            Some(("footer", footer, groups))
        } else {
            None
        };
        if let Some((expected_from, expected, found)) = mismatch {
            return Err(DatasetError::RowCount {
                path,
                expected_from,
                expected,
                found,
            });
        }
        let plan = plan(md.file_metadata().schema_descr(), &self.meta, &path)?;
        self.current = Some(OpenFile {
            path,
            reader,
            plan,
            row_group: 0,
            readers: Vec::new(),
            touched: false,
            group: None,
            ahead: None,
            left: 0,
            next_row: 0,
            chunk: Chunk::new(),
        });
        Ok(true)
    }

    /// Reads the next `max` rows (decoded or skipped) into `batch`, or fewer if the batch
    /// fills up in keys or the files end; returns the rows used.
    pub(crate) fn read_records(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
        max: u64,
    ) -> Result<u64, DatasetError> {
        self.guard(|r| r.run(Some(batch), max))
    }

    /// Passes over the next `n` rows without turning them into samples (another worker's
    /// batch; bad rows there are its owner's to report); returns the rows passed.
    pub(crate) fn pass_records(&mut self, n: u64) -> Result<u64, DatasetError> {
        self.guard(|r| r.run(None, n))
    }

    /// With a share: takes this worker's part in decompressing the row group that holds the
    /// row `rows` rows on (the first of its next batch), if that is a later row group. A
    /// worker that does this as soon as it has read a batch helps with the pages while the
    /// others are still reading that row group, instead of finding them all done, or all to
    /// do, when its turn comes. Faults are left for the rows' reading to meet, as ever.
    ///
    /// Its part is the columns `c` with `c % workers == worker`: a worker that runs ahead
    /// of the others (one whose batches wait in its queue while the consumer decodes its
    /// own) leaves them theirs, instead of decompressing the whole row group alone while
    /// they decode. What is still open when a worker needs the pages, it decompresses then.
    pub(crate) fn prefetch(&mut self, rows: u64, worker: u64, workers: u64) {
        if let (Some(share), Some(file)) = (self.share.as_ref(), self.current.as_mut()) {
            file.prefetch(share, rows, (worker, workers));
        }
    }

    /// The per-file account, for a [`DatasetSource`](crate::dataset::DatasetSource) to take
    /// over.
    pub(crate) fn stats_mut(&mut self) -> &mut ReadStats {
        &mut self.stats
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

    /// The row loop: up to `max` rows into `batch` (or passed over, without one), across
    /// row groups and files; returns the rows used. With a batch, it also returns once the
    /// batch is full.
    fn run(
        &mut self,
        mut batch: Option<&mut SampleBatch<'_, K>>,
        max: u64,
    ) -> Result<u64, DatasetError> {
        let mut used = 0u64;
        loop {
            let Some(file) = self.current.as_mut() else {
                if used >= max || !self.open_next()? {
                    return Ok(used);
                }
                continue;
            };
            let stats = self.stats.files.last_mut();
            let more = match batch.as_deref_mut() {
                Some(b) => emit(file, b, self.config.policy, stats, &mut used, max)?,
                None => {
                    let n = (file.chunk.pending() as u64).min(max - used);
                    // `n` is at most `pending()`, a usize.
                    file.chunk.cursor += n as usize;
                    used += n;
                    used < max
                }
            };
            if !more {
                return Ok(used);
            }
            if file.left == 0 {
                if file.row_group >= file.reader.num_row_groups() {
                    if let Some(f) = self.stats.files.last_mut() {
                        f.done = true;
                    }
                    self.current = None;
                    continue;
                }
                file.open_row_group()?;
                continue;
            }
            if batch.is_none() {
                // Passing over rows: the rest of the row group is dropped unread; fewer rows
                // are skipped in every column without decoding their values.
                let n = file.left.min(max - used);
                if n < file.left {
                    let rows = usize::try_from(n).unwrap_or(usize::MAX);
                    file.touch(self.share.as_ref());
                    let (readers, plan) = (&mut file.readers, &file.plan);
                    guarded(&file.path, || skip_rows(readers, plan, rows))?;
                }
                used += n;
                file.next_row += n;
                file.left -= n;
                continue;
            }
            let mut rows = (self.config.chunk_rows.max(1) as u64).min(file.left);
            if self.share.is_some() {
                // A worker's rows end with its batch; the rows after it are another
                // worker's, to skip rather than decode.
                rows = rows.min(max - used).max(1);
            }
            let rows = usize::try_from(rows).unwrap_or(1);
            file.touch(self.share.as_ref());
            let (plan, readers, first) = (&file.plan, &mut file.readers, file.next_row);
            let (chunk, ranges) = (&mut file.chunk, &self.ranges);
            guarded(&file.path, || {
                chunk.read(plan, readers, ranges, rows, first)
            })?;
            file.left -= rows as u64;
            file.next_row += rows as u64;
        }
    }
}

impl<K: Key> OpenFile<K> {
    fn open_row_group(&mut self) -> Result<(), DatasetError> {
        let (reader, plan, index) = (&self.reader, &self.plan, self.row_group);
        let (readers, rows) = guarded(&self.path, || {
            let group = reader.get_row_group(index)?;
            let schema = group.metadata().schema_descr();
            let mut readers = Vec::with_capacity(plan.len());
            for p in plan {
                let descr = schema.column(p.leaf);
                let pages = CheckedPages::new(group.get_column_page_reader(p.leaf)?, &descr);
                let column = get_column_reader(descr, Box::new(pages));
                // Cannot fail: the plan checked the column's physical type.
                let values = Values::new(column).ok_or_else(|| {
                    ParquetError::General(format!("column {:?} changed type", p.name))
                })?;
                readers.push(values);
            }
            Ok((readers, group.metadata().num_rows()))
        })?;
        self.left = u64::try_from(rows).unwrap_or(0);
        self.readers = readers;
        self.touched = false;
        self.group = None;
        self.row_group += 1;
        Ok(())
    }

    /// Before the current row group's first rows are read or skipped: with a share, reads
    /// its columns' pages through it and reads those from memory from here on. A column the
    /// share does not hold keeps the reader made at the row group's opening, which reads the
    /// file itself (and meets any fault where a serial pass meets it).
    fn prefetch(&mut self, share: &PageShare, rows: u64, part: (u64, u64)) {
        // The row `rows` on from the next one to hand out, and the row group holding it.
        let target = (self.next_row - self.chunk.pending() as u64).saturating_add(rows);
        let mut end = 0u64;
        let groups = self.reader.metadata().row_groups();
        let Some(index) = groups.iter().position(|g| {
            end = end.saturating_add(u64::try_from(g.num_rows()).unwrap_or(0));
            target < end
        }) else {
            return;
        };
        let later = index >= self.row_group;
        if !later || self.ahead.as_ref().is_some_and(|(i, _)| *i == index) {
            return;
        }
        let group = share.group(&self.path, index, self.plan.len());
        let (worker, workers) = part;
        group.help(
            |c| (c as u64) % workers.max(1) == worker,
            |c| self.column_pages(index, c),
        );
        self.ahead = Some((index, group));
    }

    /// The pages of planned column `c` of row group `index`, read from the file (what a
    /// worker decompresses for the share).
    fn column_pages(&self, index: usize, c: usize) -> ParquetResult<Box<dyn PageReader>> {
        let leaf = self.plan.get(c).map_or(usize::MAX, |p| p.leaf);
        self.reader
            .get_row_group(index)?
            .get_column_page_reader(leaf)
    }

    fn touch(&mut self, share: Option<&PageShare>) {
        let Some(share) = share.filter(|_| !self.touched) else {
            return;
        };
        self.touched = true;
        let index = self.row_group.saturating_sub(1);
        // The group shared ahead is this one (or an earlier one, passed over): take it,
        // rather than drop it first and find it gone if no other worker holds it.
        let group = match self.ahead.take_if(|(i, _)| *i <= index) {
            Some((i, group)) if i == index => group,
            _ => share.group(&self.path, index, self.plan.len()),
        };
        let pages = group.pages(|c| self.column_pages(index, c));
        let schema = self.reader.metadata().file_metadata().schema_descr();
        for ((values, p), pages) in self.readers.iter_mut().zip(&self.plan).zip(pages) {
            let Some(pages) = pages else { continue };
            let descr = schema.column(p.leaf);
            let pages = CheckedPages::new(Box::new(SharedPages::new(pages)), &descr);
            if let Some(v) = Values::new(get_column_reader(descr, Box::new(pages))) {
                *values = v;
            }
        }
        self.group = Some(group);
    }
}

/// Moves the chunk's pending rows into `batch`, counting each row (decoded or skipped) in
/// `used`; `false` if the batch filled up or `used` reached `max` first.
fn emit<K: Key>(
    file: &mut OpenFile<K>,
    batch: &mut SampleBatch<'_, K>,
    policy: ErrorPolicy,
    mut stats: Option<&mut FileStats>,
    used: &mut u64,
    max: u64,
) -> Result<bool, DatasetError> {
    let chunk = &mut file.chunk;
    let floats = chunk.floats.len();
    while chunk.pending() > 0 {
        if *used >= max {
            return Ok(false);
        }
        let r = chunk.cursor;
        let row = chunk.first_row + r as u64;
        let error = |col: usize, kind| DatasetError::Row {
            path: file.path.clone(),
            row,
            column: file
                .plan
                .get(col)
                .map_or_else(String::new, |p| p.name.clone()),
            kind,
        };
        if let Some((col, kind)) = chunk.bad[r] {
            if policy == ErrorPolicy::Stop {
                return Err(error(col, kind));
            }
            if let Some(s) = stats.as_deref_mut() {
                s.skipped += 1;
                s.first_skipped.get_or_insert_with(|| error(col, kind));
            }
            chunk.cursor += 1;
            *used += 1;
            continue;
        }
        let result = {
            let Ok(mut w) = batch.begin() else {
                return Ok(false);
            };
            for (d, col) in w.label_dense().iter_mut().zip(&chunk.floats) {
                *d = col[r];
            }
            let mut failed = None;
            for (slot, (offsets, keys)) in chunk.slots.iter().enumerate() {
                if let Err(e) = w.push_slot(&keys[offsets[r]..offsets[r + 1]]) {
                    failed = Some((floats + slot, e));
                    break;
                }
            }
            // Unfinished, the writer rolls the half-written sample back as it drops here.
            match failed {
                Some(f) => Err(f),
                None => w.finish().map_err(|e| (floats, e)),
            }
        };
        if let Err((col, e)) = result {
            if batch.samples() > 0 {
                return Ok(false);
            }
            return Err(error(col, RowErrorKind::Batch(e)));
        }
        if let Some(s) = stats.as_deref_mut() {
            s.decoded += 1;
        }
        chunk.cursor += 1;
        *used += 1;
    }
    Ok(true)
}

/// Skips `rows` records in every column of a row group; a column with fewer is corrupt.
fn skip_rows(readers: &mut [Values], plan: &[ColumnPlan], rows: usize) -> Result<(), ParquetError> {
    for (values, p) in readers.iter_mut().zip(plan) {
        let skipped = values.skip(rows)?;
        if skipped != rows {
            return Err(ParquetError::General(format!(
                "column {:?} ended after {skipped} of {rows} rows",
                p.name
            )));
        }
    }
    Ok(())
}

/// A Parquet file's footer: its row count and number of row groups (for `inspect`).
pub fn parquet_footer(path: &Path) -> Result<(u64, usize), DatasetError> {
    let file = File::open(path).map_err(DatasetError::io(path))?;
    let reader = guarded(path, || SerializedFileReader::new(file))?;
    let md = reader.metadata();
    let rows = u64::try_from(md.file_metadata().num_rows()).unwrap_or(0);
    Ok((rows, md.num_row_groups()))
}

/// Checks that every column chunk the footer describes lies inside the file. The `parquet`
/// crate asserts that offsets and sizes are not negative (a panic on a corrupt footer) and
/// finds a chunk past the end only when it reads there.
fn check_chunks(path: &Path, md: &ParquetMetaData, file_len: u64) -> Result<(), DatasetError> {
    for (row_group, group) in md.row_groups().iter().enumerate() {
        for chunk in group.columns() {
            let start = chunk
                .dictionary_page_offset()
                .unwrap_or(chunk.data_page_offset());
            let len = chunk.compressed_size();
            let end = u64::try_from(start)
                .ok()
                .zip(u64::try_from(len).ok())
                .and_then(|(start, len)| start.checked_add(len));
            if end.is_none_or(|end| end > file_len) {
                return Err(DatasetError::ColumnChunk {
                    path: path.to_owned(),
                    row_group,
                    column: chunk.column_path().string(),
                    start,
                    len,
                    file_len,
                });
            }
        }
    }
    Ok(())
}

/// Runs a call into the `parquet` crate, turning a panic into an error.
///
/// The crate (as of 59) panics on some corrupt files: on a negative column-chunk offset in the
/// footer, a dictionary-encoded page with no dictionary, a byte-stream-split page too short
/// for its values. [`check_chunks`] and [`CheckedPages`] turn those into errors before they
/// reach the crate; no single-byte corruption of the fixtures panics any more (a test flips
/// them all). This guard stays for faults not yet found, because these readers promise an
/// error, never a panic, on bad input. The reader stops at the error, so no state the panic
/// left half-updated is used again. The panic hook still runs (a message on stderr), and a
/// build with `panic = "abort"` aborts instead.
fn guarded<T>(
    path: &Path,
    call: impl FnOnce() -> Result<T, ParquetError>,
) -> Result<T, DatasetError> {
    match std::panic::catch_unwind(AssertUnwindSafe(call)) {
        // The path is copied only on an error: this runs per batch.
        Ok(result) => result.map_err(|source| DatasetError::Parquet {
            path: path.to_owned(),
            source,
        }),
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("no message");
            Err(DatasetError::Parquet {
                path: path.to_owned(),
                source: ParquetError::General(format!(
                    "corrupt file: the Parquet decoder panicked ({message})"
                )),
            })
        }
    }
}
