//! The Norm encoder: header and samples, in either mode, into caller buffers.

use core::marker::PhantomData;

use zerocopy::IntoBytes;

use super::header::NormHeader;
use super::{Check, FRAME, NormConfig, checksum};
use crate::data::error::EncodeError;
use crate::data::key::Key;
use crate::error::CapacityError;

/// Writes Norm records into caller buffers, one at a time, in the configured mode.
///
/// Each call writes one whole record to the front of `out` and returns its length, or
/// writes nothing and returns an error (a capacity error gives the bytes needed).
/// Samples are checked against the configuration, so the decoder with the same
/// configuration reads back exactly what was written.
#[derive(Debug, Clone, Copy)]
pub struct NormEncoder<K> {
    config: NormConfig,
    _key: PhantomData<K>,
}

impl<K: Key> NormEncoder<K> {
    /// An encoder for `config` (its policy is not used).
    pub fn new(config: NormConfig) -> Self {
        Self {
            config,
            _key: PhantomData,
        }
    }

    /// Writes the header announcing `records` samples.
    pub fn header(&self, records: u64, out: &mut [u8]) -> Result<usize, CapacityError> {
        let header = NormHeader::new(&self.config, records);
        self.frame(header.as_bytes().len(), out, |payload| {
            payload.copy_from_slice(header.as_bytes());
        })
    }

    /// Bytes [`sample`](Self::sample) writes for these slots (frame included).
    pub fn sample_len(&self, slots: &[&[K]]) -> usize {
        let keys: usize = slots.iter().map(|s| s.len()).sum();
        let payload = self.config.dims.label_dense() * 4 + slots.len() * 4 + keys * K::WIDTH;
        match self.config.check {
            Check::None => payload,
            Check::Sum => payload + FRAME,
        }
    }

    /// Writes one sample.
    pub fn sample(
        &self,
        label: &[f32],
        dense: &[f32],
        slots: &[&[K]],
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        let dims = self.config.dims;
        let widths = [
            ("label", dims.label_dim, label.len()),
            ("dense", dims.dense_dim, dense.len()),
            ("slots", dims.slot_num, slots.len()),
        ];
        for (what, expected, found) in widths {
            if expected != found {
                return Err(EncodeError::Width {
                    what,
                    expected,
                    found,
                });
            }
        }
        for (slot, keys) in slots.iter().enumerate() {
            if keys.len() > self.config.max_nnz as usize {
                return Err(EncodeError::NnzTooLarge {
                    slot,
                    nnz: keys.len(),
                    max: self.config.max_nnz,
                });
            }
        }
        let payload_len = self.sample_len(slots)
            - match self.config.check {
                Check::None => 0,
                Check::Sum => FRAME,
            };
        let written = self.frame(payload_len, out, |payload| {
            let mut p = 0;
            for v in label.iter().chain(dense) {
                payload[p..p + 4].copy_from_slice(&v.to_le_bytes());
                p += 4;
            }
            for keys in slots {
                // Fits: `keys.len() <= max_nnz`, a u32 below i32::MAX is checked by the decoder
                // too; a larger max would write a negative nnz, which the decoder refuses.
                let nnz = i32::try_from(keys.len()).unwrap_or(i32::MAX);
                payload[p..p + 4].copy_from_slice(&nnz.to_le_bytes());
                p += 4;
                for &k in *keys {
                    k.write_le(&mut payload[p..]);
                    p += K::WIDTH;
                }
            }
        })?;
        Ok(written)
    }

    /// Writes a record of `payload_len` bytes, filled by `fill`, framed if configured.
    fn frame(
        &self,
        payload_len: usize,
        out: &mut [u8],
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<usize, CapacityError> {
        let (start, total) = match self.config.check {
            Check::None => (0, payload_len),
            Check::Sum => (4, payload_len + FRAME),
        };
        if out.len() < total {
            return Err(CapacityError {
                needed: total,
                available: out.len(),
            });
        }
        let payload = &mut out[start..start + payload_len];
        fill(payload);
        if self.config.check == Check::Sum {
            let sum = checksum(&out[4..4 + payload_len]);
            let len = i32::try_from(payload_len).unwrap_or(i32::MAX);
            out[..4].copy_from_slice(&len.to_le_bytes());
            out[4 + payload_len] = sum;
        }
        Ok(total)
    }
}
