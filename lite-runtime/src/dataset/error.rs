//! Errors of the dataset readers: every one names the file, and where inside it the fault is
//! (line, or sample and byte offset).

use std::fmt;
use std::io;
use std::path::PathBuf;

use tessera_core::data::DataError;

use super::file_list::FileListError;

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
    /// The reader's configuration disagrees with the dataset.
    Config {
        /// The file or metadata the configuration was checked against.
        path: PathBuf,
        /// What disagrees.
        reason: String,
    },
    /// The reader stopped at an earlier error (returned then) and reads nothing more.
    Stopped {
        /// The file the earlier error was in.
        path: PathBuf,
    },
}

impl DatasetError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            Self::Io { path, .. }
            | Self::FileList { path, .. }
            | Self::Data { path, .. }
            | Self::Config { path, .. }
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
            Self::Config { reason, .. } => write!(f, "{p}: {reason}"),
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
            _ => None,
        }
    }
}
