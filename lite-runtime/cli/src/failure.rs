//! Why a `tessera` command failed, printed as `tessera: <file>: <what>, <where>` with a hint
//! when one is known, and the exit status each kind of failure gives.

use std::fmt::Display;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tessera_core::data::DataErrorKind;
use tessera_data::dataset::DatasetError;

/// Exit status of a run whose standard output was closed early (`tessera … | head`): what
/// `cat` gives in the same place, `128 + SIGPIPE`, so `set -o pipefail` scripts treat both
/// alike. Nothing is printed: the reader went away on purpose.
pub const CLOSED_OUTPUT: u8 = 141;
/// Exit status of a command line that does not parse (clap's).
pub const USAGE: u8 = 2;

/// A failed command.
#[derive(Debug)]
pub enum Failure {
    /// Standard output was closed (`EPIPE`): end quietly with [`CLOSED_OUTPUT`].
    ClosedOutput,
    /// Writing standard output failed otherwise (a full disk).
    Output(io::Error),
    /// The command line is valid clap-wise but asks for something impossible.
    Usage(String),
    /// Something about a file (or a dataset).
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong, then where in the file (`…, sample 3, byte 120`).
        what: String,
        /// What to try, when known.
        hint: Option<String>,
    },
    /// Anything else (the bundled run, the strings demo).
    Other {
        /// What is wrong.
        what: String,
        /// What to try, when known.
        hint: Option<String>,
    },
}

impl Failure {
    /// A failure about `path`.
    pub fn file(path: &Path, what: impl Display) -> Self {
        Self::File {
            path: path.to_owned(),
            what: what.to_string(),
            hint: None,
        }
    }

    /// A failure about nothing in particular.
    pub fn other(what: impl Display) -> Self {
        Self::Other {
            what: what.to_string(),
            hint: None,
        }
    }

    /// The same failure with `hint` (kept only on `File` and `Other`).
    pub fn hint(mut self, text: impl Display) -> Self {
        if let Self::File { hint, .. } | Self::Other { hint, .. } = &mut self {
            *hint = Some(text.to_string());
        }
        self
    }

    /// Prints the failure on stderr (nothing for a closed output) and gives the exit status.
    pub fn report(self) -> ExitCode {
        let (line, hint) = match self {
            Self::ClosedOutput => return ExitCode::from(CLOSED_OUTPUT),
            Self::Output(e) => (format!("standard output: {e}"), None),
            Self::Usage(what) => {
                eprint_lossy(&format!("tessera: {what}\n(see tessera --help)\n"));
                return ExitCode::from(USAGE);
            }
            Self::File { path, what, hint } => (format!("{}: {what}", path.display()), hint),
            Self::Other { what, hint } => (what, hint),
        };
        let mut text = format!("tessera: {line}\n");
        if let Some(h) = hint {
            text.push_str(&format!("  hint: {h}\n"));
        }
        eprint_lossy(&text);
        ExitCode::FAILURE
    }
}

/// Writes to stderr, ignoring failure: with stderr gone there is nowhere left to report to,
/// and the exit status still says what happened.
pub fn eprint_lossy(text: &str) {
    use std::io::Write;
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

impl From<io::Error> for Failure {
    /// A failed write to standard output (the only I/O done through `?` on the writer).
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::BrokenPipe => Self::ClosedOutput,
            _ => Self::Output(e),
        }
    }
}

impl From<DatasetError> for Failure {
    /// The dataset error as `<file>: <what>, <where>`; `Data` errors put the sample and byte
    /// after what is wrong (core's `DataError` prints them first).
    fn from(e: DatasetError) -> Self {
        let path = e.path().to_owned();
        let what = match &e {
            DatasetError::Data { error, .. } => {
                let mut w = error.kind.to_string();
                if let Some(s) = error.sample {
                    w.push_str(&format!(", sample {s}"));
                }
                w.push_str(&format!(", byte {}", error.offset));
                w
            }
            _ => {
                let text = e.to_string();
                let prefix = format!("{}: ", path.display());
                text.strip_prefix(&prefix).unwrap_or(&text).to_owned()
            }
        };
        let hint = match &e {
            DatasetError::Memory { .. } => {
                Some("a size in the file (or given as an option) is wrong for it".to_owned())
            }
            DatasetError::Data { error, .. } => match error.kind {
                DataErrorKind::RawSize { .. } => {
                    Some("check --dims and --raw-values against how the file was written".into())
                }
                _ => None,
            },
            _ => None,
        };
        Self::File { path, what, hint }
    }
}
