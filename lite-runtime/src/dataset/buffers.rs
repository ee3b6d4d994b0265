//! Batch memory for the dataset readers' own passes (`summarize`, `convert_to_norm`): the
//! one [`BatchBuffers`](crate::cursor_set::BatchBuffers) type, its errors named for a file.

use std::path::Path;

use super::error::DatasetError;
use crate::cursor_set::CursorSetError;

/// A batch-buffer failure as a dataset error about `path`.
pub(crate) fn buffers_error(e: CursorSetError, path: &Path) -> DatasetError {
    match e {
        CursorSetError::Budget(error) => DatasetError::Memory {
            path: path.to_owned(),
            error,
        },
        other => DatasetError::Config {
            path: path.to_owned(),
            reason: format!("batch: {other}"),
        },
    }
}
