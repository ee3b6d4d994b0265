//! Batch memory for the dataset readers' own passes (`summarize`, `convert_to_norm`): the
//! one [`BatchBuffers`](crate::buffers::BatchBuffers) type, its errors named for a file.

use std::path::Path;

use super::error::DatasetError;
use crate::buffers::BuffersError;

/// A batch-buffer failure as a dataset error about `path`.
pub(crate) fn buffers_error(e: BuffersError, path: &Path) -> DatasetError {
    match e {
        BuffersError::Budget(error) => DatasetError::Memory {
            path: path.to_owned(),
            error,
        },
        other => DatasetError::Config {
            path: path.to_owned(),
            reason: format!("batch: {other}"),
        },
    }
}
