//! Decompressed column chunks shared by the workers of a partitioned pass, so that a row
//! group two workers both read is read from the file and decompressed once, not once each.
//!
//! A partition passes over the other workers' batches, but its own batches and theirs share
//! row groups, and passing over rows inside a page still means decompressing the page: so
//! before this, every worker decompressed every page (about 30% of the serial pass over the
//! benchmark dataset, done twice by a 2-worker set). Now the workers claim a row group's
//! columns one at a time, decompress the ones they claimed and publish the pages; each then
//! decodes its own rows from the shared pages.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};

use parquet::column::page::{Page, PageMetadata, PageReader};
use parquet::errors::Result;

/// Decompressed bytes a row group's shared pages may hold. A column whose pages would go
/// past it is not shared: each worker streams it page by page from the file, as a serial
/// pass does, so a row group's memory stays bounded whatever its footer claims.
const GROUP_BYTES: usize = 64 << 20;

/// The row groups being read by the workers of one plan, found by file and row group.
///
/// Only weak references are kept: a row group's pages live as long as a worker is reading
/// the row group, so the share holds nothing once the workers have moved on.
#[derive(Clone, Default)]
pub(crate) struct PageShare {
    groups: Arc<Mutex<Vec<Entry>>>,
    /// Row groups shared so far: each is decompressed once, so in a pass whose workers
    /// keep every row group they read until the others have found it, one per row group.
    made: Arc<AtomicUsize>,
}

struct Entry {
    path: PathBuf,
    row_group: usize,
    group: Weak<SharedGroup>,
}

impl core::fmt::Debug for PageShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PageShare").finish_non_exhaustive()
    }
}

impl PageShare {
    /// How many row groups have been shared (made by [`group`](Self::group)) so far.
    #[cfg(test)]
    pub(crate) fn made(&self) -> usize {
        self.made.load(Ordering::Relaxed)
    }

    /// The shared state of `row_group` of `path` with `columns` planned columns: the one a
    /// worker still reading it holds, or a new one.
    pub(super) fn group(&self, path: &Path, row_group: usize, columns: usize) -> Arc<SharedGroup> {
        let mut groups = lock(&self.groups);
        let found = groups
            .iter()
            .filter(|e| e.row_group == row_group && e.path == path)
            .find_map(|e| e.group.upgrade())
            .filter(|g| g.columns == columns);
        if let Some(group) = found {
            return group;
        }
        groups.retain(|e| e.group.strong_count() > 0);
        self.made.fetch_add(1, Ordering::Relaxed);
        let group = Arc::new(SharedGroup::new(columns));
        groups.push(Entry {
            path: path.to_owned(),
            row_group,
            group: Arc::downgrade(&group),
        });
        group
    }
}

/// One row group's columns, each open (unclaimed), being decompressed by a worker, or done.
pub(super) struct SharedGroup {
    columns: usize,
    state: Mutex<GroupState>,
    changed: Condvar,
}

struct GroupState {
    slots: Vec<Slot>,
    /// Decompressed bytes held by the ready columns.
    bytes: usize,
}

enum Slot {
    Open,
    Taken,
    Ready(Arc<[Page]>),
    /// Not shared (a fault, or over [`GROUP_BYTES`]): every worker reads it from its file.
    Unshared,
}

impl SharedGroup {
    fn new(columns: usize) -> Self {
        let slots = (0..columns).map(|_| Slot::Open).collect();
        Self {
            columns,
            state: Mutex::new(GroupState { slots, bytes: 0 }),
            changed: Condvar::new(),
        }
    }

    /// Decompresses every column no worker has claimed yet (`open(c)` gives column `c`'s
    /// pages from this worker's file), then waits for the columns other workers claimed.
    /// Returns each column's shared pages, `None` for a column each worker reads itself.
    ///
    /// A worker waits only for columns another worker is decompressing at that moment (a
    /// claim is finished before its claimant waits), so the workers cannot wait on each
    /// other. A fault while decompressing (an error, or a panic in the `parquet` crate) makes
    /// the column unshared rather than failing here: each worker then streams it as a
    /// serial pass does and meets the fault where the serial pass meets it.
    pub(super) fn pages(
        &self,
        open: impl FnMut(usize) -> Result<Box<dyn PageReader>>,
    ) -> Vec<Option<Arc<[Page]>>> {
        self.help(|_| true, open);
        let mut state = lock(&self.state);
        loop {
            if !state.slots.iter().any(|s| matches!(s, Slot::Taken)) {
                break;
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state
            .slots
            .iter()
            .map(|s| match s {
                Slot::Ready(pages) => Some(pages.clone()),
                _ => None,
            })
            .collect()
    }

    /// Decompresses every column `mine` accepts that no worker has claimed yet, waiting for
    /// none.
    pub(super) fn help(
        &self,
        mine: impl Fn(usize) -> bool,
        mut open: impl FnMut(usize) -> Result<Box<dyn PageReader>>,
    ) {
        while let Some(column) = self.claim(&mine) {
            let claim = Claim {
                group: self,
                column,
                pages: None,
            };
            let budget = GROUP_BYTES.saturating_sub(lock(&self.state).bytes);
            let read = catch_unwind(AssertUnwindSafe(|| {
                open(column).and_then(|pages| read_all(pages, budget))
            }));
            claim.finish(read.ok().and_then(|r| r.ok()).flatten());
        }
    }

    /// The first open column `mine` accepts, now taken by the caller.
    fn claim(&self, mine: impl Fn(usize) -> bool) -> Option<usize> {
        let mut state = lock(&self.state);
        let column = (state.slots.iter().enumerate())
            .position(|(c, s)| matches!(s, Slot::Open) && mine(c))?;
        state.slots[column] = Slot::Taken;
        Some(column)
    }
}

/// A column being decompressed; dropped unfinished (a panic outside the `parquet` crate),
/// it leaves the column unshared, so no worker waits for it forever.
struct Claim<'g> {
    group: &'g SharedGroup,
    column: usize,
    pages: Option<Vec<Page>>,
}

impl Claim<'_> {
    fn finish(mut self, pages: Option<Vec<Page>>) {
        self.pages = pages;
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut state = lock(&self.group.state);
        let slot = match self.pages.take() {
            Some(pages) => {
                let bytes = pages.iter().map(|p| p.buffer().len()).sum::<usize>();
                match state.bytes.checked_add(bytes) {
                    Some(total) if total <= GROUP_BYTES => {
                        state.bytes = total;
                        Slot::Ready(pages.into())
                    }
                    _ => Slot::Unshared,
                }
            }
            None => Slot::Unshared,
        };
        if let Some(s) = state.slots.get_mut(self.column) {
            *s = slot;
        }
        drop(state);
        self.group.changed.notify_all();
    }
}

/// Every page of a column chunk, decompressed; `None` once they pass `budget` bytes.
fn read_all(mut reader: Box<dyn PageReader>, budget: usize) -> Result<Option<Vec<Page>>> {
    let mut pages = Vec::new();
    let mut bytes = 0usize;
    while let Some(page) = reader.get_next_page()? {
        bytes = bytes.saturating_add(page.buffer().len());
        if bytes > budget {
            return Ok(None);
        }
        pages.push(page);
    }
    Ok(Some(pages))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update leaves the state whole (one slot or counter at a time): a poisoned lock
    // is fine to use.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A column chunk's shared pages, handed to a column reader one at a time as the file's
/// page reader would hand them (no offset index: version-1 data pages say no row count).
pub(super) struct SharedPages {
    pages: Arc<[Page]>,
    next: usize,
}

impl SharedPages {
    pub(super) fn new(pages: Arc<[Page]>) -> Self {
        Self { pages, next: 0 }
    }
}

impl Iterator for SharedPages {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Result<Page>> {
        self.get_next_page().transpose()
    }
}

impl PageReader for SharedPages {
    fn get_next_page(&mut self) -> Result<Option<Page>> {
        let page = self.pages.get(self.next).cloned();
        self.next += usize::from(page.is_some());
        Ok(page)
    }

    fn peek_next_page(&mut self) -> Result<Option<PageMetadata>> {
        Ok(self.pages.get(self.next).map(|page| match page {
            Page::DataPage { num_values, .. } => PageMetadata {
                num_rows: None,
                num_levels: Some(*num_values as usize),
                is_dict: false,
            },
            Page::DataPageV2 {
                num_values,
                num_rows,
                ..
            } => PageMetadata {
                num_rows: Some(*num_rows as usize),
                num_levels: Some(*num_values as usize),
                is_dict: false,
            },
            Page::DictionaryPage { .. } => PageMetadata {
                num_rows: None,
                num_levels: None,
                is_dict: true,
            },
        }))
    }

    fn skip_next_page(&mut self) -> Result<()> {
        self.next = (self.next + 1).min(self.pages.len());
        Ok(())
    }
}

#[cfg(test)]
mod tests;
