//! What a reader has read so far, per file and in total: decoded and skipped samples, and
//! why the first skipped one was bad.

use std::path::{Path, PathBuf};

use super::error::DatasetError;

/// One file's account.
#[derive(Debug)]
pub struct FileStats {
    /// The file.
    pub path: PathBuf,
    /// Samples added to batches.
    pub decoded: u64,
    /// Samples left out under [`ErrorPolicy::Skip`](tessera_core::data::ErrorPolicy::Skip),
    /// including those a truncated file announced but did not hold, and all of a file
    /// skipped whole.
    pub skipped: u64,
    /// Whether the whole file was skipped (its header disagreed with the configuration).
    pub skipped_whole: bool,
    /// The error behind the first skip.
    pub first_skipped: Option<DatasetError>,
    /// Whether the file has been read to its end.
    pub done: bool,
}

impl FileStats {
    pub(crate) fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            decoded: 0,
            skipped: 0,
            skipped_whole: false,
            first_skipped: None,
            done: false,
        }
    }
}

/// A reader's account: one [`FileStats`] per file started, in order, and the totals.
#[derive(Debug, Default)]
pub struct ReadStats {
    /// The files started so far.
    pub files: Vec<FileStats>,
}

impl ReadStats {
    /// Samples decoded, all files.
    pub fn decoded(&self) -> u64 {
        self.files.iter().map(|f| f.decoded).sum()
    }

    /// Samples skipped, all files.
    pub fn skipped(&self) -> u64 {
        self.files.iter().map(|f| f.skipped).sum()
    }

    /// Files skipped whole.
    pub fn files_skipped(&self) -> usize {
        self.files.iter().filter(|f| f.skipped_whole).count()
    }

    /// The file being read (the last started).
    pub(crate) fn current(&mut self) -> Option<&mut FileStats> {
        self.files.last_mut()
    }
}
