//! UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM: a long short-term memory
//! layer run over a sequence, its output state and cell state kept in the model's variable
//! tensors between invokes (the `state` feature: without it `eval` says so).
//!
//! Which reference each body follows, per type:
//! - float32 ([`float`]): LiteRT's `lstm_eval.cc` `EvalFloat` (peephole, projection with
//!   bias and clip, layer normalization, CIFG, cell clip, diagonal recurrent weights, both
//!   time layouts; the bidirectional op's auxiliary input, stacking or not, and merged
//!   outputs). Sums follow the portable `tensor_utils` order; LiteRT's float kernels multiply
//!   through ruy and apply Eigen's `tanh`/`logistic`, so results agree within a few ulp per
//!   step, not bit for bit.
//! - hybrid ([`float`], int8 weights with float activations, `asymmetric_quantize_inputs`
//!   either way): LiteRT's `EvalHybrid`, its on-the-fly quantization of the input, the
//!   output state and the projected hidden state included; exact integer products, float
//!   scaling in the reference's order.
//! - int8 activations, int16 cell state, int8 weights, int32 biases, int16 peephole and layer
//!   normalization weights ([`integer`], UNIDIRECTIONAL_SEQUENCE_LSTM only): bit-exact with
//!   LiteRT's `EvalInteger8x8_16` and `PopulateQuantizedLstmParams8x8_16` (gemmlowp's int16
//!   `logistic` and `tanh`, [`fixed16`]). TensorFlow Lite Micro's newer integer LSTM (which
//!   the corpus's TFLM models were written for) differs from it: it has no peephole,
//!   projection or layer normalization, saturates each gate's two products apart before
//!   adding them, and takes the int16 sigmoid and tanh from the LOGISTIC and TANH kernels'
//!   interpolated tables. Where the two disagree this kernel gives LiteRT's answer:
//!   `tflm_dtln_noise_suppression`'s output equals LiteRT's and differs from TFLM's by up to
//!   3 in 15 of 257 elements (as LiteRT's and TFLM's do); the other corpus LSTMs equal both.
//!
//! The states start at zero, an int8 output state at its zero point (the interpreter sets
//! int8 variables so, as TensorFlow Lite's `ResetVariableTensor` does). As LiteRT, the
//! bidirectional op takes two directions of the same cell and output sizes.
//!
//! LiteRT quirks kept for bit-exactness: the integer peephole product walks `n_output`
//! elements per batch (set-up refuses `n_output > n_cell` there, where LiteRT reads past the
//! weights); the integer projection subtracts the hidden zero point before the product and
//! adds it back through the bias (`b/246629213`). Where LiteRT reads out of bounds this
//! kernel refuses at set-up (no projection with `n_output != n_cell`) or uses the correct
//! stride (the bidirectional op's batch-major merged output).

mod fixed16;
mod float;
mod integer;
mod packed;
#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check;
use super::base::packed::packed_once;
use super::base::recurrent::{self, Carve, FloatActivation, Walk, state_mut};
use crate::interpreter::{Desc, Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{
    BidirectionalSequenceLSTMOptions, BuiltinOperator, TensorType,
    UnidirectionalSequenceLSTMOptions,
};

/// UNIDIRECTIONAL_SEQUENCE_LSTM.
pub static UNIDIRECTIONAL_SEQUENCE_LSTM: Kernel = Kernel {
    op: BuiltinOperator::UnidirectionalSequenceLstm,
    prepare: prepare_unidirectional,
    init: Some(init),
    eval,
};

/// BIDIRECTIONAL_SEQUENCE_LSTM (float32 and hybrid, as LiteRT).
pub static BIDIRECTIONAL_SEQUENCE_LSTM: Kernel = Kernel {
    op: BuiltinOperator::BidirectionalSequenceLstm,
    prepare: prepare_bidirectional,
    init: Some(init),
    eval,
};

/// The element types an LSTM runs.
mod kind {
    /// float32 throughout.
    pub const FLOAT: u8 = 0;
    /// float32 activations, int8 weights.
    pub const HYBRID: u8 = 1;
    /// int8 activations, int16 cell state.
    pub const INTEGER: u8 = 2;
}

/// A direction's optional parts (bits of [`Dir::flags`]).
mod flag {
    /// No input gate: it is `1 - forget`.
    pub const CIFG: u32 = 1;
    /// Cell-to-gate (peephole) weights.
    pub const PEEPHOLE: u32 = 1 << 1;
    /// A projection of the hidden state.
    pub const PROJECTION: u32 = 1 << 2;
    /// A projection bias.
    pub const PROJECTION_BIAS: u32 = 1 << 3;
    /// Layer-normalized gates.
    pub const LAYER_NORM: u32 = 1 << 4;
    /// Weights from an auxiliary input.
    pub const AUX: u32 = 1 << 5;
    /// Gate `g`'s recurrent weights are a diagonal (a vector): bit `DIAGONAL << g`.
    pub const DIAGONAL: u32 = 1 << 6;
}

/// Where one direction's operands are among the operator's inputs.
#[derive(Clone, Copy)]
pub(super) struct Slots {
    /// Input-to-input weights; the other 16 weights and biases follow in schema order.
    pub weights: usize,
    /// The output (hidden) state.
    pub output_state: usize,
    /// The cell state.
    pub cell_state: usize,
    /// The input gate's layer normalization weights, the other three following.
    pub layer_norm: Option<usize>,
    /// The auxiliary input-to-input weights, the other three following.
    pub aux_weights: Option<usize>,
}

impl Slots {
    /// Input-to-gate weights of gate `g` (input, forget, cell, output).
    pub(super) const fn input_to(self, g: usize) -> usize {
        self.weights + g
    }
    /// Recurrent-to-gate weights.
    pub(super) const fn recurrent_to(self, g: usize) -> usize {
        self.weights + 4 + g
    }
    /// Cell-to-gate (peephole) weights; gate 2 (cell) has none.
    pub(super) const fn cell_to(self, g: usize) -> usize {
        // Input, forget, output: slots 8, 9, 10.
        self.weights + 8 + if g == 3 { 2 } else { g }
    }
    /// Gate bias.
    pub(super) const fn bias(self, g: usize) -> usize {
        self.weights + 11 + g
    }
    /// Projection weights.
    pub(super) const fn projection(self) -> usize {
        self.weights + 15
    }
    /// Projection bias.
    pub(super) const fn projection_bias(self) -> usize {
        self.weights + 16
    }
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM's operands.
const UNI: Slots = Slots {
    weights: 1,
    output_state: 18,
    cell_state: 19,
    layer_norm: Some(20),
    aux_weights: None,
};
/// BIDIRECTIONAL_SEQUENCE_LSTM's forward direction.
const FW: Slots = Slots {
    weights: 1,
    output_state: 35,
    cell_state: 36,
    layer_norm: None,
    aux_weights: Some(40),
};
/// BIDIRECTIONAL_SEQUENCE_LSTM's backward direction.
const BW: Slots = Slots {
    weights: 18,
    output_state: 37,
    cell_state: 38,
    layer_norm: None,
    aux_weights: Some(44),
};
/// BIDIRECTIONAL_SEQUENCE_LSTM's auxiliary input.
const AUX_INPUT: usize = 39;

/// One direction's sizes and parts.
#[derive(Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Dir {
    pub cell: u32,
    pub output: u32,
    pub flags: u32,
}

impl Dir {
    pub(super) fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }
    pub(super) fn diagonal(&self, gate: usize) -> bool {
        self.flags & (flag::DIAGONAL << gate) != 0
    }
}

/// What `prepare` keeps.
#[derive(Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    batches: u32,
    time: u32,
    input: u32,
    aux: u32,
    fw: Dir,
    bw: Dir,
    cell_clip: f32,
    proj_clip: f32,
    kind: u8,
    activation: u8,
    time_major: u8,
    asymmetric: u8,
    bidirectional: u8,
    merge: u8,
    /// The backward direction reads the auxiliary input as its input (no auxiliary weights).
    bw_reads_aux: u8,
    /// 1: float weights packed into panels at the first invoke ([`packed`]).
    packed: u8,
}

/// Sizes one step of one direction works on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sizes {
    /// Vectors stepped together (the batch, time-major; 1, batch-major).
    pub batches: usize,
    pub input: usize,
    pub aux: usize,
    pub cell: usize,
    pub output: usize,
}

const BAD_DIMS: KernelError = KernelError::Mismatch {
    what: "LSTM weights' shapes do not fit the input, cell and output sizes",
};

fn u32_of(v: usize) -> Result<u32, KernelError> {
    check::dim(v)
}

/// A 2-D tensor's dimensions.
fn matrix(d: &Desc<'_>) -> Result<(usize, usize), KernelError> {
    match *d.shape.dims() {
        [r, c] => Ok((r, c)),
        _ => Err(BAD_DIMS),
    }
}

/// `d` is a vector of `n` elements.
fn vector(d: &Desc<'_>, n: usize) -> Result<(), KernelError> {
    if d.shape.dims() == [n] {
        Ok(())
    } else {
        Err(BAD_DIMS)
    }
}

fn want_type(d: &Desc<'_>, t: TensorType) -> Result<(), KernelError> {
    if d.dtype == t {
        Ok(())
    } else {
        Err(KernelError::Mismatch {
            what: "an LSTM operand is not of the type its kind takes",
        })
    }
}

/// The element types of one kind: (weights, biases, peephole weights, layer norm weights).
fn types(kind: u8) -> (TensorType, TensorType, TensorType, TensorType) {
    match kind {
        kind::FLOAT => (
            TensorType::Float32,
            TensorType::Float32,
            TensorType::Float32,
            TensorType::Float32,
        ),
        kind::HYBRID => (
            TensorType::Int8,
            TensorType::Float32,
            TensorType::Int8,
            TensorType::Float32,
        ),
        _ => (
            TensorType::Int8,
            TensorType::Int32,
            TensorType::Int16,
            TensorType::Int16,
        ),
    }
}

/// Checks one direction's weights (`CheckInputTensorDimensions`) and returns its sizes and
/// parts. `layer_norm`: whether the op has layer normalization weights.
fn direction(
    ctx: &Prepare<'_>,
    s: Slots,
    n_input: usize,
    n_aux: Option<usize>,
    kind: u8,
    layer_norm: bool,
) -> Result<Dir, KernelError> {
    let (wt, bt, pt, lt) = types(kind);
    let i2o = ctx.input(s.input_to(3))?;
    let (n_cell, cols) = matrix(&i2o)?;
    if cols != n_input {
        return Err(BAD_DIMS);
    }
    let r2o = ctx.input(s.recurrent_to(3))?;
    let n_output = match *r2o.shape.dims() {
        [rows, out] if rows == n_cell => out,
        [rows] if rows == n_cell => n_cell,
        _ => return Err(BAD_DIMS),
    };
    let mut flags = 0;
    let i2i = ctx.optional_input(s.input_to(0));
    let r2i = ctx.optional_input(s.recurrent_to(0));
    match (&i2i, &r2i) {
        (None, None) => flags |= flag::CIFG,
        (Some(_), Some(_)) => {}
        _ => {
            return Err(KernelError::Mismatch {
                what: "LSTM input gate weights neither all present nor all absent",
            });
        }
    }
    for g in 0..4 {
        if g == 0 && flags & flag::CIFG != 0 {
            continue;
        }
        let w = ctx.input(s.input_to(g))?;
        want_type(&w, wt)?;
        if matrix(&w)? != (n_cell, n_input) {
            return Err(BAD_DIMS);
        }
        let r = ctx.input(s.recurrent_to(g))?;
        match *r.shape.dims() {
            [rows, cols] if rows == n_cell && cols == n_output => want_type(&r, wt)?,
            [rows] if rows == n_cell && n_output == n_cell && kind == kind::FLOAT => {
                want_type(&r, TensorType::Float32)?;
                flags |= flag::DIAGONAL << g;
            }
            [_] => {
                return Err(KernelError::Unsupported {
                    what: "diagonal recurrent weights outside float32 LSTMs",
                });
            }
            _ => return Err(BAD_DIMS),
        }
        let b = ctx.input(s.bias(g))?;
        want_type(&b, bt)?;
        vector(&b, n_cell)?;
    }
    if flags & flag::CIFG != 0 && ctx.optional_input(s.bias(0)).is_some() {
        return Err(KernelError::Mismatch {
            what: "a CIFG LSTM with an input gate bias",
        });
    }
    // Peephole: all of cell-to-forget and cell-to-output (and cell-to-input unless CIFG), or
    // none.
    let peep: [Option<Desc<'_>>; 3] = [
        ctx.optional_input(s.cell_to(0)),
        ctx.optional_input(s.cell_to(1)),
        ctx.optional_input(s.cell_to(3)),
    ];
    let cifg = flags & flag::CIFG != 0;
    let all = (peep[0].is_some() || cifg) && peep[1].is_some() && peep[2].is_some();
    let none = peep.iter().all(Option::is_none);
    if !(all || none) {
        return Err(KernelError::Mismatch {
            what: "LSTM peephole weights neither all present nor all absent",
        });
    }
    if cifg && peep[0].is_some() {
        return Err(KernelError::Mismatch {
            what: "a CIFG LSTM with cell-to-input weights",
        });
    }
    if all {
        flags |= flag::PEEPHOLE;
        for d in peep.iter().flatten() {
            want_type(d, pt)?;
            vector(d, n_cell)?;
        }
        if kind == kind::INTEGER && n_output > n_cell {
            // LiteRT's integer peephole product walks n_output elements of the n_cell
            // weights.
            return Err(KernelError::Unsupported {
                what: "integer LSTM peephole with more outputs than cells",
            });
        }
    }
    match (
        ctx.optional_input(s.projection()),
        ctx.optional_input(s.projection_bias()),
    ) {
        (Some(p), bias) => {
            want_type(&p, wt)?;
            if matrix(&p)? != (n_output, n_cell) {
                return Err(BAD_DIMS);
            }
            flags |= flag::PROJECTION;
            if let Some(b) = bias {
                want_type(&b, bt)?;
                vector(&b, n_output)?;
                flags |= flag::PROJECTION_BIAS;
            }
        }
        (None, Some(_)) => {
            return Err(KernelError::Mismatch {
                what: "an LSTM projection bias without projection weights",
            });
        }
        (None, None) => {
            if n_output != n_cell {
                return Err(KernelError::Unsupported {
                    what: "an LSTM without projection whose output size differs from its cells",
                });
            }
        }
    }
    if layer_norm {
        let at = s.layer_norm.ok_or(BAD_DIMS)?;
        flags |= flag::LAYER_NORM;
        for g in 0..4 {
            match ctx.optional_input(at + g) {
                Some(_) if g == 0 && cifg => {
                    return Err(KernelError::Mismatch {
                        what: "a CIFG LSTM with input gate layer normalization weights",
                    });
                }
                None if g == 0 && cifg => {}
                Some(d) => {
                    want_type(&d, lt)?;
                    vector(&d, n_cell)?;
                }
                None => {
                    return Err(KernelError::Mismatch {
                        what: "LSTM layer normalization weights missing for a gate",
                    });
                }
            }
        }
    }
    if let (Some(at), Some(n_aux)) = (s.aux_weights, n_aux) {
        flags |= flag::AUX;
        for g in 0..4 {
            match ctx.optional_input(at + g) {
                None if g == 0 && cifg => {}
                Some(d) if !(g == 0 && cifg) => {
                    want_type(&d, wt)?;
                    if matrix(&d)? != (n_cell, n_aux) {
                        return Err(BAD_DIMS);
                    }
                }
                _ => {
                    return Err(KernelError::Mismatch {
                        what: "LSTM auxiliary weights neither all present nor all absent",
                    });
                }
            }
        }
    }
    Ok(Dir {
        cell: u32_of(n_cell)?,
        output: u32_of(n_output)?,
        flags,
    })
}

/// The sequence's `(time, batches, features)` from the input's shape.
fn sequence(d: &Desc<'_>, time_major: bool) -> Result<(usize, usize, usize), KernelError> {
    match *d.shape.dims() {
        [a, b, n] => Ok(if time_major { (a, b, n) } else { (b, a, n) }),
        // LiteRT's prepare reads the batch from dimension 1 of a time-major 2-D input and
        // its eval from dimension 0: only the batch-major reading is consistent.
        [b, n] if !time_major => Ok((1, b, n)),
        _ => Err(KernelError::Unsupported {
            what: "LSTM input not of shape [time, batch, input] or [batch, time, input]",
        }),
    }
}

fn kind_of(input: &Desc<'_>, weights: &Desc<'_>) -> Result<u8, KernelError> {
    match (input.dtype, weights.dtype) {
        (TensorType::Float32, TensorType::Float32) => Ok(kind::FLOAT),
        (TensorType::Float32, TensorType::Int8) => Ok(kind::HYBRID),
        (TensorType::Int8, TensorType::Int8) => Ok(kind::INTEGER),
        _ => Err(KernelError::Unsupported {
            what: "LSTM types other than float32, hybrid int8 weights, or int8 with int16 cells",
        }),
    }
}

/// The states' types for a kind: (output state, cell state).
fn state_types(kind: u8) -> (TensorType, TensorType) {
    if kind == kind::INTEGER {
        (TensorType::Int8, TensorType::Int16)
    } else {
        (TensorType::Float32, TensorType::Float32)
    }
}

fn check_states(
    ctx: &Prepare<'_>,
    s: Slots,
    d: &Dir,
    kind: u8,
    batches: usize,
) -> Result<(), KernelError> {
    let (ot, ct) = state_types(kind);
    let (cell, output) = (d.cell as usize, d.output as usize);
    let n = |v: usize| batches.checked_mul(v).ok_or(check::DIM_OVER_U32);
    recurrent::state(&ctx.input(s.output_state)?, ot, n(output)?)?;
    recurrent::state(&ctx.input(s.cell_state)?, ct, n(cell)?)
}

/// The output's expected shape: the input's with its last dimension `last`.
fn output_shape(
    ctx: &Prepare<'_>,
    k: usize,
    input: &Desc<'_>,
    last: usize,
) -> Result<(), KernelError> {
    let out = ctx.output(k)?;
    check::output_type(input, &out)?;
    let dims = input.shape.dims();
    let ok = out.shape.rank() == dims.len()
        && out.shape.dims().split_last().is_some_and(|(&l, lead)| {
            l == last && Some(lead) == dims.split_last().map(|(_, lead)| lead)
        });
    if ok { Ok(()) } else { Err(check::OUTPUT_SHAPE) }
}

fn prepare_unidirectional(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: UnidirectionalSequenceLSTMOptions = ctx.options()?;
    let layer_norm = match ctx.input_count() {
        20 => false,
        24 => ctx.optional_input(21).is_some(),
        _ => {
            return Err(KernelError::Arity {
                what: "20 or 24 LSTM inputs",
            });
        }
    };
    if ctx.output_count() != 1 {
        return Err(KernelError::Arity {
            what: "one LSTM output",
        });
    }
    let input = ctx.input(0)?;
    let kind = kind_of(&input, &ctx.input(UNI.input_to(3))?)?;
    let time_major = o.time_major;
    let (time, batches, n_input) = sequence(&input, time_major)?;
    let fw = direction(ctx, UNI, n_input, None, kind, layer_norm)?;
    check_states(ctx, UNI, &fw, kind, batches)?;
    output_shape(ctx, 0, &input, fw.output as usize)?;
    let p = Params {
        batches: u32_of(batches)?,
        time: u32_of(time)?,
        input: u32_of(n_input)?,
        aux: 0,
        fw,
        bw: Dir::default(),
        cell_clip: clip(o.cell_clip)?,
        proj_clip: clip(o.proj_clip)?,
        kind,
        activation: FloatActivation::from_option(o.activation)? as u8,
        time_major: u8::from(time_major),
        asymmetric: u8::from(o.asymmetric_quantize_inputs),
        ..Params::default()
    };
    finish(ctx, &p)
}

fn clip(v: f32) -> Result<f32, KernelError> {
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(KernelError::Mismatch {
            what: "negative (or NaN) LSTM clip",
        })
    }
}

fn prepare_bidirectional(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: BidirectionalSequenceLSTMOptions = ctx.options()?;
    if ctx.input_count() != 48 {
        return Err(KernelError::Arity {
            what: "48 bidirectional LSTM inputs",
        });
    }
    if ctx.output_count() != if o.merge_outputs { 1 } else { 2 } {
        return Err(KernelError::Arity {
            what: "one bidirectional LSTM output per direction, or one merged",
        });
    }
    let input = ctx.input(0)?;
    if input.shape.rank() != 3 {
        return Err(KernelError::Unsupported {
            what: "bidirectional LSTM input not 3-D",
        });
    }
    let kind = kind_of(&input, &ctx.input(FW.input_to(3))?)?;
    if kind == kind::INTEGER {
        return Err(KernelError::Unsupported {
            what: "int8 bidirectional LSTM (LiteRT runs float32 and hybrid only)",
        });
    }
    if ctx.input(BW.input_to(3))?.dtype != ctx.input(FW.input_to(3))?.dtype {
        return Err(check::INPUT_TYPES);
    }
    let (time, batches, n_input) = sequence(&input, o.time_major)?;
    // Auxiliary input: with auxiliary weights both directions add its product ("stacking");
    // without them the backward direction reads it in place of the input.
    let aux = ctx.optional_input(AUX_INPUT);
    let has_aux_weights = ctx.optional_input(FW.aux_weights.unwrap_or(40) + 1).is_some();
    let n_aux = match (&aux, has_aux_weights) {
        (Some(a), true) => {
            let (t, b, n) = sequence(a, o.time_major)?;
            if (t, b) != (time, batches) || a.dtype != input.dtype {
                return Err(KernelError::Mismatch {
                    what: "auxiliary input's time or batch differs from the input's",
                });
            }
            Some(n)
        }
        (Some(a), false) => {
            if a.shape.dims() != input.shape.dims() || a.dtype != input.dtype {
                return Err(KernelError::Mismatch {
                    what: "the backward direction's auxiliary input differs from the input in shape",
                });
            }
            None
        }
        (None, true) => {
            return Err(KernelError::Mismatch {
                what: "auxiliary weights without an auxiliary input",
            });
        }
        (None, false) => None,
    };
    let fw = direction(ctx, FW, n_input, n_aux, kind, false)?;
    let bw = direction(ctx, BW, n_input, n_aux, kind, false)?;
    if (fw.cell, fw.output) != (bw.cell, bw.output) {
        // LiteRT checks both directions against the forward one's sizes.
        return Err(KernelError::Unsupported {
            what: "bidirectional LSTM directions of different cell or output sizes",
        });
    }
    if !has_aux_weights {
        for s in [FW, BW] {
            let at = s.aux_weights.unwrap_or(40);
            if (at..at + 4).any(|k| ctx.optional_input(k).is_some()) {
                return Err(KernelError::Mismatch {
                    what: "LSTM auxiliary weights neither all present nor all absent",
                });
            }
        }
    }
    check_states(ctx, FW, &fw, kind, batches)?;
    check_states(ctx, BW, &bw, kind, batches)?;
    let (fo, bo) = (fw.output as usize, bw.output as usize);
    if o.merge_outputs {
        output_shape(ctx, 0, &input, fo.checked_add(bo).ok_or(BAD_DIMS)?)?;
    } else {
        output_shape(ctx, 0, &input, fo)?;
        output_shape(ctx, 1, &input, bo)?;
    }
    let p = Params {
        batches: u32_of(batches)?,
        time: u32_of(time)?,
        input: u32_of(n_input)?,
        aux: u32_of(n_aux.unwrap_or(0))?,
        fw,
        bw,
        cell_clip: clip(o.cell_clip)?,
        proj_clip: clip(o.proj_clip)?,
        kind,
        activation: FloatActivation::from_option(o.activation)? as u8,
        time_major: u8::from(o.time_major),
        asymmetric: u8::from(o.asymmetric_quantize_inputs),
        bidirectional: 1,
        merge: u8::from(o.merge_outputs),
        bw_reads_aux: u8::from(aux.is_some() && !has_aux_weights),
        packed: 0,
    };
    finish(ctx, &p)
}

/// The persistent bytes of a float LSTM's packed weights (a 16-byte flag, then each
/// direction's panels), when the options ask for packing and the weights cannot change.
fn packing(ctx: &Prepare<'_>, p: &Params) -> Option<usize> {
    if !(cfg!(feature = "state") && ctx.pack_weights() && p.kind == kind::FLOAT) {
        return None;
    }
    let input = p.input as usize;
    let (floats, fixed) = if p.bidirectional != 0 {
        (
            packed::len(input, &p.fw)?.checked_add(packed::len(input, &p.bw)?)?,
            packed::fixed(ctx, FW, &p.fw) && packed::fixed(ctx, BW, &p.bw),
        )
    } else {
        (packed::len(input, &p.fw)?, packed::fixed(ctx, UNI, &p.fw))
    };
    fixed.then_some(floats.checked_mul(4)?.checked_add(16)?)
}

/// The persistent bytes of an integer LSTM with its int8 weights packed (its parameters, a
/// 16-byte flag, the pair panels: [`packed::int_at`]), when the options ask for packing and
/// the weights are constants.
fn int_packing(ctx: &Prepare<'_>, p: &Params) -> Option<usize> {
    let input = p.input as usize;
    if !(cfg!(feature = "state") && ctx.pack_weights() && packed::int_fixed(ctx, UNI, input, &p.fw))
    {
        return None;
    }
    let panels = packed::int_len(UNI, input, &p.fw)?;
    packed::int_at(integer::PERSISTENT_BYTES)
        .checked_add(16)?
        .checked_add(panels)
}

/// Stores the parameters and asks for the persistent and scratch bytes of `p`'s kind.
fn finish(ctx: &mut Prepare<'_>, p: &Params) -> Result<(), KernelError> {
    let mut p = *p;
    let p = &mut p;
    let too_big = KernelError::Unsupported {
        what: "LSTM buffers over the address space",
    };
    let scratch = match p.kind {
        kind::FLOAT => [p.fw, p.bw]
            .iter()
            .map(|d| float::scratch_bytes(&sizes(p, d), d))
            .try_fold(0usize, |m, b| Some(m.max(b?))),
        kind::HYBRID => [p.fw, p.bw]
            .iter()
            .map(|d| float::hybrid_scratch_bytes(&sizes(p, d), d))
            .try_fold(0usize, |m, b| Some(m.max(b?))),
        _ => integer::scratch_bytes(&sizes(p, &p.fw)),
    }
    .ok_or(too_big)?;
    match p.kind {
        kind::HYBRID => ctx.request_persistent(size_of::<float::Scales>() * 2),
        kind::INTEGER => {
            // Checks the quantization now; init writes it.
            integer::params(ctx, &p.fw, p.cell_clip, p.proj_clip)?;
            let mut bytes = integer::PERSISTENT_BYTES;
            if let Some(panels) = int_packing(ctx, p) {
                p.packed = 1;
                bytes = panels;
            }
            ctx.request_persistent(bytes);
        }
        _ => {
            if let Some(bytes) = packing(ctx, p) {
                p.packed = 1;
                ctx.request_persistent(bytes);
            }
        }
    }
    ctx.request_scratch(scratch);
    ctx.set_params(&*p);
    Ok(())
}

/// The per-step sizes of direction `d`: the batch steps together when time-major.
fn sizes(p: &Params, d: &Dir) -> Sizes {
    Sizes {
        batches: if p.time_major != 0 {
            p.batches as usize
        } else {
            1
        },
        input: p.input as usize,
        aux: p.aux as usize,
        cell: d.cell as usize,
        output: d.output as usize,
    }
}

fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    match p.kind {
        kind::HYBRID => {
            let fw = float::Scales::of(ctx.prepared(), fw_slots(p.bidirectional), &p.fw)?;
            let bw = if p.bidirectional != 0 {
                float::Scales::of(ctx.prepared(), BW, &p.bw)?
            } else {
                float::Scales::default()
            };
            let out = ctx.persistent();
            let n = size_of::<float::Scales>();
            fw.write_to_prefix(out).map_err(|_| PERSISTENT)?;
            bw.write_to_prefix(out.get_mut(n..).ok_or(PERSISTENT)?)
                .map_err(|_| PERSISTENT)
        }
        kind::INTEGER => {
            let q = integer::params(ctx.prepared(), &p.fw, p.cell_clip, p.proj_clip)?;
            q.write_to_prefix(ctx.persistent()).map_err(|_| PERSISTENT)
        }
        _ => Ok(()),
    }
}

/// The packed panels of a float LSTM ([`packed`]'s layout), packed from the weights at the
/// first invoke and after a reset ([`packed_once`]): the forward direction's, then the
/// backward one's (empty without it).
fn panels<'e>(
    ctx: &mut Eval<'e>,
    p: &Params,
    fw: &float::Operands<'_>,
    bw: Option<&float::Operands<'_>>,
) -> Result<(&'e [f32], &'e [f32]), KernelError> {
    let input = p.input as usize;
    let fw_len = packed::len(input, &p.fw).ok_or(PERSISTENT)?;
    let bw_len = match bw {
        Some(_) => packed::len(input, &p.bw).ok_or(PERSISTENT)?,
        None => 0,
    };
    let n = fw_len.checked_add(bw_len).ok_or(PERSISTENT)?;
    let floats = packed_once(ctx.persistent_mut()?, n, PERSISTENT, |floats: &mut [f32]| {
        let (fw_panels, bw_panels) = floats.split_at_mut(fw_len);
        packed::fill(fw, input, fw_panels)?;
        match bw {
            Some(bw) => packed::fill(bw, input, bw_panels),
            None => Ok(()),
        }
    })?;
    Ok(floats.split_at(fw_len))
}

/// The first (or only) direction's operands.
const fn fw_slots(bidirectional: u8) -> Slots {
    if bidirectional != 0 { FW } else { UNI }
}

const PERSISTENT: KernelError = KernelError::Mismatch {
    what: "LSTM persistent block smaller than asked",
};

/// Where one direction writes its outputs: output `index`'s rows of `stride` elements, its
/// values from element `offset` of each row.
#[derive(Clone, Copy)]
pub(super) struct OutputRows {
    pub stride: usize,
    pub offset: usize,
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let bi = p.bidirectional != 0;
    let walk = |forward| Walk {
        time: p.time as usize,
        batches: p.batches as usize,
        time_major: p.time_major != 0,
        forward,
    };
    let fw_rows = OutputRows {
        stride: (p.fw.output + if p.merge != 0 { p.bw.output } else { 0 }) as usize,
        offset: 0,
    };
    let bw_rows = OutputRows {
        stride: if p.merge != 0 {
            fw_rows.stride
        } else {
            p.bw.output as usize
        },
        offset: if p.merge != 0 {
            p.fw.output as usize
        } else {
            0
        },
    };
    match p.kind {
        kind::INTEGER => {
            let input = p.input as usize;
            let (q, panels): (&[u8], _) = if p.packed != 0 {
                let state = ctx.persistent_mut()?;
                let (q, rest) = state
                    .split_at_mut_checked(packed::int_at(integer::PERSISTENT_BYTES))
                    .ok_or(PERSISTENT)?;
                let n = packed::int_len(UNI, input, &p.fw).ok_or(PERSISTENT)?;
                let bytes = packed_once(rest, n, PERSISTENT, |bytes| {
                    packed::int_fill(ctx, UNI, input, &p.fw, bytes)
                })?;
                (q, packed::int_panels(UNI, input, &p.fw, bytes)?)
            } else {
                (ctx.persistent(), [None; 9])
            };
            let s = sizes(&p, &p.fw);
            integer::run(ctx, q, panels, &p.fw, walk(true), p.batches as usize, &s)
        }
        k => {
            let hybrid = k == kind::HYBRID;
            let common = float::Common {
                activation: FloatActivation::from_code(p.activation),
                cell_clip: p.cell_clip,
                proj_clip: p.proj_clip,
                asymmetric: p.asymmetric != 0,
                total_batches: p.batches as usize,
            };
            let fw_slots = if bi { FW } else { UNI };
            let mut fw_w = float::Operands::read(ctx, fw_slots, &p.fw, hybrid)?;
            let mut bw_w = if bi {
                Some(float::Operands::read(ctx, BW, &p.bw, hybrid)?)
            } else {
                None
            };
            let persistent: &[u8] = if p.packed != 0 {
                let (fw_panels, bw_panels) = panels(ctx, &p, &fw_w, bw_w.as_ref())?;
                packed::attach(&mut fw_w, p.input as usize, fw_panels)?;
                if let Some(bw_w) = &mut bw_w {
                    packed::attach(bw_w, p.input as usize, bw_panels)?;
                }
                &[]
            } else {
                ctx.persistent()
            };
            let scales = |i: usize| -> Result<float::Scales, KernelError> {
                if !hybrid {
                    return Ok(float::Scales::default());
                }
                let n = size_of::<float::Scales>();
                let bytes = persistent.get(i * n..).ok_or(PERSISTENT)?;
                float::Scales::read_from_prefix(bytes)
                    .map(|(s, _)| s)
                    .map_err(|_| PERSISTENT)
            };
            // Outputs: one per direction, or one both write.
            let out0 = ctx.output::<f32>(0)?;
            let out1 = if bi && p.merge == 0 {
                Some(ctx.output::<f32>(1)?)
            } else {
                None
            };
            let aux = if bi && p.aux > 0 {
                Some(ctx.input::<f32>(AUX_INPUT)?)
            } else {
                None
            };
            let input = ctx.input::<f32>(0)?;
            let nb = p.batches as usize;
            let (h, c) = (
                state_mut::<f32>(ctx, fw_slots.output_state, nb * p.fw.output as usize)?,
                state_mut::<f32>(ctx, fw_slots.cell_state, nb * p.fw.cell as usize)?,
            );
            float::run(
                &fw_w,
                &scales(0)?,
                &common,
                float::Sequence {
                    input,
                    aux,
                    walk: walk(true),
                    sizes: sizes(&p, &p.fw),
                },
                h,
                c,
                &mut *out0,
                fw_rows,
                Carve::new(ctx.scratch()),
            )?;
            if !bi {
                return Ok(());
            }
            let bw_input = if p.bw_reads_aux != 0 {
                ctx.input::<f32>(AUX_INPUT)?
            } else {
                input
            };
            let bw_w = bw_w.ok_or(PERSISTENT)?;
            let (h, c) = (
                state_mut::<f32>(ctx, BW.output_state, nb * p.bw.output as usize)?,
                state_mut::<f32>(ctx, BW.cell_state, nb * p.bw.cell as usize)?,
            );
            let bw_out: &mut [f32] = match out1 {
                Some(o) => o,
                None => out0,
            };
            float::run(
                &bw_w,
                &scales(1)?,
                &common,
                float::Sequence {
                    input: bw_input,
                    aux: if p.bw_reads_aux != 0 { None } else { aux },
                    walk: walk(false),
                    sizes: sizes(&p, &p.bw),
                },
                h,
                c,
                bw_out,
                bw_rows,
                Carve::new(ctx.scratch()),
            )
        }
    }
}
