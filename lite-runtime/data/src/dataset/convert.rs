//! Any dataset to one Norm file, batch by batch: the Parquet → Norm converter.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use tessera_core::data::{BatchSource, Check, Key};

use super::error::DatasetError;
use super::norm_writer::NormWriter;
use super::source::DatasetSource;
use crate::buffers::{BatchBuffers, MemoryBudget};

/// How [`convert_to_norm`] sizes its batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Checksum framing of the output.
    pub check: Check,
    /// Samples per batch.
    pub batch_samples: usize,
    /// Keys per batch; one sample with more keys than this is an error. The batch buffers
    /// are checked against [`MemoryBudget::DEFAULT`] (a [`DatasetError::Memory`] over it).
    pub batch_keys: usize,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        Self {
            check: Check::Sum,
            batch_samples: 4096,
            batch_keys: 1 << 20,
        }
    }
}

/// What a conversion wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvertSummary {
    /// Samples written.
    pub records: u64,
    /// Samples the reader skipped (see [`DatasetSource::stats`]).
    pub skipped: u64,
}

/// Writes every sample of `reader` (a plan's serial pass,
/// [`DatasetPlan::source`](super::DatasetPlan::source), or a share of it) to the Norm file `out`, in order, with keys of type `K`.
///
/// The output is written to `out` + `.partial` and renamed to `out` only when complete, so
/// an error never leaves a valid-looking half file; the partial file is removed on error.
/// `progress(samples_read, announced)` is called after every batch.
pub fn convert_to_norm<K: Key>(
    reader: &mut DatasetSource<K>,
    out: &Path,
    options: ConvertOptions,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<ConvertSummary, DatasetError> {
    let partial = partial_path(out);
    let result = (|| {
        let file = File::create(&partial).map_err(DatasetError::io(&partial))?;
        let dims = reader.plan().dims();
        let announced = reader.plan().rows();
        let mut writer = NormWriter::<K, _>::new(
            BufWriter::with_capacity(1 << 20, file),
            partial.clone(),
            dims,
            options.check,
            announced,
        )?;
        let mut buffers = BatchBuffers::<K>::with_budget(
            dims,
            options.batch_samples,
            options.batch_keys,
            MemoryBudget::DEFAULT,
        )
        .map_err(|e| super::buffers::buffers_error(e, out))?;
        let mut batch = buffers.batch().map_err(|e| DatasetError::Config {
            path: out.to_owned(),
            reason: format!("batch: {e}"),
        })?;
        loop {
            batch.clear();
            if reader
                .next_batch(&mut batch)
                .map_err(|e| reader.error(e))?
                .is_none()
            {
                break;
            }
            writer.write_batch(&batch)?;
            let stats = reader.stats();
            progress(stats.decoded() + stats.skipped(), Some(announced));
        }
        let records = writer.records();
        writer.finish()?;
        std::fs::rename(&partial, out).map_err(DatasetError::io(out))?;
        Ok(ConvertSummary {
            records,
            skipped: reader.stats().skipped(),
        })
    })();
    if result.is_err() {
        // The error being returned says what went wrong; a leftover partial file would only
        // confuse, and failing to remove it changes nothing.
        let _ = std::fs::remove_file(&partial);
    }
    result
}

fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}
