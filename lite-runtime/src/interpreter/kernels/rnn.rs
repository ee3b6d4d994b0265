//! RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN: the basic recurrent cell
//! `h = act(W x + W_aux x_aux + R h + b)`, once (RNN) or over a sequence, its hidden state
//! kept in the model's variable tensor between invokes (the `state` feature: without it
//! `eval` says so).
//!
//! Float32 follows LiteRT's `kernel_utils::RnnBatchStep` (each dot product summed from zero in
//! column order and added to the bias, then the auxiliary and recurrent ones; LiteRT's
//! Eigen `tanh` differs from this crate's by a few ulp). The hybrid form (float32
//! activations, int8 weights, `asymmetric_quantize_inputs` either way) follows its hybrid
//! `RnnBatchStep`: the input, auxiliary input and hidden state quantized per batch on the
//! fly, skipped when all zero, their int32 products scaled back to float. LiteRT has no
//! integer RNN, nor does TensorFlow Lite Micro.
//!
//! BIDIRECTIONAL_SEQUENCE_RNN keeps LiteRT's quirks, for bit-exactness: the auxiliary input
//! is stepped with the input's feature size (set-up requires the two equal); batch-major, the
//! backward direction reads the input even when the auxiliary input is given without
//! auxiliary weights (time-major it reads the auxiliary input then); and the hybrid
//! time-major body runs both directions over the whole sequence `time` times over (an outer
//! loop LiteRT's `EvalHybrid` wraps around them), the states carrying over, so its outputs
//! are the last round's.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, SHORT};
use super::base::recurrent::{
    self, Carve, FloatActivation, Walk, assign_batches, carved_bytes, first, first_mut,
    hybrid_matmul_acc, is_zero, matmul_acc, quantize_batches, row_sums, single_scale, state_mut,
    total_bytes,
};
use crate::interpreter::{Desc, Eval, Kernel, KernelError, Prepare};
use crate::model::{
    BidirectionalSequenceRNNOptions, BuiltinOperator, RNNOptions, SequenceRNNOptions, TensorType,
};

/// RNN: one step of the cell.
pub static RNN: Kernel = Kernel {
    op: BuiltinOperator::Rnn,
    prepare: prepare_rnn,
    init: None,
    eval,
};

/// UNIDIRECTIONAL_SEQUENCE_RNN.
pub static UNIDIRECTIONAL_SEQUENCE_RNN: Kernel = Kernel {
    op: BuiltinOperator::UnidirectionalSequenceRnn,
    prepare: prepare_sequence,
    init: None,
    eval,
};

/// BIDIRECTIONAL_SEQUENCE_RNN.
pub static BIDIRECTIONAL_SEQUENCE_RNN: Kernel = Kernel {
    op: BuiltinOperator::BidirectionalSequenceRnn,
    prepare: prepare_bidirectional,
    init: None,
    eval,
};

/// Where one direction's operands are.
#[derive(Clone, Copy)]
struct Slots {
    weights: usize,
    recurrent: usize,
    bias: usize,
    hidden: usize,
    aux_weights: Option<usize>,
}

const UNI: Slots = Slots {
    weights: 1,
    recurrent: 2,
    bias: 3,
    hidden: 4,
    aux_weights: None,
};
const FW: Slots = Slots {
    weights: 1,
    recurrent: 2,
    bias: 3,
    hidden: 4,
    aux_weights: Some(10),
};
const BW: Slots = Slots {
    weights: 5,
    recurrent: 6,
    bias: 7,
    hidden: 8,
    aux_weights: Some(11),
};
const AUX_INPUT: usize = 9;

/// What `prepare` keeps.
#[derive(Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    batches: u32,
    time: u32,
    input: u32,
    aux: u32,
    fw_units: u32,
    bw_units: u32,
    /// Hybrid weight scales: input, recurrent, auxiliary; forward then backward.
    scales: [f32; 6],
    time_major: u8,
    bidirectional: u8,
    merge: u8,
    hybrid: u8,
    asymmetric: u8,
    activation: u8,
    bw_reads_aux: u8,
    _pad: u8,
}

const BAD_DIMS: KernelError = KernelError::Mismatch {
    what: "RNN operand shapes do not fit (weights [units, input], recurrent weights [units, \
           units], bias [units], hidden state [batch, units])",
};

/// Checks one direction's weights and hidden state; returns its units and weight scales
/// `[input, recurrent, aux]`.
fn direction(
    ctx: &Prepare<'_>,
    s: Slots,
    n_input: usize,
    n_aux: Option<usize>,
    batches: usize,
) -> Result<(usize, [f32; 3], bool), KernelError> {
    let w = ctx.input(s.weights)?;
    let r = ctx.input(s.recurrent)?;
    let b = ctx.input(s.bias)?;
    let (units, cols) = match *w.shape.dims() {
        [u, c] => (u, c),
        _ => return Err(BAD_DIMS),
    };
    if cols != n_input || r.shape.dims() != [units, units] || b.shape.dims() != [units] {
        return Err(BAD_DIMS);
    }
    let hybrid = match (w.dtype, r.dtype) {
        (TensorType::Float32, TensorType::Float32) => false,
        (TensorType::Int8, TensorType::Int8) => true,
        _ => {
            return Err(KernelError::Unsupported {
                what: "RNN weights other than float32, or int8 (hybrid)",
            });
        }
    };
    if b.dtype != TensorType::Float32 {
        return Err(KernelError::Mismatch {
            what: "RNN bias not float32",
        });
    }
    let hidden = ctx.input(s.hidden)?;
    if hidden.shape.dims() != [batches, units] {
        return Err(BAD_DIMS);
    }
    recurrent::state(&hidden, TensorType::Float32, batches * units)?;
    let mut scales = [1.0; 3];
    if hybrid {
        scales[0] = single_scale(&w)?;
        scales[1] = single_scale(&r)?;
    }
    if let (Some(at), Some(n_aux)) = (s.aux_weights, n_aux) {
        let a = ctx.input(at)?;
        if a.shape.dims() != [units, n_aux] || a.dtype != w.dtype {
            return Err(BAD_DIMS);
        }
        if hybrid {
            scales[2] = single_scale(&a)?;
        }
    }
    Ok((units, scales, hybrid))
}

fn float_input(d: &Desc<'_>) -> Result<(), KernelError> {
    if d.dtype == TensorType::Float32 {
        Ok(())
    } else {
        Err(KernelError::Unsupported {
            what: "RNN input other than float32 (LiteRT has no integer RNN)",
        })
    }
}

fn output(ctx: &Prepare<'_>, k: usize, dims: &[usize]) -> Result<(), KernelError> {
    let out = ctx.output(k)?;
    if out.dtype != TensorType::Float32 {
        return Err(check::OUTPUT_TYPE);
    }
    if out.shape.dims() != dims {
        return Err(check::OUTPUT_SHAPE);
    }
    Ok(())
}

fn arity(ctx: &Prepare<'_>, inputs: usize, outputs: usize) -> Result<(), KernelError> {
    if ctx.input_count() != inputs || ctx.output_count() != outputs {
        return Err(KernelError::Arity {
            what: "the RNN op's inputs and outputs",
        });
    }
    Ok(())
}

fn prepare_rnn(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: RNNOptions = ctx.options()?;
    arity(ctx, 5, 1)?;
    let input = ctx.input(0)?;
    float_input(&input)?;
    let (batches, n_input) = match *input.shape.dims() {
        [b, n] => (b, n),
        _ => return Err(BAD_DIMS),
    };
    let (units, scales, hybrid) = direction(ctx, UNI, n_input, None, batches)?;
    output(ctx, 0, &[batches, units])?;
    finish(
        ctx,
        Params {
            batches: check::dim(batches)?,
            time: 1,
            input: check::dim(n_input)?,
            fw_units: check::dim(units)?,
            scales: [scales[0], scales[1], scales[2], 1.0, 1.0, 1.0],
            time_major: 1,
            hybrid: u8::from(hybrid),
            asymmetric: u8::from(o.asymmetric_quantize_inputs),
            activation: FloatActivation::from_option(o.activation)? as u8,
            ..Params::default()
        },
    )
}

fn sequence(d: &Desc<'_>, time_major: bool) -> Result<(usize, usize, usize), KernelError> {
    match *d.shape.dims() {
        [a, b, n] => Ok(if time_major { (a, b, n) } else { (b, a, n) }),
        _ => Err(KernelError::Mismatch {
            what: "sequence RNN input not 3-D",
        }),
    }
}

fn prepare_sequence(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: SequenceRNNOptions = ctx.options()?;
    arity(ctx, 5, 1)?;
    let input = ctx.input(0)?;
    float_input(&input)?;
    let (time, batches, n_input) = sequence(&input, o.time_major)?;
    let (units, scales, hybrid) = direction(ctx, UNI, n_input, None, batches)?;
    let dims = input.shape.dims();
    output(ctx, 0, &[dims[0], dims[1], units])?;
    finish(
        ctx,
        Params {
            batches: check::dim(batches)?,
            time: check::dim(time)?,
            input: check::dim(n_input)?,
            fw_units: check::dim(units)?,
            scales: [scales[0], scales[1], scales[2], 1.0, 1.0, 1.0],
            time_major: u8::from(o.time_major),
            hybrid: u8::from(hybrid),
            asymmetric: u8::from(o.asymmetric_quantize_inputs),
            activation: FloatActivation::from_option(o.activation)? as u8,
            ..Params::default()
        },
    )
}

fn prepare_bidirectional(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: BidirectionalSequenceRNNOptions = ctx.options()?;
    arity(ctx, 12, if o.merge_outputs { 1 } else { 2 })?;
    let input = ctx.input(0)?;
    float_input(&input)?;
    let (time, batches, n_input) = sequence(&input, o.time_major)?;
    let aux = ctx.optional_input(AUX_INPUT);
    let (fw_aux, bw_aux) = (ctx.optional_input(10), ctx.optional_input(11));
    let with_weights = match (&fw_aux, &bw_aux) {
        (Some(_), Some(_)) => true,
        (None, None) => false,
        _ => {
            return Err(KernelError::Mismatch {
                what: "RNN auxiliary weights for one direction only",
            });
        }
    };
    let n_aux = match (&aux, with_weights) {
        (Some(a), true) => {
            let (t, b, n) = sequence(a, o.time_major)?;
            // LiteRT steps the auxiliary input with the input's feature size.
            if (t, b, n) != (time, batches, n_input) || a.dtype != TensorType::Float32 {
                return Err(KernelError::Unsupported {
                    what: "RNN auxiliary input of another shape than the input",
                });
            }
            Some(n)
        }
        (Some(a), false) => {
            if a.shape.dims() != input.shape.dims() || a.dtype != TensorType::Float32 {
                return Err(KernelError::Mismatch {
                    what: "the backward direction's auxiliary input differs from the input",
                });
            }
            None
        }
        (None, true) => {
            return Err(KernelError::Mismatch {
                what: "RNN auxiliary weights without an auxiliary input",
            });
        }
        (None, false) => None,
    };
    let (fw_units, fw_scales, fw_hybrid) = direction(ctx, FW, n_input, n_aux, batches)?;
    let (bw_units, bw_scales, bw_hybrid) = direction(ctx, BW, n_input, n_aux, batches)?;
    if fw_hybrid != bw_hybrid {
        return Err(check::INPUT_TYPES);
    }
    let dims = input.shape.dims();
    if o.merge_outputs {
        let both = fw_units.checked_add(bw_units).ok_or(BAD_DIMS)?;
        output(ctx, 0, &[dims[0], dims[1], both])?;
    } else {
        output(ctx, 0, &[dims[0], dims[1], fw_units])?;
        output(ctx, 1, &[dims[0], dims[1], bw_units])?;
    }
    finish(
        ctx,
        Params {
            batches: check::dim(batches)?,
            time: check::dim(time)?,
            input: check::dim(n_input)?,
            aux: check::dim(n_aux.unwrap_or(0))?,
            fw_units: check::dim(fw_units)?,
            bw_units: check::dim(bw_units)?,
            scales: [
                fw_scales[0],
                fw_scales[1],
                fw_scales[2],
                bw_scales[0],
                bw_scales[1],
                bw_scales[2],
            ],
            time_major: u8::from(o.time_major),
            bidirectional: 1,
            merge: u8::from(o.merge_outputs),
            hybrid: u8::from(fw_hybrid),
            asymmetric: u8::from(o.asymmetric_quantize_inputs),
            activation: FloatActivation::from_option(o.activation)? as u8,
            bw_reads_aux: u8::from(aux.is_some() && !with_weights),
            _pad: 0,
        },
    )
}

/// The per-step sizes of a direction of `units`.
#[derive(Clone, Copy)]
struct Sizes {
    batches: usize,
    input: usize,
    aux: usize,
    units: usize,
}

fn sizes(p: &Params, units: u32) -> Sizes {
    Sizes {
        batches: if p.time_major != 0 {
            p.batches as usize
        } else {
            1
        },
        input: p.input as usize,
        aux: p.aux as usize,
        units: units as usize,
    }
}

fn scratch_bytes(s: &Sizes, hybrid: bool) -> Option<usize> {
    let acc = carved_bytes::<f32>(s.batches.checked_mul(s.units)?);
    if !hybrid {
        return acc;
    }
    total_bytes(&[
        acc,
        carved_bytes::<i8>(s.batches.checked_mul(s.input)?),
        carved_bytes::<i8>(s.batches.checked_mul(s.aux)?),
        carved_bytes::<i8>(s.batches.checked_mul(s.units)?),
        carved_bytes::<f32>(s.batches),
        carved_bytes::<i32>(s.batches),
        carved_bytes::<i32>(s.units.checked_mul(3)?),
    ])
}

fn finish(ctx: &mut Prepare<'_>, p: Params) -> Result<(), KernelError> {
    let hybrid = p.hybrid != 0;
    let bytes = [p.fw_units, p.bw_units]
        .iter()
        .map(|&u| scratch_bytes(&sizes(&p, u), hybrid))
        .try_fold(0usize, |m, b| Some(m.max(b?)))
        .ok_or(KernelError::Unsupported {
            what: "RNN buffers over the address space",
        })?;
    ctx.request_scratch(bytes);
    ctx.set_params(&p);
    Ok(())
}

/// One direction's weights.
struct Weights<'a> {
    input_f: Option<&'a [f32]>,
    input_q: Option<&'a [i8]>,
    recurrent_f: Option<&'a [f32]>,
    recurrent_q: Option<&'a [i8]>,
    aux_f: Option<&'a [f32]>,
    aux_q: Option<&'a [i8]>,
    bias: &'a [f32],
    /// Input, recurrent, auxiliary.
    scales: [f32; 3],
}

impl<'a> Weights<'a> {
    fn read(
        ctx: &Eval<'a>,
        s: Slots,
        hybrid: bool,
        aux: bool,
        scales: [f32; 3],
    ) -> Result<Self, KernelError> {
        let aux_at = if aux { s.aux_weights } else { None };
        let f = |k: usize| ctx.input::<f32>(k);
        let q = |k: usize| ctx.input::<i8>(k);
        let (mut input_f, mut input_q, mut recurrent_f, mut recurrent_q) = (None, None, None, None);
        let (mut aux_f, mut aux_q) = (None, None);
        if hybrid {
            input_q = Some(q(s.weights)?);
            recurrent_q = Some(q(s.recurrent)?);
            aux_q = aux_at.map(q).transpose()?;
        } else {
            input_f = Some(f(s.weights)?);
            recurrent_f = Some(f(s.recurrent)?);
            aux_f = aux_at.map(f).transpose()?;
        }
        Ok(Weights {
            input_f,
            input_q,
            recurrent_f,
            recurrent_q,
            aux_f,
            aux_q,
            bias: f(s.bias)?,
            scales,
        })
    }
}

/// Where a direction writes: rows of `stride`, from element `offset` of each.
#[derive(Clone, Copy)]
struct Rows {
    stride: usize,
    offset: usize,
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let hybrid = p.hybrid != 0;
    let bi = p.bidirectional != 0;
    let act = FloatActivation::from_code(p.activation);
    let walk = |forward| Walk {
        time: p.time as usize,
        batches: p.batches as usize,
        time_major: p.time_major != 0,
        forward,
    };
    let merged = p.merge != 0;
    let (fw_units, bw_units) = (p.fw_units as usize, p.bw_units as usize);
    let fw_rows = Rows {
        stride: if merged { fw_units + bw_units } else { fw_units },
        offset: 0,
    };
    let bw_rows = Rows {
        stride: if merged { fw_units + bw_units } else { bw_units },
        offset: if merged { fw_units } else { 0 },
    };
    let aux_weights = p.aux > 0;
    let (fw_s, sc) = (if bi { FW } else { UNI }, p.scales);
    let fw = Weights::read(ctx, fw_s, hybrid, aux_weights, [sc[0], sc[1], sc[2]])?;
    let input = ctx.input::<f32>(0)?;
    let aux = if aux_weights {
        Some(ctx.input::<f32>(AUX_INPUT)?)
    } else {
        None
    };
    let out0 = ctx.output::<f32>(0)?;
    let out1 = if bi && !merged {
        Some(ctx.output::<f32>(1)?)
    } else {
        None
    };
    let asym = p.asymmetric != 0;
    let h = state_mut::<f32>(ctx, fw_s.hidden, p.batches as usize * fw_units)?;
    let seq = Seq {
        input,
        aux,
        walk: walk(true),
        sizes: sizes(&p, p.fw_units),
        rounds: if bi && hybrid && p.time_major != 0 {
            p.time as usize
        } else {
            1
        },
    };
    run(&fw, &seq, h, &mut *out0, fw_rows, act, asym, ctx.scratch())?;
    if !bi {
        return Ok(());
    }
    let bw = Weights::read(ctx, BW, hybrid, aux_weights, [sc[3], sc[4], sc[5]])?;
    // Time-major the backward direction reads the auxiliary input when it comes without
    // weights; batch-major LiteRT reads the input all the same.
    let bw_input = if p.bw_reads_aux != 0 && p.time_major != 0 {
        ctx.input::<f32>(AUX_INPUT)?
    } else {
        input
    };
    let h = state_mut::<f32>(ctx, BW.hidden, p.batches as usize * bw_units)?;
    let out: &mut [f32] = match out1 {
        Some(o) => o,
        None => out0,
    };
    let seq = Seq {
        input: bw_input,
        aux,
        walk: walk(false),
        sizes: sizes(&p, p.bw_units),
        rounds: seq.rounds,
    };
    run(&bw, &seq, h, out, bw_rows, act, asym, ctx.scratch())
}

struct Seq<'a> {
    input: &'a [f32],
    aux: Option<&'a [f32]>,
    walk: Walk,
    sizes: Sizes,
    /// Times the whole sequence is run (LiteRT's hybrid time-major bidirectional quirk).
    rounds: usize,
}

/// Runs one direction over its sequence (`RnnBatchStep` per step).
#[allow(clippy::too_many_arguments)]
fn run(
    w: &Weights<'_>,
    seq: &Seq<'_>,
    h: &mut [f32],
    out: &mut [f32],
    rows: Rows,
    act: FloatActivation,
    asymmetric: bool,
    scratch: &mut [u8],
) -> Result<(), KernelError> {
    let s = seq.sizes;
    let mut carve = Carve::new(scratch);
    let acc = carve.take::<f32>(s.batches * s.units)?;
    let mut hy = if w.input_q.is_some() {
        let hy = Hybrid {
            q_input: carve.take(s.batches * s.input)?,
            q_aux: carve.take(s.batches * s.aux)?,
            q_hidden: carve.take(s.batches * s.units)?,
            factors: carve.take(s.batches)?,
            offsets: carve.take(s.batches)?,
            sums: carve.take(3 * s.units)?,
        };
        if asymmetric {
            let u = s.units;
            let (a, rest) = hy.sums.split_at_mut(u);
            let (b, c) = rest.split_at_mut(u);
            row_sums(w.input_q.ok_or(SHORT)?, u, s.input, a)?;
            if let Some(m) = w.aux_q {
                row_sums(m, u, s.aux, b)?;
            }
            row_sums(w.recurrent_q.ok_or(SHORT)?, u, u, c)?;
        }
        Some(hy)
    } else {
        None
    };
    let total = seq.walk.batches;
    let h = first_mut(h, total * s.units)?;
    let steps = (0..seq.rounds).flat_map(|_| seq.walk.steps());
    for (b, t) in steps {
        let x_at = seq.walk.at(b, t, s.input).ok_or(SHORT)?;
        let x = seq
            .input
            .get(x_at..)
            .and_then(|v| v.get(..s.batches * s.input))
            .ok_or(SHORT)?;
        let aux = match seq.aux {
            Some(a) => {
                let at = seq.walk.at(b, t, s.aux).ok_or(SHORT)?;
                Some(
                    a.get(at..)
                        .and_then(|v| v.get(..s.batches * s.aux))
                        .ok_or(SHORT)?,
                )
            }
            None => None,
        };
        let hb = h
            .get_mut(b * s.units..b * s.units + s.batches * s.units)
            .ok_or(SHORT)?;
        assign_batches(w.bias, s.units, s.batches, acc)?;
        match hy.as_mut() {
            None => {
                let wi = w.input_f.ok_or(SHORT)?;
                matmul_acc(wi, s.units, s.input, x, s.batches, acc)?;
                if let (Some(a), Some(wa)) = (aux, w.aux_f) {
                    matmul_acc(wa, s.units, s.aux, a, s.batches, acc)?;
                }
                let wr = w.recurrent_f.ok_or(SHORT)?;
                matmul_acc(wr, s.units, s.units, hb, s.batches, acc)?;
            }
            Some(hy) => hybrid_step(w, &s, x, aux, hb, acc, hy, asymmetric)?,
        }
        act.apply_all(acc);
        hb.copy_from_slice(acc);
        let row0 = seq.walk.at(b, t, 1).ok_or(SHORT)?;
        for k in 0..s.batches {
            let at = (row0 + k)
                .checked_mul(rows.stride)
                .and_then(|v| v.checked_add(rows.offset))
                .ok_or(SHORT)?;
            let dst = out.get_mut(at..at + s.units).ok_or(SHORT)?;
            dst.copy_from_slice(&acc[k * s.units..k * s.units + s.units]);
        }
    }
    Ok(())
}

struct Hybrid<'s> {
    q_input: &'s mut [i8],
    q_aux: &'s mut [i8],
    q_hidden: &'s mut [i8],
    factors: &'s mut [f32],
    offsets: &'s mut [i32],
    /// Row sums (asymmetric): input, auxiliary, recurrent weights.
    sums: &'s mut [i32],
}

/// The hybrid `RnnBatchStep`'s products, added to `acc` (which holds the bias).
#[allow(clippy::too_many_arguments)]
fn hybrid_step(
    w: &Weights<'_>,
    s: &Sizes,
    x: &[f32],
    aux: Option<&[f32]>,
    h: &[f32],
    acc: &mut [f32],
    hy: &mut Hybrid<'_>,
    asymmetric: bool,
) -> Result<(), KernelError> {
    let (b, u) = (s.batches, s.units);
    let Hybrid {
        q_input,
        q_aux,
        q_hidden,
        factors,
        offsets,
        sums,
    } = hy;
    let mut product = |v: &[f32],
                       n: usize,
                       m: &[i8],
                       scale: f32,
                       q: &mut [i8],
                       part: usize,
                       acc: &mut [f32]|
     -> Result<(), KernelError> {
        if is_zero(v) {
            return Ok(());
        }
        quantize_batches(v, b, n, q, factors, offsets, asymmetric)?;
        for f in factors.iter_mut() {
            *f *= scale;
        }
        let sums = if asymmetric {
            Some((&**offsets, first(sums.get(part * u..).ok_or(SHORT)?, u)?))
        } else {
            None
        };
        hybrid_matmul_acc(m, u, n, q, factors, sums, b, acc)
    };
    product(x, s.input, w.input_q.ok_or(SHORT)?, w.scales[0], q_input, 0, acc)?;
    if let (Some(a), Some(m)) = (aux, w.aux_q) {
        product(a, s.aux, m, w.scales[2], q_aux, 1, acc)?;
    }
    product(h, u, w.recurrent_q.ok_or(SHORT)?, w.scales[1], q_hidden, 2, acc)
}
