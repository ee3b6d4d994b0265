//! HugeCTR's Norm format: a 64-byte header, then samples of `label[label_dim]`,
//! `dense[dense_dim]` (`float32`) and, per slot, an `int32 nnz` and `nnz` keys (`u32` or
//! `i64`), all little-endian.
//!
//! With `error_check = 1` ([`Check::Sum`]) every record, the header included, is framed as
//! `[int32 payload length][payload][uint8 checkbits]`, `checkbits` being the wrapping 8-bit
//! sum of the payload bytes; with `error_check = 0` there is no framing.
//!
//! [`NormDecoder`] takes bytes as they arrive — a whole memory-mapped file, or chunks from
//! flash or DMA — and writes whole samples into a [`SampleBatch`](super::SampleBatch).
//! [`NormEncoder`] writes both modes into caller buffers.

mod decode;
mod encode;
mod header;

pub use decode::NormDecoder;
pub use encode::NormEncoder;
pub use header::NormHeader;

use super::batch::Dims;
use super::error::ErrorPolicy;

/// Whether records carry HugeCTR's checksum frame (`error_check` in the header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Check {
    /// `error_check = 0`: records follow each other unframed.
    #[default]
    None,
    /// `error_check = 1`: `[int32 length][payload][uint8 sum of payload bytes]`.
    Sum,
}

/// How to read (and write) a Norm file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NormConfig {
    /// The sample shape; the header must agree.
    pub dims: Dims,
    /// The most keys a slot may have; a larger `nnz` is an error. It also bounds
    /// [`max_record_bytes`](Self::max_record_bytes), the buffer a streaming reader needs.
    pub max_nnz: u32,
    /// Checksum framing; the header's `error_check` must agree.
    pub check: Check,
    /// Stop at a bad sample, or skip and count it.
    pub policy: ErrorPolicy,
}

impl NormConfig {
    /// A configuration with no checksums and the [`Stop`](ErrorPolicy::Stop) policy.
    pub const fn new(dims: Dims, max_nnz: u32) -> Self {
        Self {
            dims,
            max_nnz,
            check: Check::None,
            policy: ErrorPolicy::Stop,
        }
    }

    /// The same configuration with `check`.
    pub const fn with_check(mut self, check: Check) -> Self {
        self.check = check;
        self
    }

    /// The same configuration with `policy`.
    pub const fn with_policy(mut self, policy: ErrorPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Bytes of the header as stored (64, or 69 with its checksum frame).
    pub const fn header_bytes(&self) -> usize {
        match self.check {
            Check::None => NormHeader::LEN,
            Check::Sum => NormHeader::LEN + FRAME,
        }
    }

    /// The largest payload a sample with keys of `key_width` bytes can have; saturates.
    pub const fn max_payload_bytes(&self, key_width: usize) -> usize {
        let head = self.dims.label_dense().saturating_mul(4);
        let per_slot = (self.max_nnz as usize)
            .saturating_mul(key_width)
            .saturating_add(4);
        head.saturating_add(self.dims.slot_num.saturating_mul(per_slot))
    }

    /// The largest record (frame included) with keys of `key_width` bytes: a streaming
    /// reader's buffer of this many bytes always holds a whole record.
    pub const fn max_record_bytes(&self, key_width: usize) -> usize {
        let payload = self.max_payload_bytes(key_width);
        match self.check {
            Check::None => payload,
            Check::Sum => payload.saturating_add(FRAME),
        }
    }
}

/// Bytes a checksum frame adds: the `int32` length and the `uint8` sum.
const FRAME: usize = 5;

/// HugeCTR's checkbits: the wrapping sum of the payload bytes.
#[inline]
pub fn checksum(payload: &[u8]) -> u8 {
    // Byte-wise wrapping addition is exact mod 256 in any order, so LLVM vectorises it.
    payload.iter().fold(0u8, |a, &b| a.wrapping_add(b))
}
