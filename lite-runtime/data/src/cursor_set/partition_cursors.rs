//! [`partition_cursors`]: ML.NET's `GetRowCursorSet` without consolidation — one cursor per
//! partition, for consumers that can take rows in any order (a sum, a histogram, a
//! gradient accumulated per thread) and so need no merging at all.

use tessera_core::data::{BatchError, BatchSource, Key, SampleCursor};

use crate::buffers::BatchBuffers;

/// One [`SampleCursor`] per buffer in `buffers`: cursor `w` of `n = buffers.len()` reads
/// `make_source(w, n)` into `buffers[w]`.
///
/// With partitions numbered as
/// [`SliceSource::partition`](tessera_core::data::SliceSource::partition) numbers them,
/// each cursor's batch numbers never decrease and no two cursors share one, and a stable
/// sort of all their rows by batch number is the serial cursor's rows (which is what
/// [`CursorSet`](super::CursorSet) does as the rows arrive). The cursors are `Send` when the
/// sources are, so each can run on its own thread; nothing here starts any.
///
/// ```
/// use std::thread;
/// use tessera_core::cursor::RowCursor;
/// use tessera_core::data::{Dims, NormConfig, NormEncoder, NormSlice};
/// use tessera_data::buffers::BatchBuffers;
/// use tessera_data::cursor_set::partition_cursors;
///
/// let config = NormConfig::new(Dims::new(1, 0, 1), 1);
/// let enc = NormEncoder::<u32>::new(config);
/// let mut file = vec![0u8; 1024];
/// let mut n = enc.header(10, &mut file).unwrap();
/// for i in 0..10u32 {
///     n += enc.sample(&[i as f32], &[], &[&[i]], &mut file[n..]).unwrap();
/// }
/// let file = &file[..n];
///
/// // Three cursors over batches of 2 samples, each on its own thread.
/// let mut buffers: Vec<_> = (0..3)
///     .map(|_| BatchBuffers::<u32>::new(config.dims, 2, 2).unwrap())
///     .collect();
/// let cursors = partition_cursors(&mut buffers, |w, n| NormSlice::norm(config, file).partition(w, n))
///     .unwrap();
/// let mut rows: Vec<(u64, u32)> = thread::scope(|s| {
///     let threads: Vec<_> = cursors
///         .into_iter()
///         .map(|mut c| {
///             s.spawn(move || {
///                 let mut seen = Vec::new();
///                 while c.move_next().unwrap() {
///                     seen.push((c.batch(), c.keys(0).unwrap()[0]));
///                 }
///                 seen
///             })
///         })
///         .collect();
///     threads.into_iter().flat_map(|t| t.join().unwrap()).collect()
/// });
/// // Batch numbers are disjoint across cursors; sorted by batch, the rows are serial.
/// rows.sort_by_key(|r| r.0);
/// assert_eq!(rows.iter().map(|r| r.1).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
/// ```
pub fn partition_cursors<'b, K: Key, S: BatchSource<K>>(
    buffers: &'b mut [BatchBuffers<K>],
    mut make_source: impl FnMut(u64, u64) -> S,
) -> Result<Vec<SampleCursor<'b, K, S>>, BatchError> {
    let n = buffers.len() as u64;
    buffers
        .iter_mut()
        .enumerate()
        .map(|(w, b)| Ok(SampleCursor::new(make_source(w as u64, n), b.batch()?)))
        .collect()
}
