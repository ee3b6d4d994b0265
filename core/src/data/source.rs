//! Where a [`SampleCursor`](super::SampleCursor) gets its batches: a Norm or Raw file held
//! in memory (a memory map, flash), decoded a batch at a time.

use super::batch::SampleBatch;
use super::error::{DataError, DecodeStats};
use super::index::BatchIndex;
use super::key::Key;
use super::norm::{NormConfig, NormDecoder};
use super::progress::{Progress, Status};
use super::raw::{RawConfig, RawDecoder};

/// Where a batch came from: its number and the position of its first sample in the
/// source, so that cursors over different batches of one source agree on batch and row ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BatchInfo {
    /// The batch's number in the source (0, 1, 2, … for a serial pass).
    pub id: u64,
    /// Position in the source of the batch's first sample.
    pub first_row: u64,
}

/// A source of sample batches.
pub trait BatchSource<K: Key> {
    /// Fills `batch` (empty on entry) with the next samples; `Ok(None)` at the end.
    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Option<BatchInfo>, DataError>;
}

/// Sealed, as [`Key`] is: a decoder must also jump to a record start that an earlier walk
/// found, which only this crate's decoders can be trusted to do.
mod seek {
    pub trait Seek {
        /// Moves forward to record `sample` starting at stream offset `offset` (only
        /// [`BatchIndex`](crate::data::BatchIndex) knows such places).
        fn skip_to(&mut self, sample: u64, offset: u64);
    }
}

/// The streaming-decoder contract that [`NormDecoder`] and [`RawDecoder`] share (sealed:
/// only they implement it).
pub trait StreamDecoder<K: Key>: seek::Seek {
    /// Decodes whole records from `input` into `batch`, at most `max` of them.
    fn decode_records(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
        max: u64,
    ) -> Result<Progress, DataError>;
    /// Ends the stream; `rest` is what `decode` did not consume.
    fn finish(&mut self, rest: &[u8]) -> Result<DecodeStats, DataError>;
    /// Samples decoded and skipped so far.
    fn stats(&self) -> DecodeStats;
    /// Index of the next record in the stream.
    fn position(&self) -> u64;
    /// Passes over up to `n` whole records without decoding them.
    fn pass_over(&mut self, input: &[u8], n: u64) -> Result<Progress, DataError>;
}

/// Both decoders already have these methods; the trait only names them.
macro_rules! stream_decoder {
    ($d:ident) => {
        impl<K: Key> StreamDecoder<K> for $d<K> {
            fn decode_records(
                &mut self,
                input: &[u8],
                batch: &mut SampleBatch<'_, K>,
                max: u64,
            ) -> Result<Progress, DataError> {
                $d::decode_records(self, input, batch, max)
            }
            fn finish(&mut self, rest: &[u8]) -> Result<DecodeStats, DataError> {
                $d::finish(self, rest)
            }
            fn stats(&self) -> DecodeStats {
                $d::stats(self)
            }
            fn position(&self) -> u64 {
                $d::position(self)
            }
            fn pass_over(&mut self, input: &[u8], n: u64) -> Result<Progress, DataError> {
                $d::pass_over(self, input, n)
            }
        }
        impl<K: Key> seek::Seek for $d<K> {
            fn skip_to(&mut self, sample: u64, offset: u64) {
                $d::skip_to(self, sample, offset)
            }
        }
    };
}

stream_decoder!(NormDecoder);
stream_decoder!(RawDecoder);

/// A whole file in memory, decoded batch by batch: a [`BatchSource`].
///
/// An error is held back until the samples decoded before it have been handed out, so a
/// cursor sees every good sample, then the error.
#[derive(Debug, Clone)]
pub struct SliceSource<'f, D> {
    decoder: D,
    bytes: &'f [u8],
    pos: usize,
    next: BatchInfo,
    ended: bool,
    pending: Option<DataError>,
    part: Option<Partition>,
    index: Option<BatchIndex<'f>>,
}

/// Which batches a partitioned source reads: `worker` of `workers`, batch `k` being the
/// records `k * records..(k + 1) * records` and read by worker `k % workers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Partition {
    worker: u64,
    workers: u64,
}

/// A Norm file in memory.
pub type NormSlice<'f, K> = SliceSource<'f, NormDecoder<K>>;
/// A Raw file in memory.
pub type RawSlice<'f, K> = SliceSource<'f, RawDecoder<K>>;

impl<'f, K: Key> SliceSource<'f, NormDecoder<K>> {
    /// Batches of the Norm file `bytes`.
    pub fn norm(config: NormConfig, bytes: &'f [u8]) -> Self {
        Self::new(NormDecoder::new(config), bytes)
    }
}

impl<'f, K: Key> SliceSource<'f, RawDecoder<K>> {
    /// Batches of the Raw file `bytes`; errors unless it is whole samples.
    pub fn raw(config: RawConfig, bytes: &'f [u8]) -> Result<Self, DataError> {
        Ok(Self::new(
            RawDecoder::new(config, bytes.len() as u64)?,
            bytes,
        ))
    }
}

impl<'f, D> SliceSource<'f, D> {
    /// Batches of `bytes` through `decoder` (at the start of its stream).
    pub fn new(decoder: D, bytes: &'f [u8]) -> Self {
        Self {
            decoder,
            bytes,
            pos: 0,
            next: BatchInfo {
                id: 0,
                first_row: 0,
            },
            ended: false,
            pending: None,
            part: None,
            index: None,
        }
    }

    /// The same source reading only its share of the batches: batch `k` (the records
    /// `k * B..(k + 1) * B`, `B` being the capacity of the batches it fills) when
    /// `k % workers == worker`. The `workers` partitions of one file together read every
    /// batch once, with the batch numbers and first rows the serial source gives, so their
    /// cursors consolidate to the serial order.
    ///
    /// Every batch must hold `B` whole records: a batch whose keys run out first is an error
    /// here (size its values for `B x slot_num x max_nnz` keys), where the serial source would
    /// just end the batch early. `workers == 0` is taken as 1; `worker` is taken mod `workers`.
    pub fn partition(mut self, worker: u64, workers: u64) -> Self {
        let workers = workers.max(1);
        self.part = Some(Partition {
            worker: worker % workers,
            workers,
        });
        self.next.id = worker % workers;
        self
    }

    /// The same source, jumping to its batches where `index` says they start instead of
    /// passing over the records before them (a partition's next batch; see
    /// [`BatchIndex`]). The index is used only if it is of a file as long as `bytes` and of
    /// batches as large as the ones this source fills; else the source walks as before.
    pub fn with_index(mut self, index: BatchIndex<'f>) -> Self {
        self.index = Some(index);
        self
    }

    /// The decoder (for its statistics).
    pub fn decoder(&self) -> &D {
        &self.decoder
    }
}

impl<K: Key, D: StreamDecoder<K>> BatchSource<K> for SliceSource<'_, D> {
    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Option<BatchInfo>, DataError> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.ended {
            return Ok(None);
        }
        let capacity = batch.capacity() as u64;
        if self.part.is_some() {
            let target = self.next.id.saturating_mul(capacity);
            if let Err(e) = self.jump::<K>(target, capacity) {
                self.ended = true;
                return Err(e);
            }
            // Pass over the other workers' batches up to this worker's next one.
            let behind = target.saturating_sub(self.decoder.position());
            let passed = self.decoder.pass_over(&self.bytes[self.pos..], behind);
            match passed {
                Ok(p) => self.pos += p.consumed,
                Err(e) => {
                    self.ended = true;
                    return Err(e);
                }
            }
            if self.decoder.position() < target {
                // The stream ends (or breaks off) before this worker's next batch.
                self.ended = true;
                return self.decoder.finish(&self.bytes[self.pos..]).map(|_| None);
            }
        }
        let first_row = self.decoder.position();
        match self
            .decoder
            .decode_records(&self.bytes[self.pos..], batch, capacity)
        {
            Ok(p) => {
                self.pos += p.consumed;
                let records = self.decoder.position() - first_row;
                if p.status != Status::BatchFull {
                    // Whole input at hand: `NeedMore` means the stream ends inside a record.
                    self.ended = true;
                    if let Err(e) = self.decoder.finish(&self.bytes[self.pos..]) {
                        self.pending = Some(e);
                    }
                } else if self.part.is_some() && records < capacity {
                    self.ended = true;
                    self.pending = Some(short_batch(self.decoder.position(), self.pos));
                }
            }
            Err(e) => {
                self.ended = true;
                self.pending = Some(e);
            }
        }
        if batch.samples() == 0 && self.decoder.position() == first_row {
            return match self.pending.take() {
                Some(e) => Err(e),
                None => Ok(None),
            };
        }
        let info = BatchInfo {
            id: self.next.id,
            first_row,
        };
        self.next.id += self.part.map_or(1, |p| p.workers);
        Ok(Some(info))
    }
}

impl<D> SliceSource<'_, D> {
    /// Moves to record `target`, the start of batch `target / capacity`, if the index knows
    /// where it is and it lies ahead; the header is read first.
    fn jump<K: Key>(&mut self, target: u64, capacity: u64) -> Result<(), DataError>
    where
        D: StreamDecoder<K>,
    {
        let start = self
            .index
            .and_then(|index| index.start_for(self.next.id, capacity, self.bytes.len()));
        let Some(start) = start.and_then(|s| usize::try_from(s).ok()) else {
            return Ok(());
        };
        if self.decoder.position() >= target || start > self.bytes.len() {
            return Ok(());
        }
        let header = self.decoder.pass_over(&self.bytes[self.pos..], 0)?;
        self.pos += header.consumed;
        if start >= self.pos {
            seek::Seek::skip_to(&mut self.decoder, target, start as u64);
            if self.decoder.position() == target {
                self.pos = start;
            }
        }
        Ok(())
    }
}

/// A partitioned source's batch that ran out of keys before its records.
fn short_batch(sample: u64, offset: usize) -> DataError {
    DataError {
        kind: super::error::DataErrorKind::Batch(super::batch::BatchError::NoRoom),
        sample: Some(sample),
        offset: offset as u64,
    }
}

/// A batch already in memory (built with [`SampleBatch::push_sample`] or decoded elsewhere)
/// as a one-batch [`BatchSource`], so a [`SampleCursor`](super::SampleCursor) reads CSR
/// batches from any producer. Its rows are positions `first_row..`, in batch `id`.
#[derive(Debug)]
pub struct FilledBatch<'s, 'b, K> {
    batch: &'s SampleBatch<'b, K>,
    info: BatchInfo,
    done: bool,
}

impl<'s, 'b, K: Key> FilledBatch<'s, 'b, K> {
    /// `batch` as batch `id` of a source, its first sample at position `first_row`.
    pub fn new(batch: &'s SampleBatch<'b, K>, info: BatchInfo) -> Self {
        Self {
            batch,
            info,
            done: false,
        }
    }
}

impl<K: Key> BatchSource<K> for FilledBatch<'_, '_, K> {
    /// Copies the batch into the cursor's (which must hold it: else
    /// [`DataErrorKind::Batch`](super::DataErrorKind::Batch)); then the end.
    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Option<BatchInfo>, DataError> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        batch.append(self.batch).map_err(|e| DataError {
            kind: super::error::DataErrorKind::Batch(e),
            sample: Some(self.info.first_row),
            offset: 0,
        })?;
        Ok(Some(self.info))
    }
}
