//! The interface every dataset reader offers: batches in, across all files of a dataset.

use tessera_core::data::{Dims, Key, SampleBatch};

use super::error::DatasetError;
use super::stats::ReadStats;

/// A reader of a whole dataset (every file of a list, in order) into [`SampleBatch`]es.
///
/// Batches span file boundaries: a batch is filled until it is full (in samples or keys) or
/// the dataset ends, so the same samples in any format and any split into files give the
/// same batches.
///
/// ```no_run
/// use tessera_core::data::{Dims, NormConfig, SampleBatch};
/// use tessera_lite::dataset::{BatchReader, NormReader};
///
/// let config = NormConfig::new(Dims::new(1, 13, 26), 1);
/// let mut reader = NormReader::<u32>::open("train/file_list.txt".as_ref(), config)?;
/// let (mut ld, mut offsets, mut keys) = (vec![0f32; 1024 * 14], vec![0u32; 1024 * 26 + 1],
///     vec![0u32; 1024 * 26]);
/// let mut batch = SampleBatch::new(config.dims, &mut ld, &mut offsets, &mut keys)?;
/// while let Some(samples) = reader.next_batch(&mut batch)? {
///     // use batch.label_dense(), batch.csr() …
///     # let _ = samples;
/// }
/// println!("{} decoded, {} skipped", reader.stats().decoded(), reader.stats().skipped());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait BatchReader<K: Key> {
    /// The shape of the samples this reader produces; batches must have it.
    fn dims(&self) -> Dims;

    /// Clears `batch` and fills it with the next samples. Returns the number of samples in
    /// it, or `None` once the dataset is exhausted (the batch is then empty).
    ///
    /// An error stops the reader: it is returned once, and every later call returns
    /// [`DatasetError::Stopped`].
    fn next_batch(&mut self, batch: &mut SampleBatch<'_, K>)
    -> Result<Option<usize>, DatasetError>;

    /// Samples decoded and skipped so far, per file and in total.
    fn stats(&self) -> &ReadStats;

    /// The samples the dataset announces (headers, file sizes or metadata) where known
    /// before reading; for progress reports.
    fn announced_samples(&self) -> Option<u64> {
        None
    }
}

/// Errors unless `batch` has the reader's dims.
pub(crate) fn check_dims<K: Key>(
    dims: Dims,
    batch: &SampleBatch<'_, K>,
    path: &std::path::Path,
) -> Result<(), DatasetError> {
    if batch.dims() == dims {
        return Ok(());
    }
    Err(DatasetError::Config {
        path: path.to_owned(),
        reason: format!(
            "batch dims {:?} differ from the dataset's {:?}",
            batch.dims(),
            dims
        ),
    })
}
