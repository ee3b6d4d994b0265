//! [`BatchIndex`]: where each batch of a file starts, so that a partition reading every
//! `n`-th batch jumps to its batches instead of passing over the others' records.

use crate::CapacityError;
use crate::data::key::Key;
use crate::data::progress::Status;
use crate::data::source::StreamDecoder;

/// The byte offset of every batch of a file, found by one walk over its records.
///
/// A partitioned [`SliceSource`](super::SliceSource) (a cursor set's worker) must find where
/// its next batch starts. Without an index it passes over the other workers' records, which
/// for a Norm file means following every record's length (in a 2-worker set, each worker
/// walks half the file it does not decode). With one, given by
/// [`with_index`](super::SliceSource::with_index), it jumps. Build the index once per file
/// and batch size, and every later pass (every epoch) skips the walk.
///
/// The index lives in caller memory (one `u64` per batch: [`batches_for`](Self::batches_for)
/// says how many). It is only made by walking a file, so its offsets are record starts of
/// that file; a source uses it only for a file of the same length and batches of the same
/// size, and walks as before otherwise. An index of a *different* file of the same length
/// is the caller's error: with checksum framing the decoder reports the broken records,
/// without it the rows are wrong.
///
/// A file with a broken record is indexed up to the batch holding it; the partitions walk
/// from there and report the error in its serial place, as without an index.
///
/// ```
/// use tessera_core::data::{BatchIndex, BatchSource, Dims, NormConfig, NormDecoder};
/// use tessera_core::data::{NormEncoder, NormSlice, SampleBatch};
///
/// let config = NormConfig::new(Dims::new(1, 0, 1), 2);
/// let enc = NormEncoder::<u32>::new(config);
/// let mut file = [0u8; 1024];
/// let mut n = enc.header(10, &mut file).unwrap();
/// for i in 0..10u32 {
///     n += enc.sample(&[i as f32], &[], &[&[i, i + 1][..i as usize % 3]], &mut file[n..]).unwrap();
/// }
/// let file = &file[..n];
///
/// // Batches of 4: 3 batches, one offset each.
/// let mut starts = [0u64; 3];
/// let index = BatchIndex::build(NormDecoder::<u32>::new(config), file, 4, &mut starts).unwrap();
/// assert_eq!(index.batches(), 3);
///
/// // Worker 1 of 2 reads batch 1 straight away.
/// let mut source = NormSlice::<u32>::norm(config, file).partition(1, 2).with_index(index);
/// let (mut ld, mut offsets, mut keys) = ([0f32; 4], [0u32; 5], [0u32; 8]);
/// let mut batch = SampleBatch::new(config.dims, &mut ld, &mut offsets, &mut keys).unwrap();
/// let info = source.next_batch(&mut batch).unwrap().unwrap();
/// assert_eq!((info.id, info.first_row), (1, 4));
/// assert_eq!(batch.labels(0), Some(&[4.0][..]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchIndex<'i> {
    starts: &'i [u64],
    batch: u64,
    file_len: u64,
}

impl<'i> BatchIndex<'i> {
    /// Walks `bytes`, a whole file, with `decoder` (at the start of its stream) and writes
    /// where each batch of `batch` records starts into `starts`.
    ///
    /// Errors if `starts` is too short, with the number of batches needed; a broken record
    /// ends the index early instead (see the type's docs). `batch == 0` is taken as 1.
    pub fn build<K: Key, D: StreamDecoder<K>>(
        mut decoder: D,
        bytes: &[u8],
        batch: usize,
        starts: &'i mut [u64],
    ) -> Result<Self, CapacityError> {
        let per_batch = batch.max(1) as u64;
        // The header first (a bad one: nothing to index).
        let mut pos = decoder
            .pass_over(bytes, 0)
            .map_or(usize::MAX, |p| p.consumed);
        let mut found = 0;
        while let Some(rest) = bytes.get(pos..) {
            let (consumed, more) = match decoder.pass_over(rest, per_batch) {
                Ok(p) if p.consumed > 0 => (p.consumed, p.status == Status::BatchFull),
                // No record starts here (the end, or a record cut short).
                Ok(_) => break,
                // The batch starts here all the same; its reader meets the error.
                Err(_) => (0, false),
            };
            if let Some(slot) = starts.get_mut(found) {
                *slot = pos as u64;
            }
            found += 1;
            if !more {
                break;
            }
            pos += consumed;
        }
        if found > starts.len() {
            return Err(CapacityError {
                needed: found,
                available: starts.len(),
            });
        }
        Ok(Self {
            starts: &starts[..found],
            batch: per_batch,
            file_len: bytes.len() as u64,
        })
    }

    /// Batches of `batch` records in a file of `records` records: the length
    /// [`build`](Self::build) needs (a Norm file's count is in its header,
    /// `NormDecoder::records`).
    pub const fn batches_for(records: u64, batch: usize) -> usize {
        let per_batch = if batch == 0 { 1 } else { batch as u64 };
        records.div_ceil(per_batch) as usize
    }

    /// Batches indexed.
    pub fn batches(&self) -> usize {
        self.starts.len()
    }

    /// Records per batch.
    pub fn batch_records(&self) -> u64 {
        self.batch
    }

    /// The byte offset where batch `k` starts, if indexed.
    pub fn start(&self, k: u64) -> Option<u64> {
        self.starts.get(usize::try_from(k).ok()?).copied()
    }

    /// Where batch `k` of `batch`-record batches starts in a file of `file_len` bytes, if
    /// this index is of such a file and batch size.
    pub(crate) fn start_for(&self, k: u64, batch: u64, file_len: usize) -> Option<u64> {
        let fits = batch == self.batch && file_len as u64 == self.file_len;
        if fits { self.start(k) } else { None }
    }
}
