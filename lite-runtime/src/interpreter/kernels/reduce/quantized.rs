//! MEAN on quantized tensors (int8; int16 with zero points 0) as LiteRT's reference
//! `QuantizedMeanOrSum`: the int32 sum of each reduced group, less `zero_point * count`,
//! scaled by `input_scale / output_scale` with `1 / count` folded into the fixed-point
//! multiplier (`(multiplier << shift) / count`, `shift = min(floor(log2 count), 32, 31 +
//! output shift)`), plus the output zero point, clamped to the type.

use super::super::base::check::dim;
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
    /// 1: int16; 0: int8.
    wide: u32,
    /// The multiplier with `1 / count` folded in, and its shift.
    multiplier: i32,
    shift: i32,
    input_zero_point: i32,
    output_zero_point: i32,
}

/// Whether this file runs MEAN for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16)
}

/// The reference's rescaling of `(multiplier, shift)` by `1 / count` (`count > 0`).
pub(crate) fn fold_count(multiplier: i32, shift: i32, count: u64) -> (i32, i32) {
    let log2 = 63 - count.leading_zeros() as i32;
    let s = log2.min(32).min(31 + shift).max(0);
    let m = ((i64::from(multiplier) << s) / count as i64) as i32;
    (m, shift - s)
}

pub(crate) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let wide = match ctx.input(0)?.dtype {
        TensorType::Int8 => false,
        TensorType::Int16 => true,
        _ => {
            return Err(KernelError::Unsupported {
                what: "quantized MEAN other than int8 or int16",
            });
        }
    };
    let Reduction {
        input,
        output,
        segs,
        count,
    } = reduction(ctx)?;
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if wide && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "int16 MEAN with a non-zero zero point",
        });
    }
    let (m, s) = quant::quantize_multiplier(f64::from(in_scale) / f64::from(out_scale)).ok_or(
        KernelError::Unsupported {
            what: "quantized scale ratio out of the fixed-point range",
        },
    )?;
    if !(-31..=30).contains(&s) || m < 0 {
        return Err(KernelError::Unsupported {
            what: "quantized scale ratio out of the fixed-point range",
        });
    }
    let (multiplier, shift) = if count > 0 {
        fold_count(m, s, count as u64)
    } else {
        (m, s)
    };
    let outputs = output.shape.elements();
    ctx.request_scratch(outputs.saturating_mul(4));
    ctx.set_params(&Params {
        segs,
        inputs: dim(input.shape.elements())?,
        outputs: dim(outputs)?,
        count: dim(count)?,
        wide: u32::from(wide),
        multiplier,
        shift,
        input_zero_point: in_zp,
        output_zero_point: out_zp,
    });
    Ok(())
}

/// One output from its group's int32 sum.
#[inline]
fn requantize(p: &Params, sum: i32, lo: i32, hi: i32) -> i32 {
    // `temp_sum - zero_point * count` in 64 bits, truncated to the int32 accumulator.
    let shifted = (i64::from(sum) - i64::from(p.input_zero_point) * i64::from(p.count)) as i32;
    quant::multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift)
        .wrapping_add(p.output_zero_point)
        .clamp(lo, hi)
}

pub(crate) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (ni, no) = (p.inputs as usize, p.outputs as usize);
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    if no == 0 {
        return Ok(());
    }
    let scratch_short = KernelError::Mismatch {
        what: "scratch smaller than asked for",
    };
    // An empty input leaves every output 0 (not the zero point), as the reference.
    let empty = p.count == 0 || ni == 0;
    if p.wide == 0 {
        let x = ctx.input::<i8>(0)?.get(..ni).ok_or(short)?;
        let y = ctx.output::<i8>(0)?.get_mut(..no).ok_or(short)?;
        let sums = <[i32]>::mut_from_bytes(ctx.scratch())
            .ok()
            .and_then(|s| s.get_mut(..no))
            .ok_or(scratch_short)?;
        sums.fill(0);
        fold_into(x, sums, &p.segs, |a, v| a.wrapping_add(i32::from(v)))?;
        for (y, &s) in y.iter_mut().zip(sums.iter()) {
            *y = if empty {
                0
            } else {
                requantize(&p, s, -128, 127) as i8
            };
        }
    } else {
        let x = ctx.input::<i16>(0)?.get(..ni).ok_or(short)?;
        let y = ctx.output::<i16>(0)?.get_mut(..no).ok_or(short)?;
        let sums = <[i32]>::mut_from_bytes(ctx.scratch())
            .ok()
            .and_then(|s| s.get_mut(..no))
            .ok_or(scratch_short)?;
        sums.fill(0);
        fold_into(x, sums, &p.segs, |a, v| a.wrapping_add(i32::from(v)))?;
        for (y, &s) in y.iter_mut().zip(sums.iter()) {
            *y = if empty {
                0
            } else {
                requantize(&p, s, -32768, 32767) as i16
            };
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
