//! Where a [`SampleCursor`](super::SampleCursor) gets its batches: a Norm or Raw file held
//! in memory (a memory map, flash), decoded a batch at a time.

use super::batch::SampleBatch;
use super::error::{DataError, DecodeStats};
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

/// The streaming-decoder contract that [`NormDecoder`] and [`RawDecoder`] share.
pub trait StreamDecoder<K: Key> {
    /// Decodes whole records from `input` into `batch`.
    fn decode(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Progress, DataError>;
    /// Ends the stream; `rest` is what `decode` did not consume.
    fn finish(&mut self, rest: &[u8]) -> Result<DecodeStats, DataError>;
    /// Samples decoded and skipped so far.
    fn stats(&self) -> DecodeStats;
}

impl<K: Key> StreamDecoder<K> for NormDecoder<K> {
    fn decode(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Progress, DataError> {
        NormDecoder::decode(self, input, batch)
    }
    fn finish(&mut self, rest: &[u8]) -> Result<DecodeStats, DataError> {
        NormDecoder::finish(self, rest)
    }
    fn stats(&self) -> DecodeStats {
        NormDecoder::stats(self)
    }
}

impl<K: Key> StreamDecoder<K> for RawDecoder<K> {
    fn decode(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Progress, DataError> {
        RawDecoder::decode(self, input, batch)
    }
    fn finish(&mut self, rest: &[u8]) -> Result<DecodeStats, DataError> {
        RawDecoder::finish(self, rest)
    }
    fn stats(&self) -> DecodeStats {
        RawDecoder::stats(self)
    }
}

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
        }
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
        let rest = &self.bytes[self.pos..];
        match self.decoder.decode(rest, batch) {
            Ok(p) => {
                self.pos += p.consumed;
                if p.status != Status::BatchFull {
                    // Whole input at hand: `NeedMore` means the file ends inside a record.
                    self.ended = true;
                    if let Err(e) = self.decoder.finish(&self.bytes[self.pos..]) {
                        self.pending = Some(e);
                    }
                }
            }
            Err(e) => {
                self.ended = true;
                self.pending = Some(e);
            }
        }
        if batch.samples() == 0 {
            return match self.pending.take() {
                Some(e) => Err(e),
                None => Ok(None),
            };
        }
        let info = self.next;
        self.next = BatchInfo {
            id: info.id + 1,
            first_row: info.first_row + batch.samples() as u64,
        };
        Ok(Some(info))
    }
}
