//! HugeCTR's file list: a text file holding the number of data files on its first line, then
//! one path per line.

use std::fmt;
use std::path::{Path, PathBuf};

use super::error::DatasetError;

/// The data files of a file list, in order.
///
/// Relative paths resolve against the directory of the list, not the working directory:
/// a dataset directory then reads the same from anywhere (HugeCTR resolves them against the
/// working directory, so lists written for it with `./dir/file` paths relative to the list's
/// parent still work when the program runs in that parent). Leading and trailing whitespace
/// (a `\r` of CRLF included) is trimmed from every line, and blank lines after the last path
/// are ignored; a blank line between paths is an error.
///
/// ```
/// use std::path::Path;
/// use tessera_data::dataset::FileList;
///
/// let list = FileList::parse("2\n./a.data\n/data/b.data\n", Path::new("/lists")).unwrap();
/// assert_eq!(list.paths()[0], Path::new("/lists/./a.data"));
/// assert_eq!(list.paths()[1], Path::new("/data/b.data"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileList {
    paths: Vec<PathBuf>,
}

/// What is wrong with a file list, and on which line (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileListError {
    /// The line at fault, from 1 (for a count mismatch: the count's line, 1).
    pub line: usize,
    /// What is wrong.
    pub kind: FileListErrorKind,
}

/// What is wrong with a file list.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileListErrorKind {
    /// The list is empty: no count line.
    MissingCount,
    /// The first line is not a non-negative decimal number.
    BadCount {
        /// The line, trimmed.
        text: String,
    },
    /// The count disagrees with the number of paths.
    CountMismatch {
        /// The count on line 1.
        announced: u64,
        /// Paths that follow.
        found: usize,
    },
    /// A blank line among the paths.
    EmptyPath,
    /// The list is not UTF-8 text.
    NotText,
}

impl fmt::Display for FileListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            FileListErrorKind::MissingCount => f.write_str("empty file list, no file count"),
            FileListErrorKind::BadCount { text } => {
                write!(f, "file count {text:?} is not a number")
            }
            FileListErrorKind::CountMismatch { announced, found } => {
                write!(f, "the list announces {announced} files and has {found}")
            }
            FileListErrorKind::EmptyPath => f.write_str("empty path"),
            FileListErrorKind::NotText => f.write_str("not UTF-8 text"),
        }
    }
}

impl std::error::Error for FileListError {}

impl FileList {
    /// Parses a list's text; relative paths resolve against `dir` (the list's directory).
    pub fn parse(text: &str, dir: &Path) -> Result<Self, FileListError> {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let used = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        let Some((count, paths)) = lines[..used].split_first() else {
            return Err(FileListError {
                line: 1,
                kind: FileListErrorKind::MissingCount,
            });
        };
        let announced: u64 = count.parse().map_err(|_| FileListError {
            line: 1,
            kind: FileListErrorKind::BadCount {
                text: (*count).to_owned(),
            },
        })?;
        if let Some(i) = paths.iter().position(|p| p.is_empty()) {
            return Err(FileListError {
                line: i + 2,
                kind: FileListErrorKind::EmptyPath,
            });
        }
        if u64::try_from(paths.len()) != Ok(announced) {
            return Err(FileListError {
                line: 1,
                kind: FileListErrorKind::CountMismatch {
                    announced,
                    found: paths.len(),
                },
            });
        }
        let paths = paths.iter().map(|p| dir.join(p)).collect();
        Ok(Self { paths })
    }

    /// Reads and parses the list at `path`.
    pub fn read(path: &Path) -> Result<Self, DatasetError> {
        let bytes = super::input::read_text(path)?;
        let list_error = |error| DatasetError::FileList {
            path: path.to_owned(),
            error,
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            list_error(FileListError {
                line,
                kind: FileListErrorKind::NotText,
            })
        })?;
        Self::parse(text, &parent_dir(path)).map_err(list_error)
    }

    /// Whether the start of the file at `path` looks like a file list (a line holding only
    /// a decimal count) rather than a binary data file; reads at most 64 bytes. Binary
    /// Norm headers start with `error_check`, a 0 or 1 `int64`, so they never do.
    pub fn sniff(path: &Path) -> Result<bool, DatasetError> {
        use std::io::Read;
        let mut head = [0u8; 64];
        let mut file = std::fs::File::open(path).map_err(DatasetError::io(path))?;
        let mut n = 0;
        while n < head.len() {
            match file.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(DatasetError::io(path)(e)),
            }
        }
        let head = &head[..n];
        let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let first = first.trim_ascii();
        let ends_line = first.len() < head.len();
        Ok(ends_line && !first.is_empty() && first.iter().all(u8::is_ascii_digit))
    }

    /// The data files behind `path`: the entries of a file list (told apart by
    /// [`sniff`](Self::sniff)), or `path` itself for a data file.
    pub fn resolve(path: &Path) -> Result<Vec<PathBuf>, DatasetError> {
        if Self::sniff(path)? {
            Ok(Self::read(path)?.into_paths())
        } else {
            Ok(vec![path.to_owned()])
        }
    }

    /// The data files, in list order.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The data files, owned.
    pub fn into_paths(self) -> Vec<PathBuf> {
        self.paths
    }
}

/// The directory `path` is in (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests;
