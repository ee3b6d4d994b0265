//! The quantized reductions, as LiteRT computes them.
//!
//! - MEAN (int8, uint8; int16 with zero points 0), LiteRT's reference `QuantizedMeanOrSum`:
//!   the int32 sum of each reduced group, less `zero_point * count`, scaled by `input_scale /
//!   output_scale` with `1 / count` folded into the fixed-point multiplier (`(multiplier <<
//!   shift) / count`, `shift = min(floor(log2 count), 32, 31 + output shift)`), plus the output
//!   zero point, clamped to the type.
//! - SUM on uint8: the same without the `1 / count`. SUM on int8 and int16: LiteRT's reference
//!   kernel reads those inputs as uint8 bytes (its `QuantizedMeanOrSum` call passes
//!   `GetTensorData<uint8_t>` whatever the type), so its `BUILTIN_REF` answers are not sums;
//!   tessera computes what LiteRT's default (optimized) kernel does: `round(sum * s + b) +
//!   output_zero_point` in `float`, `s = input_scale / output_scale`, `b = -input_zero_point *
//!   s * count`.
//! - REDUCE_PROD on int8 and int16, the reference `QuantizedReduceProd`: per group, the first
//!   `q - zero_point`, then each further product rescaled by the 64-bit
//!   `MultiplyByQuantizedMultiplier` with `input_scale / output_scale^(1 / count)`, the result
//!   rescaled once more, plus the output zero point, clamped.

use super::super::base::check::{SHORT, dim};
use super::super::base::quant;
use super::{Reduction, Segments, fold_into, reduction};
use crate::interpreter::{Eval, KernelError, Prepare};
use crate::model::TensorType;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    segs: Segments,
    inputs: u32,
    outputs: u32,
    /// Input elements per output element.
    count: u32,
    /// 0: int8, 1: int16, 2: uint8.
    kind: u32,
    /// The multiplier (MEAN: with `1 / count` folded in), and its shift; SUM on int8 and
    /// int16 keeps the float scale's bits in `multiplier`.
    multiplier: i32,
    shift: i32,
    input_zero_point: i32,
    output_zero_point: i32,
}

/// Whether this file runs MEAN or SUM for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16 | TensorType::Uint8)
}

/// The reference's rescaling of `(multiplier, shift)` by `1 / count` (`count > 0`).
pub(crate) fn fold_count(multiplier: i32, shift: i32, count: u64) -> (i32, i32) {
    let log2 = 63 - count.leading_zeros() as i32;
    let s = log2.min(32).min(31 + shift).max(0);
    let m = ((i64::from(multiplier) << s) / count as i64) as i32;
    (m, shift - s)
}

fn kind(t: TensorType) -> Result<u32, KernelError> {
    match t {
        TensorType::Int8 => Ok(0),
        TensorType::Int16 => Ok(1),
        TensorType::Uint8 => Ok(2),
        _ => Err(KernelError::Unsupported {
            what: "quantized reduction other than int8, uint8 or int16",
        }),
    }
}

fn range(kind: u32) -> (i32, i32) {
    match kind {
        0 => (-128, 127),
        1 => (-32768, 32767),
        _ => (0, 255),
    }
}

const RATIO: KernelError = KernelError::Unsupported {
    what: "quantized scale ratio out of the fixed-point range",
};

/// MEAN (`sum` false) or SUM.
fn prepare_mean_or_sum(ctx: &mut Prepare<'_>, sum: bool) -> Result<(), KernelError> {
    let kind = kind(ctx.input(0)?.dtype)?;
    let Reduction {
        input,
        output,
        segs,
        count,
        ..
    } = reduction(ctx)?;
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if kind == 1 && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "int16 MEAN or SUM with a non-zero zero point",
        });
    }
    let (multiplier, shift) = if sum && kind != 2 {
        // The optimized kernel's float scale.
        ((in_scale / out_scale).to_bits() as i32, 0)
    } else {
        let (m, s) = quant::quantize_multiplier(f64::from(in_scale) / f64::from(out_scale))
            .ok_or(RATIO)?;
        if !(-31..=30).contains(&s) || m < 0 {
            return Err(RATIO);
        }
        if !sum && count > 0 {
            fold_count(m, s, count as u64)
        } else {
            (m, s)
        }
    };
    let outputs = output.shape.elements();
    ctx.request_scratch(outputs.saturating_mul(4));
    ctx.set_params(&Params {
        segs,
        inputs: dim(input.shape.elements())?,
        outputs: dim(outputs)?,
        count: dim(count)?,
        kind,
        multiplier,
        shift,
        input_zero_point: in_zp,
        output_zero_point: out_zp,
    });
    Ok(())
}

/// MEAN.
pub(crate) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_mean_or_sum(ctx, false)
}

/// SUM.
pub(crate) fn prepare_sum(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_mean_or_sum(ctx, true)
}

/// One MEAN output (or a uint8 SUM's) from its group's int32 sum.
#[inline]
fn requantize(p: &Params, sum: i32, lo: i32, hi: i32) -> i32 {
    // `temp_sum - zero_point * count` in 64 bits, truncated to the int32 accumulator.
    let shifted = (i64::from(sum) - i64::from(p.input_zero_point) * i64::from(p.count)) as i32;
    quant::multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift)
        .wrapping_add(p.output_zero_point)
        .clamp(lo, hi)
}

/// One int8 / int16 SUM output, as LiteRT's optimized `QuantizedMeanOrSum`.
#[inline]
fn sum_float(p: &Params, sum: i32, lo: i32, hi: i32) -> i32 {
    let scale = f32::from_bits(p.multiplier as u32);
    let bias = -(p.input_zero_point as f32) * scale * p.count as f32;
    let v = libm::roundf(sum as f32 * scale + bias) as i32;
    v.wrapping_add(p.output_zero_point).clamp(lo, hi)
}

/// Sums each group of `x` into scratch and writes each output through `out`.
fn finish<X: Copy, Y: Copy>(
    ctx: &mut Eval<'_>,
    p: &Params,
    x: &[X],
    y: &mut [Y],
    widen: fn(X) -> i32,
    narrow: fn(i32) -> Y,
    sum: bool,
) -> Result<(), KernelError> {
    let no = p.outputs as usize;
    let sums = <[i32]>::mut_from_bytes(ctx.scratch())
        .ok()
        .and_then(|s| s.get_mut(..no))
        .ok_or(KernelError::Mismatch {
            what: "scratch smaller than asked for",
        })?;
    sums.fill(0);
    fold_into(x, sums, &p.segs, |a, v| a.wrapping_add(widen(v)))?;
    // An empty input leaves every output 0 (not the zero point), as LiteRT.
    let empty = p.count == 0 || x.is_empty();
    let (lo, hi) = range(p.kind);
    for (y, &s) in y.iter_mut().zip(sums.iter()) {
        *y = narrow(if empty {
            0
        } else if sum && p.kind != 2 {
            sum_float(p, s, lo, hi)
        } else {
            requantize(p, s, lo, hi)
        });
    }
    Ok(())
}

/// MEAN (`sum` false) or SUM.
fn eval_mean_or_sum(ctx: &mut Eval<'_>, sum: bool) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (ni, no) = (p.inputs as usize, p.outputs as usize);
    if no == 0 {
        return Ok(());
    }
    match p.kind {
        0 => {
            let x = ctx.input::<i8>(0)?.get(..ni).ok_or(SHORT)?;
            let y = ctx.output::<i8>(0)?.get_mut(..no).ok_or(SHORT)?;
            finish(ctx, &p, x, y, i32::from, |v| v as i8, sum)
        }
        1 => {
            let x = ctx.input::<i16>(0)?.get(..ni).ok_or(SHORT)?;
            let y = ctx.output::<i16>(0)?.get_mut(..no).ok_or(SHORT)?;
            finish(ctx, &p, x, y, i32::from, |v| v as i16, sum)
        }
        _ => {
            let x = ctx.input::<u8>(0)?.get(..ni).ok_or(SHORT)?;
            let y = ctx.output::<u8>(0)?.get_mut(..no).ok_or(SHORT)?;
            finish(ctx, &p, x, y, i32::from, |v| v as u8, sum)
        }
    }
}

/// MEAN.
pub(crate) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_mean_or_sum(ctx, false)
}

/// SUM.
pub(crate) fn eval_sum(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_mean_or_sum(ctx, true)
}

// ---- REDUCE_PROD ----

/// Whether an invoked REDUCE_PROD is the quantized one (its set-up took only int8 and int16
/// with quantization here; the plain product refuses them).
pub(crate) fn is_prod(ctx: &Eval<'_>) -> bool {
    matches!(
        ctx.input_type(0),
        Ok(TensorType::Int8 | TensorType::Int16)
    )
}

/// The sentinel of a product not started (products are 32-bit).
const UNSTARTED: i64 = i64::MIN;

/// REDUCE_PROD on int8 / int16 (LiteRT's `PrepareProd`: the scaling from the group size
/// `input_size / output_size`).
pub(crate) fn prepare_prod(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let kind = kind(ctx.input(0)?.dtype)?;
    let Reduction {
        input,
        output,
        segs,
        ..
    } = reduction(ctx)?;
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if kind == 1 && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "int16 REDUCE_PROD with a non-zero zero point",
        });
    }
    let (ni, no) = (input.shape.elements(), output.shape.elements());
    let (multiplier, shift) = if ni != 0 && no != 0 {
        let n = ni / no;
        let scaling =
            f64::from(in_scale) / libm::pow(f64::from(out_scale), 1.0 / n as f64);
        quant::checked_multiplier(scaling, true)?
    } else {
        (0, 0)
    };
    ctx.request_scratch(no.saturating_mul(8));
    ctx.set_params(&Params {
        segs,
        inputs: dim(ni)?,
        outputs: dim(no)?,
        count: 0,
        kind,
        multiplier,
        shift,
        input_zero_point: in_zp,
        output_zero_point: out_zp,
    });
    Ok(())
}

fn prod_of<X: Copy, Y: Copy>(
    ctx: &mut Eval<'_>,
    p: &Params,
    x: &[X],
    y: &mut [Y],
    widen: fn(X) -> i32,
    narrow: fn(i32) -> Y,
) -> Result<(), KernelError> {
    let no = p.outputs as usize;
    let acc = <[i64]>::mut_from_bytes(ctx.scratch())
        .ok()
        .and_then(|s| s.get_mut(..no))
        .ok_or(KernelError::Mismatch {
            what: "scratch smaller than asked for",
        })?;
    acc.fill(UNSTARTED);
    let (m, s, zp) = (p.multiplier, p.shift, p.input_zero_point);
    fold_into(x, acc, &p.segs, |a, v| {
        let q = widen(v).wrapping_sub(zp);
        if a == UNSTARTED {
            i64::from(q)
        } else {
            let r = a.wrapping_mul(i64::from(q));
            i64::from(quant::multiply_by_quantized_multiplier_i64(r, m, s))
        }
    })?;
    let (lo, hi) = range(p.kind);
    for (y, &a) in y.iter_mut().zip(acc.iter()) {
        let v = if a == UNSTARTED {
            0
        } else {
            quant::multiply_by_quantized_multiplier_i64(a, m, s)
                .wrapping_add(p.output_zero_point)
                .clamp(lo, hi)
        };
        *y = narrow(v);
    }
    Ok(())
}

/// REDUCE_PROD on int8 / int16. An empty input leaves the output 0 (LiteRT leaves it
/// unwritten).
pub(crate) fn eval_prod(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (ni, no) = (p.inputs as usize, p.outputs as usize);
    if no == 0 {
        return Ok(());
    }
    if p.kind == 0 {
        let x = ctx.input::<i8>(0)?.get(..ni).ok_or(SHORT)?;
        let y = ctx.output::<i8>(0)?.get_mut(..no).ok_or(SHORT)?;
        prod_of(ctx, &p, x, y, i32::from, |v| v as i8)
    } else {
        let x = ctx.input::<i16>(0)?.get(..ni).ok_or(SHORT)?;
        let y = ctx.output::<i16>(0)?.get_mut(..no).ok_or(SHORT)?;
        prod_of(ctx, &p, x, y, i32::from, |v| v as i16)
    }
}

#[cfg(test)]
mod tests;
