//! SOFTMAX on quantized tensors as LiteRT's reference kernels compute it:
//!
//! - int8 input (int8 or int16 output), uint8 input (uint8 or int16 output):
//!   `reference_ops::Softmax`, gemmlowp's fixed point.
//!   Each difference from the row's maximum is scaled by `beta * input_scale` (a multiplier
//!   and left shift from `PreprocessSoftmaxScaling`, into Q5.26), differences below
//!   `diff_min` count as zero, `exp` is `exp_on_negative_values`, the sum is Q12.19 and its
//!   reciprocal `GetReciprocal`'s Newton-Raphson.
//! - int16: `reference_ops::SoftmaxInt16`, two 513-entry tables (`exp` on `[-10, 0]` and
//!   `1 / (1 + x)` on `[0, 1]`) built at init in the persistent block.

use super::super::base::check;
use super::super::base::quant;
use super::super::base::quant::fixed_point::{
    exp_on_negative_values, reciprocal, saturating_rounding_multiply_by_pot,
};
use super::super::base::quant::lut::{LUT16, lookup_i16, populate_i16};
use crate::interpreter::{Eval, Init, KernelError, Prepare};
use crate::model::{SoftmaxOptions, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// Q5.26 differences (`kScaledDiffIntegerBits`).
pub(crate) const SCALED_DIFF_INTEGER_BITS: i32 = 5;
/// Q12.19 sum of exponentials (`kAccumulationIntegerBits`).
pub(crate) const ACCUMULATION_INTEGER_BITS: i32 = 12;

const I8_TO_I8: u32 = 0;
const I8_TO_I16: u32 = 1;
const I16_TO_I16: u32 = 2;
const U8_TO_U8: u32 = 3;
const U8_TO_I16: u32 = 4;

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    kind: u32,
    outer: u32,
    depth: u32,
    input_multiplier: i32,
    input_left_shift: i32,
    diff_min: i32,
}

/// Whether this file runs SOFTMAX for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16 | TensorType::Uint8)
}

/// `PreprocessSoftmaxScaling` (double rounding build) and `CalculateInputRadius`:
/// `(multiplier, left_shift, diff_min)`.
pub(crate) fn int8_scaling(beta: f64, input_scale: f64) -> Result<(i32, i32, i32), KernelError> {
    let max_real = f64::from(i32::MAX);
    let real = (beta * input_scale * f64::from(1 << (31 - SCALED_DIFF_INTEGER_BITS))).min(max_real);
    let (m, shift) = quant::quantize_multiplier(real).ok_or(KernelError::Unsupported {
        what: "softmax beta times input scale out of the fixed-point range",
    })?;
    // QuantizeMultiplierGreaterThanOne: the reference checks the shift is not negative.
    if !(0..=30).contains(&shift) || m < 0 {
        return Err(KernelError::Unsupported {
            what: "softmax beta times input scale below the fixed-point range",
        });
    }
    let max_input_rescaled = f64::from((1 << SCALED_DIFF_INTEGER_BITS) - 1)
        * (1i64 << (31 - SCALED_DIFF_INTEGER_BITS)) as f64
        / (1i64 << shift) as f64;
    let radius = libm::floor(max_input_rescaled) as i32;
    Ok((m, shift, -radius))
}

pub(crate) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let SoftmaxOptions { beta } = ctx.options()?;
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    let kind = match (input.dtype, output.dtype) {
        (TensorType::Int8, TensorType::Int8) => I8_TO_I8,
        (TensorType::Int8, TensorType::Int16) => I8_TO_I16,
        (TensorType::Int16, TensorType::Int16) => I16_TO_I16,
        // As LiteRT, whose reference checks no output scale or zero point for these.
        (TensorType::Uint8, TensorType::Uint8) => U8_TO_U8,
        (TensorType::Uint8, TensorType::Int16) => U8_TO_I16,
        _ => {
            return Err(KernelError::Unsupported {
                what: "quantized SOFTMAX other than int8 to int8 / int16, uint8 to uint8 / \
                       int16 or int16 to int16",
            });
        }
    };
    let rank = input.shape.rank();
    if rank == 0 {
        return Err(KernelError::Mismatch {
            what: "SOFTMAX input is a scalar",
        });
    }
    if output.shape.dims() != input.shape.dims() {
        return Err(KernelError::Mismatch {
            what: "output shape differs from the input's",
        });
    }
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    match kind {
        I8_TO_I8 if out_zp != -128 || (out_scale - 1.0 / 256.0).abs() > 0.001 / 256.0 => {
            return Err(KernelError::Unsupported {
                what: "int8 SOFTMAX output not scale 1/256, zero point -128",
            });
        }
        I16_TO_I16
            if in_zp != 0 || out_zp != 0 || (out_scale - 1.0 / 32768.0).abs() > 0.001 / 32768.0 =>
        {
            return Err(KernelError::Unsupported {
                what: "int16 SOFTMAX not zero point 0 with output scale 1/32768",
            });
        }
        _ => {}
    }
    let depth = *input.shape.dims().last().unwrap_or(&1);
    let outer = input.shape.elements().checked_div(depth).unwrap_or(0);
    let (input_multiplier, input_left_shift, diff_min) = if kind == I16_TO_I16 {
        // `input->params.scale * params->beta` is a float product, then divided in double.
        let real = f64::from(in_scale * beta) / (10.0 / 65535.0);
        let (m, s) = quant::checked_multiplier(real, false)?;
        ctx.request_persistent(2 * LUT16 * 2);
        (m, s, 0)
    } else {
        int8_scaling(f64::from(beta), f64::from(in_scale))?
    };
    let n = |v: usize| {
        u32::try_from(v).map_err(|_| KernelError::Unsupported {
            what: "dimension over u32",
        })
    };
    ctx.set_params(&Params {
        kind,
        outer: n(outer)?,
        depth: n(depth)?,
        input_multiplier,
        input_left_shift,
        diff_min,
    });
    Ok(())
}

fn tables(block: &mut [u8]) -> Option<(&mut [i16; LUT16], &mut [i16; LUT16])> {
    let all = <[i16]>::mut_from_bytes(block.get_mut(..4 * LUT16)?).ok()?;
    let (a, b) = all.split_at_mut(LUT16);
    Some((a.try_into().ok()?, b.try_into().ok()?))
}

/// Builds the int16 tables; nothing for other types (the float kernel shares this step).
pub(crate) fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    if ctx.prepared().input(0)?.dtype != TensorType::Int16 {
        return Ok(());
    }
    let p: Params = ctx.params();
    if p.kind != I16_TO_I16 {
        return Ok(());
    }
    let (exp_lut, recip_lut) = tables(ctx.persistent()).ok_or(KernelError::Mismatch {
        what: "persistent block smaller than asked",
    })?;
    let range = f64::from(i32::from(i16::MAX) - i32::from(i16::MIN));
    populate_i16(
        10.0 / range,
        i32::from(i16::MAX),
        2.0 / range,
        0,
        libm::exp,
        exp_lut,
    );
    populate_i16(
        1.0 / range,
        i32::from(i16::MIN),
        2.0 / range,
        0,
        |v| 1.0 / (1.0 + v),
        recip_lut,
    );
    Ok(())
}

/// Runs the int8-input bodies, and the int16 one if `I16` (an int8-only registration links
/// neither it nor its tables' `init`).
pub(crate) fn eval<const I16: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (outer, depth) = (p.outer as usize, p.depth as usize);
    let total = outer * depth;
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    if total == 0 {
        return Ok(());
    }
    match p.kind {
        I8_TO_I8 => {
            let x = ctx.input::<i8>(0)?.get(..total).ok_or(short)?;
            let y = ctx.output::<i8>(0)?.get_mut(..total).ok_or(short)?;
            for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
                softmax_row(&p, x, y, 8, i8::MIN.into(), |v| v as i8);
            }
        }
        I8_TO_I16 => {
            let x = ctx.input::<i8>(0)?.get(..total).ok_or(short)?;
            let y = ctx.output::<i16>(0)?.get_mut(..total).ok_or(short)?;
            for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
                softmax_row(&p, x, y, 16, i16::MIN.into(), |v| v as i16);
            }
        }
        _ if !I16 => return Err(check::NOT_INT8),
        U8_TO_U8 => {
            let x = ctx.input::<u8>(0)?.get(..total).ok_or(short)?;
            let y = ctx.output::<u8>(0)?.get_mut(..total).ok_or(short)?;
            for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
                softmax_row(&p, x, y, 8, 0, |v| v as u8);
            }
        }
        U8_TO_I16 => {
            let x = ctx.input::<u8>(0)?.get(..total).ok_or(short)?;
            let y = ctx.output::<i16>(0)?.get_mut(..total).ok_or(short)?;
            for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
                softmax_row(&p, x, y, 16, i16::MIN.into(), |v| v as i16);
            }
        }
        _ => {
            let block = ctx.persistent();
            let all = block
                .get(..4 * LUT16)
                .and_then(|b| <[i16]>::ref_from_bytes(b).ok())
                .ok_or(KernelError::Mismatch {
                    what: "persistent block not as init wrote it",
                })?;
            let (a, b) = all.split_at(LUT16);
            let (Ok(exp_lut), Ok(recip_lut)) =
                (<&[i16; LUT16]>::try_from(a), <&[i16; LUT16]>::try_from(b))
            else {
                return Err(short);
            };
            let x = ctx.input::<i16>(0)?.get(..total).ok_or(short)?;
            let y = ctx.output::<i16>(0)?.get_mut(..total).ok_or(short)?;
            for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
                softmax_i16_row(&p, exp_lut, recip_lut, x, y);
            }
        }
    }
    Ok(())
}

/// One row of `reference_ops::Softmax` (int8 or uint8 input), output of `out_bits` bits
/// whose least value is `lo`.
#[inline]
fn softmax_row<X: Copy + Ord + Into<i32>, T: Copy>(
    p: &Params,
    x: &[X],
    y: &mut [T],
    out_bits: i32,
    lo: i32,
    cast: impl Fn(i32) -> T,
) {
    let max: i32 = x.iter().copied().max().map_or(0, Into::into);
    let scaled = |v: X| {
        let diff = v.into() - max;
        (diff >= p.diff_min).then(|| {
            // MultiplyByQuantizedMultiplierGreaterThanOne (double rounding: no right shift).
            quant::multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift)
        })
    };
    let mut sum: i32 = 0;
    for &v in x {
        if let Some(d) = scaled(v) {
            let e = exp_on_negative_values::<SCALED_DIFF_INTEGER_BITS>(d);
            sum = sum.wrapping_add(saturating_rounding_multiply_by_pot(
                e,
                -ACCUMULATION_INTEGER_BITS,
            ));
        }
    }
    let (shifted_scale, bits_over_unit) = reciprocal(sum, ACCUMULATION_INTEGER_BITS);
    let exponent = (bits_over_unit + 31 - out_bits).clamp(0, 31) as u32;
    let hi = lo + ((1i32 << out_bits) - 1);
    for (&v, out) in x.iter().zip(y.iter_mut()) {
        *out = cast(match scaled(v) {
            Some(d) => {
                let e = exp_on_negative_values::<SCALED_DIFF_INTEGER_BITS>(d);
                let unsat = quant::rounding_divide_by_pot(
                    quant::saturating_rounding_doubling_high_mul(shifted_scale, e),
                    exponent,
                );
                unsat.wrapping_add(lo).clamp(lo, hi)
            }
            None => lo,
        });
    }
}

/// One row of `reference_ops::SoftmaxInt16`.
#[inline]
fn softmax_i16_row(
    p: &Params,
    exp_lut: &[i16; LUT16],
    recip_lut: &[i16; LUT16],
    x: &[i16],
    y: &mut [i16],
) {
    let max = i32::from(x.iter().copied().max().unwrap_or(i16::MIN));
    let mut sum: i32 = 0;
    for (&v, out) in x.iter().zip(y.iter_mut()) {
        let diff = i32::from(v) - max;
        let scaled =
            quant::multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift);
        let sym = scaled.wrapping_add(32767).clamp(-32768, 32767) as i16;
        let e = lookup_i16(sym, exp_lut);
        *out = e;
        sum = sum.wrapping_add(i32::from(e));
    }
    let headroom_plus_one = (sum as u32).leading_zeros().max(1);
    let shifted_sum = ((i64::from(sum) << (headroom_plus_one - 1)) + (1 << 13)) >> 14;
    let sym_shifted_sum = shifted_sum - ((1 << 15) + (1 << 16));
    let sat = sym_shifted_sum.clamp(-32768, 32767) as i16;
    let reciprocal = i64::from(lookup_i16(sat, recip_lut));
    let right_shift = 31u32.saturating_sub(headroom_plus_one).max(1);
    let round = 1i64 << (right_shift - 1);
    for out in y.iter_mut() {
        let result = ((i64::from(*out) * reciprocal + round) >> right_shift) as i32;
        *out = result.clamp(0, 32767) as i16;
    }
}

#[cfg(test)]
mod tests;
