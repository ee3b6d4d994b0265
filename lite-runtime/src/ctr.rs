//! The bundled CTR model's inputs from a CSR sample batch: HugeCTR's data path feeding a
//! TensorFlow Lite model, with no copy of the batch and no allocation (firmware uses it too).
//!
//! The model (`data/ctr_b4.tflite`, made by TensorFlow's converter: see
//! `tests/fixtures/models/README.md`) takes, for `B` samples of the bundled dataset:
//!
//! - `keys`: int32 `[B, 26, 3]`, slot `s`'s `i`-th key as `key - 400 s + 1`, and 0 past the
//!   slot's key count (embedding row 0 is zeros, so padding adds nothing);
//! - `dense`: float32 `[B, 13]`, the dense features as they are;
//!
//! and gives `prediction`: float32 `[B, 1]`, a click probability.

use core::fmt;

use tessera_core::data::SampleBatch;

/// Slots per sample.
pub const SLOTS: usize = 26;
/// Key positions per slot (slots have 1 to 3 keys).
pub const KEYS_PER_SLOT: usize = 3;
/// Dense features per sample.
pub const DENSE: usize = 13;
/// Keys per slot's vocabulary: slot `s` holds keys `400 s .. 400 (s + 1)`.
pub const VOCAB_PER_SLOT: u32 = 400;
/// Samples per invoke of the bundled model.
pub const MODEL_BATCH: usize = 4;

/// Bytes kept on a 16-byte boundary, so a model's constants are read in place.
#[repr(C, align(16))]
struct Aligned<B: ?Sized>(B);

static MODEL_BYTES: &Aligned<[u8]> = &Aligned(*include_bytes!("../data/ctr_b4.tflite"));

/// The bundled model (batch [`MODEL_BATCH`]; a copy of `tests/fixtures/models/ctr_b4.tflite`),
/// on a 16-byte boundary so that its constants are read in place.
#[must_use]
pub fn model() -> &'static [u8] {
    &MODEL_BYTES.0
}

/// Why a batch cannot feed the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedError {
    /// The batch's samples do not have [`SLOTS`] slots and [`DENSE`] dense features.
    Shape,
    /// The input buffers are not `samples x` the model's widths.
    Buffers,
    /// A slot has more than [`KEYS_PER_SLOT`] keys.
    TooManyKeys {
        /// Sample in the batch.
        sample: usize,
        /// Slot.
        slot: usize,
        /// Its key count.
        keys: usize,
    },
    /// A key outside its slot's vocabulary.
    Key {
        /// Sample in the batch.
        sample: usize,
        /// Slot.
        slot: usize,
        /// The key.
        key: u32,
    },
}

impl fmt::Display for FeedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Shape => write!(
                f,
                "samples are not {SLOTS} slots and {DENSE} dense features"
            ),
            Self::Buffers => f.write_str("input buffers are not sized for the samples"),
            Self::TooManyKeys { sample, slot, keys } => write!(
                f,
                "sample {sample}, slot {slot}: {keys} keys, more than {KEYS_PER_SLOT}"
            ),
            Self::Key { sample, slot, key } => write!(
                f,
                "sample {sample}, slot {slot}: key {key} is outside the slot's vocabulary"
            ),
        }
    }
}

impl core::error::Error for FeedError {}

/// Fills the model's inputs for samples `first .. first + n` of `batch`: `keys` holds
/// `n * 26 * 3` values, `dense` `n * 13`.
///
/// # Errors
/// A [`FeedError`] naming the sample and slot.
pub fn feed(
    batch: &SampleBatch<'_, u32>,
    first: usize,
    keys: &mut [i32],
    dense: &mut [f32],
) -> Result<(), FeedError> {
    let dims = batch.dims();
    if dims.slot_num != SLOTS || dims.dense_dim != DENSE {
        return Err(FeedError::Shape);
    }
    let n = dense.len() / DENSE;
    if dense.len() != n * DENSE || keys.len() != n * SLOTS * KEYS_PER_SLOT {
        return Err(FeedError::Buffers);
    }
    let rows = keys.chunks_exact_mut(SLOTS * KEYS_PER_SLOT);
    for (k, (row, d)) in rows.zip(dense.chunks_exact_mut(DENSE)).enumerate() {
        let sample = first + k;
        let features = batch.dense(sample).ok_or(FeedError::Buffers)?;
        d.copy_from_slice(features);
        for (slot, cell) in row.chunks_exact_mut(KEYS_PER_SLOT).enumerate() {
            let ks = batch.keys(sample, slot).ok_or(FeedError::Buffers)?;
            if ks.len() > KEYS_PER_SLOT {
                return Err(FeedError::TooManyKeys {
                    sample,
                    slot,
                    keys: ks.len(),
                });
            }
            cell.fill(0);
            let base = slot as u32 * VOCAB_PER_SLOT;
            for (c, &key) in cell.iter_mut().zip(ks) {
                let local = key.wrapping_sub(base);
                if local >= VOCAB_PER_SLOT {
                    return Err(FeedError::Key { sample, slot, key });
                }
                *c = local as i32 + 1;
            }
        }
    }
    Ok(())
}
