//! The demo CTR model's inputs from a CSR sample batch: HugeCTR's data path feeding a
//! TensorFlow Lite model, with no copy of the batch and no allocation (firmware uses it too).
//!
//! The model (`lite-runtime/cli/demo/ctr_b4.tflite`, made by TensorFlow's converter: see
//! `tests/fixtures/models/README.md`; callers pass its bytes, read from a file or included in
//! their image) takes, for `B` samples of the demo dataset:
//!
//! - `keys`: int32 `[B, 26, 3]`, slot `s`'s `i`-th key as `key - 400 s + 1`, and 0 past the
//!   slot's key count (embedding row 0 is zeros, so padding adds nothing);
//! - `dense`: float32 `[B, 13]`, the dense features as they are;
//!
//! and gives `prediction`: float32 `[B, 1]`, a click probability.

use core::fmt;

use tessera_core::data::SampleBatch;

use tessera_lite::interpreter::{ErrorKind, Interpreter, InterpreterError};

/// Slots per sample.
pub const SLOTS: usize = 26;
/// Key positions per slot (slots have 1 to 3 keys).
pub const KEYS_PER_SLOT: usize = 3;
/// Dense features per sample.
pub const DENSE: usize = 13;
/// Keys per slot's vocabulary: slot `s` holds keys `400 s .. 400 (s + 1)`.
pub const VOCAB_PER_SLOT: u32 = 400;
/// Samples per invoke of the demo model (`ctr_b4.tflite`; [`Predictor`] takes the batch
/// from the model it is given).
pub const MODEL_BATCH: usize = 4;

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
    if keys.len() / (SLOTS * KEYS_PER_SLOT) != dense.len() / DENSE {
        return Err(FeedError::Buffers);
    }
    feed_keys(batch, first, keys)?;
    feed_dense(batch, first, dense)
}

fn check_shape(batch: &SampleBatch<'_, u32>) -> Result<(), FeedError> {
    let dims = batch.dims();
    if dims.slot_num != SLOTS || dims.dense_dim != DENSE {
        return Err(FeedError::Shape);
    }
    Ok(())
}

/// The `keys` input for samples `first ..` of `batch` (`keys.len() / 78` of them).
///
/// # Errors
/// A [`FeedError`] naming the sample and slot.
pub fn feed_keys(
    batch: &SampleBatch<'_, u32>,
    first: usize,
    keys: &mut [i32],
) -> Result<(), FeedError> {
    check_shape(batch)?;
    if keys.len() % (SLOTS * KEYS_PER_SLOT) != 0 {
        return Err(FeedError::Buffers);
    }
    for (k, row) in keys.chunks_exact_mut(SLOTS * KEYS_PER_SLOT).enumerate() {
        let sample = first + k;
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

/// The `dense` input for samples `first ..` of `batch` (`dense.len() / 13` of them).
///
/// # Errors
/// [`FeedError::Buffers`] if the batch has fewer samples.
pub fn feed_dense(
    batch: &SampleBatch<'_, u32>,
    first: usize,
    dense: &mut [f32],
) -> Result<(), FeedError> {
    check_shape(batch)?;
    if dense.len() % DENSE != 0 {
        return Err(FeedError::Buffers);
    }
    for (k, d) in dense.chunks_exact_mut(DENSE).enumerate() {
        d.copy_from_slice(batch.dense(first + k).ok_or(FeedError::Buffers)?);
    }
    Ok(())
}

/// Why a prediction failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredictError {
    /// The batch cannot feed the model.
    Feed(FeedError),
    /// The model is not the CTR model (no `keys` / `dense` inputs of the right shapes), or
    /// the interpreter failed.
    Interpreter(InterpreterError),
    /// The output buffer is shorter than the batch.
    Output,
}

impl fmt::Display for PredictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Feed(e) => write!(f, "feeding the model: {e}"),
            Self::Interpreter(e) => write!(f, "the model: {e}"),
            Self::Output => f.write_str("the prediction buffer is shorter than the batch"),
        }
    }
}

impl core::error::Error for PredictError {}

/// The CTR model over an interpreter: predictions for every sample of a CSR batch, fed
/// [`MODEL_BATCH`] at a time (a last, partial group is padded with empty samples).
pub struct Predictor<'m, 'a> {
    it: Interpreter<'m, 'a>,
    keys: usize,
    dense: usize,
    group: usize,
}

impl<'m, 'a> Predictor<'m, 'a> {
    /// The model's inputs found by their signature names (`keys`, `dense`; the subgraph's
    /// order differs), checked against the encoding above.
    ///
    /// # Errors
    /// [`PredictError::Interpreter`] with [`ErrorKind::NoSuchTensor`] if the model is not
    /// shaped so.
    pub fn new(it: Interpreter<'m, 'a>) -> Result<Self, PredictError> {
        let missing = PredictError::Interpreter(InterpreterError::new(ErrorKind::NoSuchTensor));
        let keys = it
            .signature_input("serving_default", "keys")
            .ok_or(missing)?;
        let dense = it
            .signature_input("serving_default", "dense")
            .ok_or(missing)?;
        let shape = |i| it.input_tensor(i).and_then(|t| it.tensor_shape(t));
        let (ks, ds) = (
            shape(keys).map_err(PredictError::Interpreter)?,
            shape(dense).map_err(PredictError::Interpreter)?,
        );
        let group = ds.dim(0).unwrap_or(0);
        if group == 0
            || ks.dims() != [group, SLOTS, KEYS_PER_SLOT]
            || ds.dims() != [group, DENSE]
            || it.output_count() != 1
        {
            return Err(missing);
        }
        Ok(Self {
            it,
            keys,
            dense,
            group,
        })
    }

    /// The interpreter (arena figures, tensors).
    #[must_use]
    pub fn interpreter(&self) -> &Interpreter<'m, 'a> {
        &self.it
    }

    /// Writes `out[s]`, the predicted click probability of sample `s` of `batch`.
    ///
    /// # Errors
    /// A [`PredictError`] naming the sample and slot for data the model cannot take.
    pub fn predict(
        &mut self,
        batch: &SampleBatch<'_, u32>,
        out: &mut [f32],
    ) -> Result<(), PredictError> {
        let n = batch.samples();
        let out = out.get_mut(..n).ok_or(PredictError::Output)?;
        let fail = PredictError::Interpreter;
        for (g, preds) in out.chunks_mut(self.group).enumerate() {
            let (first, real) = (g * self.group, preds.len());
            // Both inputs are views of one arena: fill one, then the other. A last, partial
            // group is padded with empty samples, whose predictions are dropped.
            let mut keys = self.it.input::<i32>(self.keys).map_err(fail)?;
            let keys = keys.as_slice_mut().ok_or(PredictError::Output)?;
            let (used, pad) = keys.split_at_mut(real * SLOTS * KEYS_PER_SLOT);
            pad.fill(0);
            feed_keys(batch, first, used).map_err(PredictError::Feed)?;
            let mut dense = self.it.input::<f32>(self.dense).map_err(fail)?;
            let dense = dense.as_slice_mut().ok_or(PredictError::Output)?;
            let (used, pad) = dense.split_at_mut(real * DENSE);
            pad.fill(0.0);
            feed_dense(batch, first, used).map_err(PredictError::Feed)?;
            self.it.invoke().map_err(fail)?;
            let y = self.it.output::<f32>(0).map_err(fail)?;
            let y = y.as_slice().ok_or(PredictError::Output)?;
            preds.copy_from_slice(y.get(..real).ok_or(PredictError::Output)?);
        }
        Ok(())
    }
}
