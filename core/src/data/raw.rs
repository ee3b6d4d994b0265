//! HugeCTR's Raw format: one file of fixed-size samples and no header: label and dense
//! values (`float32`, or `int32` with `float_label_dense` off), then one `int32` key per slot
//! (one-hot). The sample count is the file size over the sample size.

use core::marker::PhantomData;

use super::batch::{Dims, SampleBatch};
use super::error::{DataError, DataErrorKind, DecodeStats, ErrorPolicy};
use super::key::Key;
use super::progress::{Progress, Status};

/// How to read a Raw file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RawConfig {
    /// The sample shape (every slot holds exactly one key).
    pub dims: Dims,
    /// `true`: label and dense are `float32`. `false`: they are `int32`; the label is cast
    /// to `f32` and each dense value `x` becomes `ln(x + 1)`, as HugeCTR does (so `x = -1`
    /// gives `-inf` and `x < -1` NaN: that is data, reported by the model, not the reader).
    pub float_label_dense: bool,
    /// Stop at a bad sample, or skip and count it.
    pub policy: ErrorPolicy,
}

impl RawConfig {
    /// `float32` label and dense, [`Stop`](ErrorPolicy::Stop) policy.
    pub const fn new(dims: Dims) -> Self {
        Self {
            dims,
            float_label_dense: true,
            policy: ErrorPolicy::Stop,
        }
    }

    /// Bytes per sample: `4 * (label_dim + dense_dim + slot_num)`.
    pub const fn sample_bytes(&self) -> usize {
        4 * (self.dims.label_dense() + self.dims.slot_num)
    }
}

/// Decodes a Raw file into [`SampleBatch`]es, as its bytes arrive.
///
/// The same streaming contract as [`NormDecoder`](super::NormDecoder): feed unconsumed bytes,
/// drop the `consumed` ones, [`finish`](Self::finish) at the end.
///
/// ```
/// use tessera_core::data::{Dims, RawConfig, RawDecoder, SampleBatch, Status};
///
/// let config = RawConfig::new(Dims::new(1, 1, 2));
/// let mut file = [0u8; 16]; // one sample: label, dense, key, key
/// file[0..4].copy_from_slice(&1.0f32.to_le_bytes());
/// file[4..8].copy_from_slice(&0.5f32.to_le_bytes());
/// file[8..12].copy_from_slice(&7i32.to_le_bytes());
/// file[12..16].copy_from_slice(&9i32.to_le_bytes());
///
/// let (mut ld, mut offsets, mut keys) = ([0f32; 2], [0u32; 3], [0u32; 2]);
/// let mut batch = SampleBatch::new(config.dims, &mut ld, &mut offsets, &mut keys).unwrap();
/// let mut dec = RawDecoder::<u32>::new(config, file.len() as u64).unwrap();
/// let p = dec.decode(&file, &mut batch).unwrap();
/// assert_eq!(p.status, Status::Done);
/// assert_eq!(batch.csr().values(), &[7, 9]);
/// assert_eq!(dec.finish(&file[p.consumed..]).unwrap().decoded, 1);
/// ```
#[derive(Debug, Clone)]
pub struct RawDecoder<K> {
    config: RawConfig,
    samples: u64,
    sample: u64,
    offset: u64,
    stats: DecodeStats,
    failed: Option<DataError>,
    _key: PhantomData<K>,
}

impl<K: Key> RawDecoder<K> {
    /// A decoder for a file of `file_len` bytes; errors unless it is whole samples.
    pub fn new(config: RawConfig, file_len: u64) -> Result<Self, DataError> {
        let sample_bytes = config.sample_bytes() as u64;
        let remainder = file_len.checked_rem(sample_bytes).unwrap_or(file_len);
        if sample_bytes == 0 || remainder != 0 {
            return Err(DataError {
                kind: DataErrorKind::RawSize {
                    sample_bytes,
                    remainder,
                },
                sample: None,
                offset: file_len - remainder,
            });
        }
        Ok(Self {
            config,
            samples: file_len / sample_bytes,
            sample: 0,
            offset: 0,
            stats: DecodeStats::default(),
            failed: None,
            _key: PhantomData,
        })
    }

    /// Samples in the file.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Samples decoded and skipped so far.
    pub fn stats(&self) -> DecodeStats {
        self.stats
    }

    /// Decodes whole samples from `input` (the file's unconsumed bytes) into `batch`.
    pub fn decode(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Progress, DataError> {
        self.decode_records(input, batch, u64::MAX)
    }

    /// [`decode`](Self::decode), stopping with [`Status::BatchFull`] after `max` samples
    /// (decoded or skipped).
    pub fn decode_records(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
        max: u64,
    ) -> Result<Progress, DataError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let size = self.config.sample_bytes();
        let mut pos = 0;
        let stop = self.sample.saturating_add(max);
        loop {
            if self.sample >= self.samples {
                return Ok(Progress {
                    consumed: pos,
                    status: Status::Done,
                });
            }
            if batch.is_full() || self.sample >= stop {
                return Ok(Progress {
                    consumed: pos,
                    status: Status::BatchFull,
                });
            }
            let Some(bytes) = input.get(pos..pos + size) else {
                return Ok(Progress {
                    consumed: pos,
                    status: Status::NeedMore { needed: size },
                });
            };
            let (kind, at) = match self.one(bytes, batch) {
                Ok(()) => {
                    self.stats.decoded += 1;
                    (None, 0)
                }
                Err(OneError::Full) if batch.samples() > 0 => {
                    return Ok(Progress {
                        consumed: pos,
                        status: Status::BatchFull,
                    });
                }
                Err(OneError::Full) => {
                    // Cannot happen: one key per slot fits any batch with room for a sample.
                    let e = super::batch::BatchError::NoRoom;
                    (Some(DataErrorKind::Batch(e)), 0)
                }
                Err(OneError::Key { slot, value, at }) => {
                    (Some(DataErrorKind::KeyRange { slot, value }), at)
                }
            };
            if let Some(kind) = kind {
                let error = DataError {
                    kind,
                    sample: Some(self.sample),
                    offset: self.offset + at as u64,
                };
                let skippable = !matches!(kind, DataErrorKind::Batch(_));
                if self.config.policy == ErrorPolicy::Stop || !skippable {
                    self.failed = Some(error);
                    return Err(error);
                }
                self.stats.skipped += 1;
                self.stats.first_skipped.get_or_insert(error);
            }
            pos += size;
            self.offset += size as u64;
            self.sample += 1;
        }
    }

    /// Index of the next sample (decoded, skipped or passed over).
    pub fn position(&self) -> u64 {
        self.sample
    }

    /// Moves forward to sample `sample` at stream offset `offset` (see
    /// `NormDecoder::skip_to`); samples have one size, so the offset only has to agree.
    pub(crate) fn skip_to(&mut self, sample: u64, offset: u64) {
        let size = self.config.sample_bytes() as u64;
        let agrees = sample.checked_mul(size) == Some(offset);
        if agrees && self.failed.is_none() && sample >= self.sample && sample <= self.samples {
            self.sample = sample;
            self.offset = offset;
        }
    }

    /// Passes over up to `n` whole samples at the start of `input` without decoding them
    /// (see [`NormDecoder::pass_over`](super::NormDecoder::pass_over)).
    pub fn pass_over(&mut self, input: &[u8], n: u64) -> Result<Progress, DataError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let size = self.config.sample_bytes();
        let end = self.sample.saturating_add(n).min(self.samples);
        let whole = (input.len() / size) as u64;
        let passed = (end - self.sample).min(whole);
        self.sample += passed;
        let consumed = passed as usize * size;
        self.offset += consumed as u64;
        let status = if self.sample >= self.samples {
            Status::Done
        } else if self.sample == end {
            Status::BatchFull
        } else {
            Status::NeedMore { needed: size }
        };
        Ok(Progress { consumed, status })
    }

    /// Ends the file: `rest` is whatever [`decode`](Self::decode) did not consume; errors if
    /// samples are missing (the file was shorter than announced to [`new`](Self::new)) or
    /// bytes are left.
    pub fn finish(&mut self, rest: &[u8]) -> Result<DecodeStats, DataError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let kind = if self.sample < self.samples {
            DataErrorKind::Truncated {
                needed: self.config.sample_bytes() as u64,
                available: rest.len() as u64,
            }
        } else if !rest.is_empty() {
            DataErrorKind::TrailingBytes {
                count: rest.len() as u64,
            }
        } else {
            return Ok(self.stats);
        };
        let sample = (self.sample < self.samples).then_some(self.sample);
        let error = DataError {
            kind,
            sample,
            offset: self.offset,
        };
        self.failed = Some(error);
        Err(error)
    }

    fn one(&self, bytes: &[u8], batch: &mut SampleBatch<'_, K>) -> Result<(), OneError> {
        let dims = self.config.dims;
        let head = dims.label_dense() * 4;
        let mut w = batch.begin().map_err(|_| OneError::Full)?;
        let ld = w.label_dense();
        let words = bytes[..head].chunks_exact(4).map(|c| {
            let mut b = [0u8; 4];
            b.copy_from_slice(c);
            b
        });
        if self.config.float_label_dense {
            for (d, b) in ld.iter_mut().zip(words) {
                *d = f32::from_le_bytes(b);
            }
        } else {
            for (i, (d, b)) in ld.iter_mut().zip(words).enumerate() {
                let x = i32::from_le_bytes(b) as f32;
                *d = if i < dims.label_dim {
                    x
                } else {
                    libm::logf(x + 1.0)
                };
            }
        }
        for (slot, c) in bytes[head..].chunks_exact(4).enumerate() {
            let mut b = [0u8; 4];
            b.copy_from_slice(c);
            let value = i32::from_le_bytes(b);
            let key = K::from_i128(value.into())
                .filter(|_| value >= 0)
                .ok_or(OneError::Key {
                    slot: slot as u32,
                    value: value.into(),
                    at: head + 4 * slot,
                })?;
            w.push_slot(&[key]).map_err(|_| OneError::Full)?;
        }
        w.finish().map_err(|_| OneError::Full)
    }
}

enum OneError {
    Full,
    Key { slot: u32, value: i64, at: usize },
}
