//! SVDF (singular value decomposition filter): each of `filters` feature filters projects the
//! input into a memory of the last `memory` projections (the activation state, a variable
//! tensor kept between invokes: the `state` feature), weighted over time, summed over `rank`
//! filters per unit, plus bias.
//!
//! Which reference each body follows, per type:
//! - float32: LiteRT's `reference_ops::EvalFloatSVDF` (the time-weighted sums reduced over
//!   the rank, then the bias added, then the fused activation), in its summation order.
//! - hybrid (float32 input and state, int8 weights): LiteRT's `EvalHybridSVDF`, the input
//!   quantized per batch on the fly (`asymmetric_quantize_inputs` either way), the int8 time
//!   weights dequantized once per invoke.
//! - int8 input and output, int8 feature weights, int32 bias, int16 time weights and state:
//!   bit-exact with LiteRT's `EvalIntegerSVDF` and TensorFlow Lite Micro's
//!   `EvalIntegerSvdfReference<int16_t>` (they agree: the state's zero point is 0).
//! - int8 time weights and int8 state with a zero point (`tflm_keyword_scrambled_8bit`):
//!   TensorFlow Lite Micro's `EvalIntegerSvdfReference<int8_t>`; LiteRT crashes on it.
//!
//! Both integer references ignore the fused activation (the output is only clamped to int8);
//! LiteRT insists it be RELU, TFLM takes any, as this kernel does.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, SHORT};
use super::base::packed::packed_once;
use super::base::quant::{checked_multiplier, multiply_by_quantized_multiplier as mbqm, per_tensor};
use super::base::recurrent::panel::{pack_pairs, pair_dots, pairs_len};
use super::base::recurrent::{
    self, Carve, FloatActivation, carved_bytes, first, first_mut, hybrid_matmul_acc, is_zero,
    matmul_acc, quantize_batches, row_sums, single_scale, state_mut, total_bytes,
};
use crate::interpreter::{Desc, Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, SVDFOptions, TensorType};

/// SVDF.
pub static SVDF: Kernel = Kernel {
    op: BuiltinOperator::Svdf,
    prepare,
    init: None,
    eval,
};

mod kind {
    pub const FLOAT: u8 = 0;
    pub const HYBRID: u8 = 1;
    /// int16 time weights and state.
    pub const INT16_STATE: u8 = 2;
    /// int8 time weights and state (TFLM).
    pub const INT8_STATE: u8 = 3;
}

/// What `prepare` keeps.
#[derive(Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    batches: u32,
    input: u32,
    filters: u32,
    memory: u32,
    rank: u32,
    has_bias: u32,
    /// Integer: the feature and time multipliers; hybrid: the feature and time weights'
    /// scales (as bits).
    scale1: [i32; 2],
    scale2: [i32; 2],
    input_zp: i32,
    state_zp: i32,
    output_zp: i32,
    kind: u8,
    activation: u8,
    asymmetric: u8,
    /// 1: the integer feature weights packed into a pair panel at the first invoke.
    packed: u8,
}

const BAD_DIMS: KernelError = KernelError::Mismatch {
    what: "SVDF operand shapes do not fit (input [batch, input], feature weights [filters, \
           input], time weights [filters, memory], state [batch, filters x memory])",
};

fn dims2(d: &Desc<'_>) -> Result<(usize, usize), KernelError> {
    match *d.shape.dims() {
        [a, b] => Ok((a, b)),
        _ => Err(BAD_DIMS),
    }
}

fn quant(d: &Desc<'_>) -> Result<(f32, i32), KernelError> {
    per_tensor(d.quantization(), d.dtype)
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: SVDFOptions = ctx.options()?;
    if ctx.input_count() != 5 || ctx.output_count() != 1 {
        return Err(KernelError::Arity {
            what: "five SVDF inputs and one output",
        });
    }
    let input = ctx.input(0)?;
    let feature = ctx.input(1)?;
    let time = ctx.input(2)?;
    let bias = ctx.optional_input(3);
    let state = ctx.input(4)?;
    let output = ctx.output(0)?;
    let (batches, n_input) = dims2(&input)?;
    let (filters, cols) = dims2(&feature)?;
    let (time_filters, memory) = dims2(&time)?;
    let rank = usize::try_from(o.rank).map_err(|_| BAD_DIMS)?;
    if rank == 0 || filters % rank != 0 {
        return Err(KernelError::Mismatch {
            what: "SVDF filters not a multiple of a positive rank",
        });
    }
    let units = filters / rank;
    if cols != n_input || time_filters != filters {
        return Err(BAD_DIMS);
    }
    if let Some(b) = &bias {
        if b.shape.dims() != [units] {
            return Err(BAD_DIMS);
        }
    }
    let state_cols = memory.checked_mul(filters).ok_or(BAD_DIMS)?;
    if dims2(&state)? != (batches, state_cols) {
        return Err(BAD_DIMS);
    }
    if output.shape.dims() != [batches, units] {
        return Err(check::OUTPUT_SHAPE);
    }
    let state_elements = batches.checked_mul(state_cols).ok_or(BAD_DIMS)?;
    let kind = match (input.dtype, feature.dtype, time.dtype) {
        (TensorType::Float32, TensorType::Float32, TensorType::Float32) => kind::FLOAT,
        (TensorType::Float32, TensorType::Int8, TensorType::Int8) => kind::HYBRID,
        (TensorType::Int8, TensorType::Int8, TensorType::Int16) => kind::INT16_STATE,
        (TensorType::Int8, TensorType::Int8, TensorType::Int8) => kind::INT8_STATE,
        _ => {
            return Err(KernelError::Unsupported {
                what: "SVDF types other than float32, hybrid int8 weights, or int8 with int16 \
                       or int8 state",
            });
        }
    };
    let (state_type, bias_type, out_type) = match kind {
        kind::FLOAT | kind::HYBRID => (TensorType::Float32, TensorType::Float32, TensorType::Float32),
        kind::INT16_STATE => (TensorType::Int16, TensorType::Int32, TensorType::Int8),
        _ => (TensorType::Int8, TensorType::Int32, TensorType::Int8),
    };
    recurrent::state(&state, state_type, state_elements)?;
    if output.dtype != out_type {
        return Err(check::OUTPUT_TYPE);
    }
    if bias.as_ref().is_some_and(|b| b.dtype != bias_type) {
        return Err(KernelError::Mismatch {
            what: "SVDF bias not of the kernel's bias type",
        });
    }
    let d = check::dim;
    let mut p = Params {
        batches: d(batches)?,
        input: d(n_input)?,
        filters: d(filters)?,
        memory: d(memory)?,
        rank: d(rank)?,
        has_bias: u32::from(bias.is_some()),
        kind,
        activation: FloatActivation::from_option(o.activation)? as u8,
        asymmetric: u8::from(o.asymmetric_quantize_inputs),
        ..Params::default()
    };
    let scratch = match kind {
        kind::FLOAT => carved_bytes::<f32>(batches.checked_mul(filters).ok_or(BAD_DIMS)?),
        kind::HYBRID => {
            p.scale1[0] = single_scale(&feature)?.to_bits() as i32;
            p.scale2[0] = single_scale(&time)?.to_bits() as i32;
            total_bytes(&[
                carved_bytes::<f32>(batches.checked_mul(filters).ok_or(BAD_DIMS)?),
                carved_bytes::<i8>(batches.checked_mul(n_input).ok_or(BAD_DIMS)?),
                carved_bytes::<f32>(batches),
                carved_bytes::<i32>(batches),
                carved_bytes::<i32>(filters),
                carved_bytes::<f32>(filters.checked_mul(memory).ok_or(BAD_DIMS)?),
            ])
        }
        _ => {
            let (in_scale, in_zp) = quant(&input)?;
            let (f_scale, _) = quant(&feature)?;
            let (t_scale, _) = quant(&time)?;
            let (s_scale, s_zp) = quant(&state)?;
            let (o_scale, o_zp) = quant(&output)?;
            // In float, as both references compute them.
            let e1 = in_scale * f_scale / s_scale;
            let e2 = s_scale * t_scale / o_scale;
            let (m1, s1) = checked_multiplier(f64::from(e1), false)?;
            let (m2, s2) = checked_multiplier(f64::from(e2), false)?;
            p.scale1 = [m1, s1];
            p.scale2 = [m2, s2];
            p.input_zp = in_zp;
            p.state_zp = s_zp;
            p.output_zp = o_zp;
            // The feature product over a pair panel ([`pair_dots`]): constant weights, and an
            // input zero point whose negation fits 16 bits beside an int8 value.
            let fixed = feature.constant().is_some() && !feature.tensor.is_variable();
            if cfg!(feature = "state") && ctx.pack_weights() && fixed && (-128..=127).contains(&in_zp)
            {
                let bytes = pairs_len(filters, n_input)
                    .and_then(|n| n.checked_add(16))
                    .ok_or(BAD_DIMS)?;
                p.packed = 1;
                ctx.request_persistent(bytes);
            }
            total_bytes(&[
                carved_bytes::<i32>(batches.checked_mul(filters).ok_or(BAD_DIMS)?),
                carved_bytes::<i32>(batches.checked_mul(units).ok_or(BAD_DIMS)?),
            ])
        }
    };
    ctx.request_scratch(scratch.ok_or(KernelError::Unsupported {
        what: "SVDF buffers over the address space",
    })?);
    ctx.set_params(&p);
    Ok(())
}

/// The sizes eval works with.
#[derive(Clone, Copy)]
struct Sizes {
    batches: usize,
    input: usize,
    filters: usize,
    memory: usize,
    rank: usize,
    units: usize,
}

fn sizes(p: &Params) -> Sizes {
    let rank = (p.rank as usize).max(1);
    Sizes {
        batches: p.batches as usize,
        input: p.input as usize,
        filters: p.filters as usize,
        memory: p.memory as usize,
        rank,
        units: p.filters as usize / rank,
    }
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let s = sizes(&p);
    match p.kind {
        kind::FLOAT | kind::HYBRID => eval_float(ctx, &p, &s),
        kind::INT16_STATE => eval_integer::<i16>(ctx, &p, &s),
        _ => eval_integer::<i8>(ctx, &p, &s),
    }
}

/// Shifts every batch's memory one step left (the whole state as one vector, as the
/// references' `std::copy(state + 1, end, state)`); each filter's last slot is written next.
fn shift<T: Copy>(state: &mut [T]) {
    if !state.is_empty() {
        state.copy_within(1.., 0);
    }
}

fn eval_float(ctx: &mut Eval<'_>, p: &Params, s: &Sizes) -> Result<(), KernelError> {
    let n_state = s.batches * s.filters * s.memory;
    let state = state_mut::<f32>(ctx, 4, n_state)?;
    let input = first(ctx.input::<f32>(0)?, s.batches * s.input)?;
    let bias = if p.has_bias != 0 {
        Some(first(ctx.input::<f32>(3)?, s.units)?)
    } else {
        None
    };
    let hybrid = p.kind == kind::HYBRID;
    let (feature_f, feature_q, time_f, time_q) = if hybrid {
        (None, Some(ctx.input::<i8>(1)?), None, Some(ctx.input::<i8>(2)?))
    } else {
        (Some(ctx.input::<f32>(1)?), None, Some(ctx.input::<f32>(2)?), None)
    };
    let out = first_mut(ctx.output::<f32>(0)?, s.batches * s.units)?;
    let mut carve = Carve::new(ctx.scratch());
    let scratch = carve.take::<f32>(s.batches * s.filters)?;
    shift(state);
    scratch.fill(0.0);
    let time: &[f32] = match (time_f, time_q) {
        (Some(t), _) => first(t, s.filters * s.memory)?,
        (None, Some(tq)) => {
            let q = carve_hybrid_inputs(&mut carve, s)?;
            let (q_input, factors, offsets, sums, time) = q;
            let feature = feature_q.ok_or(SHORT)?;
            if !is_zero(input) {
                let asym = p.asymmetric != 0;
                quantize_batches(input, s.batches, s.input, q_input, factors, offsets, asym)?;
                let f_scale = f32::from_bits(p.scale1[0] as u32);
                for f in factors.iter_mut() {
                    *f *= f_scale;
                }
                let off = if asym {
                    row_sums(feature, s.filters, s.input, sums)?;
                    Some((&*offsets, &*sums))
                } else {
                    None
                };
                hybrid_matmul_acc(
                    feature, s.filters, s.input, q_input, factors, off, s.batches, scratch,
                )?;
            }
            // The time weights dequantized (LiteRT does it once, into a persistent tensor).
            let t_scale = f32::from_bits(p.scale2[0] as u32);
            for (t, &q) in time.iter_mut().zip(first(tq, s.filters * s.memory)?) {
                *t = f32::from(q) * t_scale;
            }
            time
        }
        _ => return Err(SHORT),
    };
    if let Some(feature) = feature_f {
        matmul_acc(feature, s.filters, s.input, input, s.batches, scratch)?;
    }
    if s.memory > 0 {
        for (i, &v) in scratch.iter().enumerate() {
            state[i * s.memory + s.memory - 1] = v;
        }
    }
    time_weights_bias_activation(s, time, bias, p.activation, state, scratch, out)
}

type HybridBuffers<'a> = (
    &'a mut [i8],
    &'a mut [f32],
    &'a mut [i32],
    &'a mut [i32],
    &'a mut [f32],
);

fn carve_hybrid_inputs<'a>(carve: &mut Carve<'a>, s: &Sizes) -> Result<HybridBuffers<'a>, KernelError> {
    Ok((
        carve.take::<i8>(s.batches * s.input)?,
        carve.take::<f32>(s.batches)?,
        carve.take::<i32>(s.batches)?,
        carve.take::<i32>(s.filters)?,
        carve.take::<f32>(s.filters * s.memory)?,
    ))
}

/// `ApplyTimeWeightsBiasAndActivation` (LiteRT): each filter's memory dotted with its time
/// weights, summed over the rank per unit, the bias added, the activation applied.
fn time_weights_bias_activation(
    s: &Sizes,
    time: &[f32],
    bias: Option<&[f32]>,
    activation: u8,
    state: &[f32],
    scratch: &mut [f32],
    out: &mut [f32],
) -> Result<(), KernelError> {
    let m = s.memory;
    for b in 0..s.batches {
        for f in 0..s.filters {
            let w = time.get(f * m..f * m + m).ok_or(SHORT)?;
            let at = (b * s.filters + f) * m;
            let v = state.get(at..at + m).ok_or(SHORT)?;
            let mut dot = 0.0f32;
            for (a, x) in w.iter().zip(v) {
                dot += a * x;
            }
            scratch[b * s.filters + f] = dot;
        }
    }
    for (o, r) in out.iter_mut().zip(scratch.chunks_exact(s.rank)) {
        let mut sum = 0.0f32;
        for &v in r {
            sum += v;
        }
        *o = sum;
    }
    if let Some(bias) = bias {
        if s.units > 0 {
            for row in out.chunks_exact_mut(s.units) {
                for (o, b) in row.iter_mut().zip(bias) {
                    *o += b;
                }
            }
        }
    }
    FloatActivation::from_code(activation).apply_all(out);
    Ok(())
}

/// An integer state element: int16 or int8.
trait StateInt: Copy + tessera_core::tensor::Element + Into<i32> + Into<i16> {
    const MIN: i32;
    const MAX: i32;
    fn narrow(v: i32) -> Self;
}

impl StateInt for i16 {
    const MIN: i32 = i16::MIN as i32;
    const MAX: i32 = i16::MAX as i32;
    fn narrow(v: i32) -> Self {
        v as i16
    }
}

impl StateInt for i8 {
    const MIN: i32 = i8::MIN as i32;
    const MAX: i32 = i8::MAX as i32;
    fn narrow(v: i32) -> Self {
        v as i8
    }
}

/// TFLM's `EvalIntegerSvdfReference<T>` (LiteRT's `EvalIntegerSVDF` for `T = int16`).
fn eval_integer<T: StateInt>(ctx: &mut Eval<'_>, p: &Params, s: &Sizes) -> Result<(), KernelError> {
    let n_state = s.batches * s.filters * s.memory;
    let state = state_mut::<T>(ctx, 4, n_state)?;
    let input = first(ctx.input::<i8>(0)?, s.batches * s.input)?;
    let feature = first(ctx.input::<i8>(1)?, s.filters * s.input)?;
    let time = first(ctx.input::<T>(2)?, s.filters * s.memory)?;
    let bias = if p.has_bias != 0 {
        Some(first(ctx.input::<i32>(3)?, s.units)?)
    } else {
        None
    };
    let out = first_mut(ctx.output::<i8>(0)?, s.batches * s.units)?;
    let panel = if p.packed != 0 {
        let small = KernelError::Mismatch {
            what: "SVDF persistent block smaller than asked",
        };
        let n = pairs_len(s.filters, s.input).ok_or(small)?;
        Some(packed_once(ctx.persistent_mut()?, n, small, |panel| {
            pack_pairs(feature, s.filters, s.input, panel)
        })?)
    } else {
        None
    };
    let mut carve = Carve::new(ctx.scratch());
    let scratch = carve.take::<i32>(s.batches * s.filters)?;
    let temp = carve.take::<i32>(s.batches * s.units)?;
    let ops = IntegerOperands {
        input,
        feature,
        panel,
        time,
        bias,
    };
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
        unsafe { integer_avx2(p, s, &ops, state, out, scratch, temp) };
        return Ok(());
    }
    integer_body(p, s, &ops, state, out, scratch, temp);
    Ok(())
}

/// The integer SVDF's constant operands and input.
struct IntegerOperands<'a, T> {
    input: &'a [i8],
    feature: &'a [i8],
    /// `feature` packed by [`pack_pairs`], where the options pack weights.
    panel: Option<&'a [i8]>,
    time: &'a [T],
    bias: Option<&'a [i32]>,
}

/// [`integer_body`] compiled for AVX2: the same integers, twice SSE2's lanes.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn integer_avx2<T: StateInt>(
    p: &Params,
    s: &Sizes,
    ops: &IntegerOperands<'_, T>,
    state: &mut [T],
    out: &mut [i8],
    scratch: &mut [i32],
    temp: &mut [i32],
) {
    integer_body(p, s, ops, state, out, scratch, temp);
}

/// One step of the integer SVDF over checked slices: the state shifted and fed, the
/// filters' products, the rank sums, the bias and the output's requantization.
#[inline(always)]
fn integer_body<T: StateInt>(
    p: &Params,
    s: &Sizes,
    ops: &IntegerOperands<'_, T>,
    state: &mut [T],
    out: &mut [i8],
    scratch: &mut [i32],
    temp: &mut [i32],
) {
    let IntegerOperands {
        input,
        feature,
        panel,
        time,
        bias,
    } = *ops;
    shift(state);
    let m = s.memory;
    // `v - zp` fits 16 bits for an int8 zero point: 16-bit operands multiply-add pairwise
    // into 32 bits (SSE2's `pmaddwd`), where 32-bit products do not vectorize on x86-64's
    // baseline; the integers are the same.
    let zp16 = i16::try_from(p.input_zp)
        .ok()
        .filter(|z| (-128..=127).contains(z));
    for b in 0..s.batches {
        let x = &input[b * s.input..b * s.input + s.input];
        // The packed panel's sums first, where there is one (the same integers).
        let sums = &mut scratch[b * s.filters..b * s.filters + s.filters];
        let packed = match (panel, zp16) {
            (Some(panel), Some(z)) => pair_dots(x, -z, panel, s.filters, 0, sums).is_ok(),
            _ => false,
        };
        for f in 0..s.filters {
            let row = &feature[f * s.input..f * s.input + s.input];
            let mut dot = 0i32;
            match zp16 {
                _ if packed => dot = sums[f],
                Some(z) => {
                    for (&w, &v) in row.iter().zip(x) {
                        let v = i16::from(v) - z;
                        dot = dot.wrapping_add(i32::from(i16::from(w)) * i32::from(v));
                    }
                }
                None => {
                    for (&w, &v) in row.iter().zip(x) {
                        dot = dot.wrapping_add(i32::from(w) * (i32::from(v) - p.input_zp));
                    }
                }
            }
            let v = mbqm(dot, p.scale1[0], p.scale1[1]).clamp(T::MIN, T::MAX);
            if m > 0 {
                state[(b * s.filters + f) * m + m - 1] = T::narrow(p.state_zp.wrapping_add(v));
            }
        }
    }
    for b in 0..s.batches {
        for f in 0..s.filters {
            let w = &time[f * m..f * m + m];
            let at = (b * s.filters + f) * m;
            let v = &state[at..at + m];
            let mut dot = 0i32;
            if p.state_zp == 0 {
                // 16-bit operands, as above (an int16 state's zero point is 0).
                for (&a, &x) in w.iter().zip(v) {
                    let (a, x): (i16, i16) = (a.into(), x.into());
                    dot = dot.wrapping_add(i32::from(a) * i32::from(x));
                }
            } else {
                for (&a, &x) in w.iter().zip(v) {
                    let (a, x): (i32, i32) = (a.into(), x.into());
                    dot = dot.wrapping_add(a.wrapping_mul(x.wrapping_sub(p.state_zp)));
                }
            }
            scratch[b * s.filters + f] = dot;
        }
    }
    for (o, r) in temp.iter_mut().zip(scratch.chunks_exact(s.rank)) {
        *o = r.iter().fold(0i32, |a, &v| a.wrapping_add(v));
    }
    if let Some(bias) = bias {
        if s.units > 0 {
            for row in temp.chunks_exact_mut(s.units) {
                for (o, &b) in row.iter_mut().zip(bias) {
                    *o = o.wrapping_add(b);
                }
            }
        }
    }
    for (o, &t) in out.iter_mut().zip(temp.iter()) {
        let v = mbqm(t, p.scale2[0], p.scale2[1]).wrapping_add(p.output_zp);
        *o = v.clamp(-128, 127) as i8;
    }
}
